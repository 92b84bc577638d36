package store

// A full disk and a read-only filesystem, for real: Linux only, since they
// need a filesystem made for the test, a small tmpfs mounted (and
// remounted read-only) by root. macOS can make one only with a disk image
// (hdiutil), too heavy for a unit test; a file-size limit (RLIMIT_FSIZE),
// which needs no root, fails writes with EFBIG rather than ENOSPC or EROFS
// (capture's TestWriteFailureMidPasteReplaysExactly uses it on every
// system).

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// smallFS mounts a tmpfs of the given size on a new directory, for the
// failures a full or read-only disk brings. It needs to run as root (as CI
// does) where mounting is allowed.
func smallFS(t *testing.T, size string) string {
	t.Helper()
	dir := realDir(t)
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("mounting a tmpfs needs root and a mount namespace that allows it: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// A full disk is an error naming the file, never a panic, and what was
// written can still be replayed inline.
func TestFullDisk(t *testing.T) {
	dir := smallFS(t, "64k")
	r, err := OpenRoot(filepath.Join(dir, "root"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, r)
	tmp, err := s.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Discard()
	chunk := bytes.Repeat([]byte("x"), 4096)
	var written int
	for range 64 { // 256 KiB into 64 KiB
		n, err := tmp.Write(chunk)
		written += n
		if err != nil {
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), tmp.Path()) {
				t.Errorf("Write on a full disk: %v, want ENOSPC naming %s", err, tmp.Path())
			}
			break
		}
	}
	if written == 64*len(chunk) {
		t.Fatalf("wrote %d bytes to a 64 KiB filesystem", written)
	}
	if got := replay(t, tmp); len(got) != written {
		t.Errorf("replay on a full disk gave %d bytes, want the %d written", len(got), written)
	}

	// The manifest cannot be rewritten either; that too is an error.
	if err := s.Record(PasteRecord{Outcome: OutcomeFallback, Reason: "disk full"}); err == nil {
		t.Errorf("Record on a full disk succeeded")
	} else if !strings.Contains(err.Error(), s.Dir) {
		t.Errorf("Record on a full disk: %q does not name %s", err, s.Dir)
	}
	checkNoTempsExcept(t, s.Dir, tmp.Path())

	// Once space is back, the session works again.
	if err := tmp.Discard(); err != nil {
		t.Fatal(err)
	}
	n, _, _ := commit(t, s, "fits\n")
	if err := s.Record(savedRecord(s, n, "fits\n")); err != nil {
		t.Errorf("Record after freeing space: %v", err)
	}
}

// A read-only root is an error naming the path, for OpenRoot and for
// NewSession, whoever runs it.
func TestReadOnlyFilesystem(t *testing.T) {
	dir := smallFS(t, "64k")
	if _, err := OpenRoot(filepath.Join(dir, "root")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("remount read-only: %v", err)
	}

	missing := filepath.Join(dir, "missing")
	if _, err := OpenRoot(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("OpenRoot(%s) on a read-only filesystem = %v, want an error naming it", missing, err)
	}
	r, err := OpenRoot(filepath.Join(dir, "root"))
	if err != nil {
		t.Fatalf("OpenRoot of an existing 0700 root on a read-only filesystem: %v", err)
	}
	id := mustSessionID(t)
	if s, err := r.NewSession(id, testMeta); err == nil {
		s.Close()
		t.Errorf("NewSession on a read-only filesystem succeeded")
	} else if !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), r.Path) {
		t.Errorf("NewSession on a read-only filesystem: %v, want EROFS naming %s", err, r.Path)
	}
}

func checkNoTempsExcept(t *testing.T, dir, keep string) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		if m != keep {
			t.Errorf("%s left behind", m)
		}
	}
}
