package fsutil

import (
	"errors"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// openat2 is unix.Openat2, a variable so that tests can take the fallback
// as a kernel without openat2 would.
var openat2 = unix.Openat2

// noOpenat2 is set once openat2 has proved missing, so that later calls go
// straight to the walk.
var noOpenat2 atomic.Bool

// errNoOpenat2: the kernel (or a seccomp filter) refuses openat2.
var errNoOpenat2 = errors.New("openat2 is not available")

// maxAgain bounds the retries of an openat2 that a concurrent rename made
// fail with EAGAIN, which RESOLVE_BENEATH does rather than risk a wrong
// answer. A rename storm beyond that is reported as the error.
const maxAgain = 64

func openBeneath(dir *os.File, name string) (*os.File, error) {
	if !noOpenat2.Load() {
		f, err := openat2Beneath(dir, name)
		if !errors.Is(err, errNoOpenat2) {
			return f, err
		}
		noOpenat2.Store(true)
	}
	return walkBeneath(dir, name)
}

// openat2Beneath opens name with one openat2(2) below dir, following no
// symbolic link (RESOLVE_NO_SYMLINKS also covers the last component, and
// magic links such as /proc/self/fd/N).
func openat2Beneath(dir *os.File, name string) (*os.File, error) {
	if name == "" {
		name = "." // As the walk takes it.
	}
	how := unix.OpenHow{
		Flags:   openFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	var fd int
	err := control(dir, func(base int) (err error) {
		for again := 0; ; again++ {
			fd, err = openat2(base, name, &how)
			if err != unix.EINTR && (err != unix.EAGAIN || again == maxAgain) {
				return err
			}
		}
	})
	switch err {
	case nil:
		return os.NewFile(uintptr(fd), name), nil
	case unix.ENOSYS, unix.EPERM:
		return nil, errNoOpenat2
	case unix.ELOOP:
		err = ErrSymlink
	case unix.EXDEV:
		err = ErrOutside
	}
	return nil, pathError(name, err)
}
