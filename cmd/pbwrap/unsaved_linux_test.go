package main

// Every way saving a paste fails on a real file system, end to end
// through the built pbwrap (issue 39): a read-only file system, a full
// disk (at start, between pastes, in the middle of a paste), no inodes
// left, a disk that fails with I/O errors. In each the paste reaches the
// child whole, exactly as pasted, then the note that says it was not
// saved and why; a failure at start is said on the terminal before the
// child starts too; pbwrap doctor finds the reason and exits 1; and once
// the cause is gone the next paste is saved. They mount file systems,
// which needs root (CAP_SYS_ADMIN): without it they skip, unless
// PBWRAP_REQUIRE_MOUNT is set (scripts/test sets it where it can mount).

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// mountTmpfs mounts a tmpfs with options opts (size=256k, nr_inodes=64)
// on a new directory and returns the directory, unmounted when the test
// ends.
func mountTmpfs(t *testing.T, opts string) string {
	t.Helper()
	dir := filepath.Join(realDir(t), "fs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "mode=700,"+opts); err != nil {
		cannotMount(t, fmt.Sprintf("mount a tmpfs: %v", err))
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) }) // Lazily: a process may still have a file open there.
	return dir
}

// cannotMount skips the test, or fails it where mounting is required.
func cannotMount(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("PBWRAP_REQUIRE_MOUNT") != "" {
		t.Fatalf("%s (PBWRAP_REQUIRE_MOUNT is set)", why)
	}
	t.Skipf("%s: needs root", why)
}

// remountReadOnly mounts the file system at dir again, read-only.
func remountReadOnly(t *testing.T, dir string) {
	t.Helper()
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
}

// readOnlyOver mounts dir read-only on itself (a bind mount) and returns
// what takes it away again.
func readOnlyOver(t *testing.T, dir string) (undo func()) {
	t.Helper()
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount %s: %v", dir, err)
	}
	undo = func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	}
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		undo()
		t.Fatalf("remount %s read-only: %v", dir, err)
	}
	return undo
}

// fill writes a file under dir until the file system is full, and
// returns it.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			return path
		}
	}
}

// fillInodes makes empty files under dir until no inode is left.
func fillInodes(t *testing.T, dir string) {
	t.Helper()
	for i := 0; ; i++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("inode-%d", i)))
		if err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill the inodes of %s: %v", dir, err)
			}
			return
		}
		f.Close()
	}
}

// mountExt4 makes an ext4 file system in an image file, mounts it through
// a loop device on a new directory and returns the directory, unmounted
// when the test ends.
func mountExt4(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		cannotMount(t, "mount an ext4 image")
	}
	mkfs, err := exec.LookPath("mkfs.ext4")
	if err != nil {
		mkfs = "/sbin/mkfs.ext4"
	}
	base := realDir(t)
	img, dir := filepath.Join(base, "ext4.img"), filepath.Join(base, "fs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("truncate", "-s", "16M", img).CombinedOutput(); err != nil {
		t.Fatalf("truncate: %v\n%s", err, out)
	}
	if out, err := exec.Command(mkfs, "-q", "-F", img).CombinedOutput(); err != nil {
		cannotMount(t, fmt.Sprintf("make an ext4 file system (%v: %s; scripts/test installs e2fsprogs)", err, bytes.TrimSpace(out)))
	}
	// A machine that mounts a tmpfs may still have no loop devices (a
	// container): that is no missing install, and the test skips.
	if out, err := exec.Command("mount", "-o", "loop", img, dir).CombinedOutput(); err != nil {
		t.Skipf("no loop device to mount an ext4 image on (%v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", dir, err, out)
		}
	})
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ext4Shutdown is EXT4_IOC_SHUTDOWN of linux/ext4.h (_IOR('X', 125,
// __u32)), and ext4GoingNoLogFlush its flag: the disk is gone, and every
// operation on the file system fails with EIO from now on, as xfstests
// simulate a device that failed.
const (
	ext4Shutdown        = 0x8004587d
	ext4GoingNoLogFlush = 2
)

// shutDown makes the ext4 file system at dir fail every operation with
// EIO.
func shutDown(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := unix.IoctlSetPointerInt(int(d.Fd()), ext4Shutdown, ext4GoingNoLogFlush); err != nil {
		t.Skipf("shut down ext4 (EXT4_IOC_SHUTDOWN): %v", err)
	}
}

// A failure at start: the terminal says so before the child starts, each
// large paste goes in whole with the note, and doctor finds the reason.
func TestUnsavedAtStart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T) (root string)
		why    string // the note's reason
		said   string // in the start message
		doctor string // in doctor's problems
	}{
		{"read-only file system", func(t *testing.T) string {
			fs := mountTmpfs(t, "size=1m")
			root := filepath.Join(fs, "root")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			remountReadOnly(t, fs)
			return root
		}, "the file system is read-only", "read-only file system", "(the file system is read-only)"},
		{"disk full", func(t *testing.T) string {
			fs := mountTmpfs(t, "size=256k")
			fill(t, fs)
			return filepath.Join(fs, "root")
		}, "the disk is full", "no space left on device", "less than --min-bytes"},
		{"no inodes left", func(t *testing.T) string {
			fs := mountTmpfs(t, "size=1m,nr_inodes=32")
			root := filepath.Join(fs, "root")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			fillInodes(t, fs)
			return root
		}, "the disk is full", "no space left on device", "inodes free"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tc.make(t)
			term := startCapture(t, true, "PBWRAP_ROOT="+root)
			out := string(term.Output())
			if !strings.Contains(out, "pbwrap: not saving pastes: ") || !strings.Contains(out, tc.said) {
				t.Errorf("before the child started the terminal showed %q, want pbwrap's line saying %q", ptytest.Tail([]byte(out), 300), tc.said)
			}
			for i := range 2 {
				term.pasteUnsaved(fmt.Sprintf("#%d#", i), true, ptytest.Lines(300, "kept"), tc.why)
			}
			wantDoctorFinds(t, root, tc.doctor)
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// A failure in the middle of a session: the paste that meets it goes in
// whole with the note, and once the cause is gone the next one is saved.
func TestUnsavedMidSession(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mount  func(t *testing.T) string
		fail   func(t *testing.T, fs string) (mend func())
		why    string
		doctor string
	}{
		{"read-only file system", func(t *testing.T) string { return mountTmpfs(t, "size=2m") },
			func(t *testing.T, fs string) func() {
				// pbwrap holds its lock file open for writing, so the file
				// system cannot be remounted read-only under it: a read-only
				// mount of it takes its place, as a file system that turned
				// read-only does.
				return readOnlyOver(t, fs)
			}, "the file system is read-only", "(the file system is read-only)"},
		{"disk full", func(t *testing.T) string { return mountTmpfs(t, "size=2m") },
			func(t *testing.T, fs string) func() {
				filler := fill(t, fs)
				return func() {
					if err := os.Remove(filler); err != nil {
						t.Fatal(err)
					}
				}
			}, "the disk is full", "less than --min-bytes"},
		{"I/O error", mountExt4, func(t *testing.T, fs string) func() {
			shutDown(t, fs)
			return nil // A disk that failed stays failed.
		}, "an I/O error", "(an I/O error)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := tc.mount(t)
			root := filepath.Join(fs, "root")
			term := startCapture(t, true, "PBWRAP_ROOT="+root)
			term.rootDir = root
			term.pasteSaved("#1#", ptytest.Lines(300, "first"))
			mend := tc.fail(t, fs)
			term.pasteUnsaved("#2#", true, ptytest.Lines(300, "second"), tc.why)
			wantDoctorFinds(t, root, tc.doctor)
			if mend != nil {
				mend()
				term.pasteSaved("#3#", ptytest.Lines(300, "third"))
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// The disk fills in the middle of a paste (it is larger than the space
// left): what was written is replayed and the rest streams on, so the
// child gets the paste exactly as pasted, then the note; and pbwrap's
// temp files are gone, so the next paste that fits is saved.
func TestUnsavedDiskFillsMidPaste(t *testing.T) {
	for _, bp := range []bool{true, false} {
		t.Run(modeName(bp), func(t *testing.T) {
			fs := mountTmpfs(t, "size=1m")
			root := filepath.Join(fs, "root")
			term := startCapture(t, bp, "PBWRAP_ROOT="+root)
			term.rootDir = root
			term.pasteUnsaved("#1#", bp, ptytest.Lines(40000, "larger than the disk"), "the disk is full")
			if bp {
				term.pasteSaved("#2#", ptytest.Lines(300, "fits"))
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}
