package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A root on a read-only file system fails TrySave with EROFS, as saving
// fails there, for root too (pbwrap doctor said all was well: issue 39).
func TestTrySaveReadOnly(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	unremovableEntries(t, root) // A read-only bind mount of root on itself.
	err := TrySave(root, 8192)
	if !errors.Is(err, syscall.EROFS) || Why(err) != "the file system is read-only" {
		t.Errorf("TrySave on a read-only file system: %v (%q), want EROFS", err, Why(err))
	}
}
