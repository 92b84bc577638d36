package store

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// Why names the reason in a few words, through the wrapping the store's
// errors have; the errors no test here can make for real (a quota needs a
// kernel with quotas; unsaved_linux_test.go in cmd/pbwrap makes the
// others) are wrapped as the store wraps them.
func TestWhy(t *testing.T) {
	wrap := func(errno syscall.Errno) error {
		return fmt.Errorf("store: commit paste: %w", &fs.PathError{Op: "write", Path: "/r/s/.tmp-paste-1", Err: errno})
	}
	for err, want := range map[error]string{
		wrap(syscall.ENOSPC):                       "the disk is full",
		wrap(syscall.EDQUOT):                       "over your disk quota",
		wrap(syscall.EROFS):                        "the file system is read-only",
		wrap(syscall.EACCES):                       "permission denied",
		wrap(syscall.EPERM):                        "not permitted",
		wrap(syscall.EIO):                          "an I/O error",
		wrap(syscall.ENOLCK):                       "the file system has no locks",
		wrap(syscall.ENOTDIR):                      "a part of the root's path is not a directory",
		wrap(syscall.EFBIG):                        "file too large",
		unsafeRoot("/r", "is a symlink to \"/x\""): "the root is unsafe",
		errors.New("something else"):               "an error saving it",
	} {
		if got := Why(err); got != want {
			t.Errorf("Why(%v) = %q, want %q", err, got, want)
		}
	}
	if got := Why(nil); got != "" {
		t.Errorf("Why(nil) = %q, want none", got)
	}
}
