//go:build darwin || freebsd || linux

// The calls the store needs of a Unix system: O_NOFOLLOW, flock(2),
// F_DUPFD_CLOEXEC, the owner of a file. golang.org/x/sys/unix has them for
// every Unix system Go supports but AIX (no flock), which builds with
// sys_other.go instead.

package store

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// How flock is called: a session takes its lock without waiting (a second
// pbwrap on the same directory is a bug to report, not to wait for), and
// IsLive probes with a shared lock, which other probes do not block.
const (
	lockExclusive   = unix.LOCK_EX | unix.LOCK_NB
	lockSharedProbe = unix.LOCK_SH | unix.LOCK_NB
	lockUnlock      = unix.LOCK_UN
)

// openNoFollow opens path, failing if its last element is a symlink. The
// descriptor is close-on-exec, so the command pbwrap runs never inherits it.
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
}

// openDirNoFollow opens the directory at path for reading, failing if path
// is a symlink or not a directory.
func openDirNoFollow(path string) (*os.File, error) {
	return openNoFollow(path, os.O_RDONLY|unix.O_DIRECTORY, 0)
}

// ownerUID returns the uid that owns the file fi describes.
func ownerUID(fi fs.FileInfo) (int, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, errors.New("file owner unknown")
	}
	return int(st.Uid), nil
}

// flock applies the flock(2) operation how to f.
func flock(f *os.File, how int) error {
	return control(f, "flock", func(fd int) error { return unix.Flock(fd, how) })
}

func isWouldBlock(err error) bool {
	return errors.Is(err, unix.EWOULDBLOCK)
}

// control calls op on f's descriptor, again when interrupted by a signal,
// and wraps its error in an *fs.PathError naming f.
func control(f *os.File, name string, op func(fd int) error) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = c.Control(func(fd uintptr) {
		for {
			opErr = op(int(fd))
			if opErr != unix.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if opErr != nil {
		return &fs.PathError{Op: name, Path: f.Name(), Err: opErr}
	}
	return nil
}

// dupFile returns a new *os.File on a duplicate of f's descriptor, which
// stays open when f is closed.
func dupFile(f *os.File) (*os.File, error) {
	var fd int
	err := control(f, "dup", func(old int) error {
		var err error
		fd, err = unix.FcntlInt(uintptr(old), unix.F_DUPFD_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
