package store

// Linux's ways to make a removal fail for root too; they need root
// (CAP_SYS_ADMIN to mount, CAP_LINUX_IMMUTABLE for chattr +i), and the
// tests that use them skip without it.

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// unremovableEntries makes the entries of dir impossible to remove, for
// root too, until the test ends, by bind-mounting dir on itself,
// read-only, and returns the reason a removal gives. It needs root and a
// mount namespace that allows it.
func unremovableEntries(t *testing.T, dir string) (why string) {
	t.Helper()
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Skipf("bind mount needs root and a mount namespace that allows it: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("remount read-only: %v", err)
	}
	return "read-only file system"
}

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h, the flag chattr +i sets.
const fsImmutableFL = 0x10

// immutable makes the file at path impossible to remove, for root too,
// until the test ends (for a directory: its entries, too). It needs root
// and a filesystem with the immutable attribute (chattr +i).
func immutable(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, fsImmutableFL); err != nil {
		t.Skipf("chattr +i %s: %v", path, err)
	}
	t.Cleanup(func() { mutable(t, path) })
}

// mutable undoes immutable.
func mutable(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return // Gone: nothing to undo.
	}
	defer f.Close()
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, 0); err != nil {
		t.Errorf("chattr -i %s: %v", path, err)
	}
}
