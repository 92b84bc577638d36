//go:build darwin || freebsd || linux

package store

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// unlink removes the name path of a file that is not a directory. Unlike
// os.Remove it never removes a directory, even an empty one put in the
// file's place: cleanup removes exactly the files it looked at. Its error
// is the bare errno, for the caller to wrap with the path.
func unlink(path string) error {
	return ignoringEINTR(func() error { return unix.Unlink(path) })
}

// rmdir removes the empty directory path. Unlike os.Remove it never
// removes a file or a symlink put in the directory's place. Its error is
// the bare errno, for the caller to wrap with the path.
func rmdir(path string) error {
	return ignoringEINTR(func() error { return unix.Rmdir(path) })
}

func ignoringEINTR(op func() error) error {
	for {
		if err := op(); err != unix.EINTR {
			return err
		}
	}
}

// isNotEmpty reports whether err says a directory still has entries.
func isNotEmpty(err error) bool {
	return errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST)
}

// openExisting opens the existing file at path to lock it, without
// following a symlink and without blocking should it be a named pipe.
func openExisting(path string) (*os.File, error) {
	return openNoFollow(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}

// touch sets the modification time of the file at path, not following a
// symlink, to the current time.
func touch(path string) error {
	err := ignoringEINTR(func() error {
		return unix.UtimesNanoAt(unix.AT_FDCWD, path, nil, unix.AT_SYMLINK_NOFOLLOW)
	})
	if err != nil {
		return &fs.PathError{Op: "touch", Path: path, Err: err}
	}
	return nil
}

// canCreateIn reports why the user could not create a directory in dir.
func canCreateIn(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	return ignoringEINTR(func() error { return unix.Access(dir, unix.W_OK|unix.X_OK) })
}
