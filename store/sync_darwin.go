package store

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// syncFile flushes f to stable storage. os.File.Sync asks the drive to
// flush its cache (F_FULLFSYNC) and falls back to fsync(2) only on
// ENOTSUP, but macFUSE volumes refuse F_FULLFSYNC with EINVAL; there
// fsync(2) is the best the filesystem offers, so use it rather than fail
// the paste.
func syncFile(f *os.File) error {
	err := f.Sync()
	if !errors.Is(err, unix.EINVAL) {
		return err
	}
	return control(f, "fsync", unix.Fsync)
}
