//go:build darwin || freebsd || linux

package fsutil

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openFlags are the flags of every open: read only, never a symbolic link,
// never waiting on a named pipe, never a controlling terminal.
const openFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY

// walkBeneath is WalkBeneath.
func walkBeneath(dir *os.File, name string) (*os.File, error) {
	comps, mustDir, err := components(name)
	if err != nil {
		return nil, pathError(name, err)
	}
	var fd int
	err = control(dir, func(base int) (err error) {
		fd, err = walk(base, comps, mustDir)
		return err
	})
	if err != nil {
		return nil, pathError(name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// components splits a relative name into the names walk opens, dropping
// empty and "." components, and reports whether the result must be a
// directory (the name ends in "/", "." or "..").
func components(name string) (comps []string, mustDir bool, err error) {
	if strings.HasPrefix(name, "/") {
		return nil, false, ErrOutside
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p != "" && p != "." {
			comps = append(comps, p)
		}
	}
	last := parts[len(parts)-1]
	return comps, last == "" || last == "." || last == "..", nil
}

// walk opens comps below the directory base, one at a time, and returns
// the descriptor of the last; base is not closed, every descriptor walk
// opened on the way is.
func walk(base int, comps []string, mustDir bool) (int, error) {
	stack := []int{base} // the directories walked through; ".." pops one
	defer func() {
		for _, fd := range stack[1:] {
			_ = unix.Close(fd) // Directories only read: nothing to lose.
		}
	}()
	for i, c := range comps {
		top := stack[len(stack)-1]
		if c == ".." {
			if len(stack) == 1 {
				return -1, ErrOutside
			}
			_ = unix.Close(top) // As above.
			stack = stack[:len(stack)-1]
			continue
		}
		last := i == len(comps)-1
		flags := openFlags
		if !last || mustDir {
			flags |= unix.O_DIRECTORY
		}
		fd, err := openat(top, c, flags)
		if err != nil {
			return -1, explain(top, c, err)
		}
		if last {
			return fd, nil
		}
		stack = append(stack, fd)
	}
	// The name ended in ".." (or was only "." components): the result is
	// the directory reached, opened afresh so that the caller owns it.
	return openat(stack[len(stack)-1], ".", openFlags|unix.O_DIRECTORY)
}

// openat is openat(2), retried when a signal interrupts it.
func openat(dir int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// explain turns the error of opening name in dir into ErrSymlink when name
// is a symbolic link: O_NOFOLLOW fails with ELOOP on Linux and macOS, with
// EMLINK on FreeBSD, and O_DIRECTORY may report ENOTDIR first.
func explain(dir int, name string, err error) error {
	if err != unix.ELOOP && err != unix.EMLINK && err != unix.ENOTDIR {
		return err
	}
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return ErrSymlink
	}
	return err
}

// control runs fn with dir's descriptor, which stays valid while fn runs.
func control(dir *os.File, fn func(fd int) error) error {
	rc, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
