package store

import (
	"errors"
	"syscall"
)

// Why says in a few words, for a person, why the store failed with err:
// "the disk is full", "the file system is read-only", "the root is
// unsafe". It names no path, so that it fits in one short line (the
// error itself says where); an error it has no words for is "an error
// saving it".
func Why(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrUnsafeRoot):
		return "the root is unsafe"
	case !errors.As(err, &errno):
		return "an error saving it"
	}
	for _, w := range errnoWhy {
		if errno == w.errno {
			return w.why
		}
	}
	return errno.Error()
}

// errnoWhy are the words for the errors saving fails with.
var errnoWhy = []struct {
	errno syscall.Errno
	why   string
}{
	{syscall.ENOSPC, "the disk is full"},
	{syscall.EDQUOT, "over your disk quota"},
	{syscall.EROFS, "the file system is read-only"},
	{syscall.EACCES, "permission denied"},
	{syscall.EPERM, "not permitted"},
	{syscall.EIO, "an I/O error"},
	{syscall.ENOLCK, "the file system has no locks"},
	{syscall.EMFILE, "too many open files"},
	{syscall.ENFILE, "too many open files"},
	{syscall.ENAMETOOLONG, "the root's path is too long"},
	{syscall.ENOTDIR, "a part of the root's path is not a directory"},
}
