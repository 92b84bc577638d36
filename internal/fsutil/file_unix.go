//go:build darwin || freebsd || linux

package fsutil

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	// readOpenFlags makes opening a file that ReadRegular reads return at
	// once should it have become a named pipe since its stat (no writer is
	// waited for; ReadRegular then refuses it), and never makes a terminal
	// there the controlling one. A regular file reads the same.
	readOpenFlags = unix.O_NONBLOCK | unix.O_NOCTTY

	// noFollowFlag refuses a symbolic link at the end of the path.
	noFollowFlag = unix.O_NOFOLLOW
)

func syncDir(dir string) error {
	d, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer d.Close() // Best effort: nothing was written through d.
	err = syncFile(d)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
		return nil
	}
	return err
}

// ignoringEINTR calls op again while a signal interrupts it.
func ignoringEINTR(op func() error) error {
	for {
		if err := op(); err != unix.EINTR {
			return err
		}
	}
}

// Identity returns who owns the file fi describes and how many names it
// has; ok is false where the system does not say.
func Identity(fi os.FileInfo) (id FileID, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, false
	}
	return FileID{UID: int(st.Uid), GID: int(st.Gid), Links: uint64(st.Nlink)}, true
}
