package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TrySave saves a paste as a session does and leaves nothing behind,
// in a root that exists and in one that does not yet (which it does not
// make).

func TestTrySaveLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pbwrap saves on Unix only")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{root, filepath.Join(dir, "not", "yet")} {
		if err := TrySave(path, 8192); err != nil {
			t.Errorf("TrySave(%s): %v", path, err)
		}
	}
	for _, d := range []string{dir, root} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		if d == dir && (len(entries) != 1 || entries[0].Name() != "root") || d == root && len(entries) != 0 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("%s holds %q after TrySave", d, names)
		}
	}
}

// A root the user cannot write in fails TrySave as a session would fail,
// with permission denied (root's processes write anyway).
func TestTrySaveNotWritable(t *testing.T) {
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		t.Skip("root writes in a directory of mode 0500")
	}
	root := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(root, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(root, 0o700) })
	err := TrySave(root, 8192)
	if !errors.Is(err, syscall.EACCES) || Why(err) != "permission denied" {
		t.Errorf("TrySave of a root of mode 0500: %v (%q), want permission denied", err, Why(err))
	}
}
