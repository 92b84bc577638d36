//go:build darwin || freebsd

package store

// The BSDs' way to make a removal fail for root too: the user immutable
// flag (chflags uchg), which the owner sets without root, and which
// denies removing the file, or, on a directory, its entries, until it is
// cleared.

import (
	"errors"
	"io/fs"
	"testing"

	"golang.org/x/sys/unix"
)

// ufImmutable is UF_IMMUTABLE of <sys/stat.h>, the flag chflags uchg
// sets: 0x2 on macOS and FreeBSD alike (x/sys/unix has it for macOS only).
const ufImmutable = 0x2

// unremovableEntries makes the entries of dir impossible to remove until
// the test ends, and returns the reason a removal gives.
func unremovableEntries(t *testing.T, dir string) (why string) {
	t.Helper()
	immutable(t, dir)
	return "operation not permitted"
}

// immutable makes the file at path impossible to remove, for root too,
// until the test ends (for a directory: its entries, too).
func immutable(t *testing.T, path string) {
	t.Helper()
	flags := fileFlags(t, path)
	if err := unix.Chflags(path, int(flags|ufImmutable)); err != nil {
		t.Skipf("chflags uchg %s: %v", path, err)
	}
	t.Cleanup(func() { mutable(t, path) })
}

// mutable undoes immutable.
func mutable(t *testing.T, path string) {
	t.Helper()
	var st unix.Stat_t
	switch err := unix.Lstat(path, &st); {
	case errors.Is(err, fs.ErrNotExist):
		return // Gone: nothing to undo.
	case err != nil:
		t.Errorf("chflags nouchg %s: %v", path, err)
		return
	}
	if err := unix.Chflags(path, int(st.Flags&^ufImmutable)); err != nil {
		t.Errorf("chflags nouchg %s: %v", path, err)
	}
}

// fileFlags are the file flags (chflags) of path.
func fileFlags(t *testing.T, path string) uint32 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Flags
}
