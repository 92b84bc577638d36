//go:build darwin || freebsd || linux

package ptyio

import (
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// OpenPTY opens a new PTY pair. Unlike pty.Open, which hands the master
// back in blocking mode, the master is non-blocking in Go's poller: its
// reads can be given a deadline, and Close ends a pending Read. The caller
// closes both files.
func OpenPTY() (master, slave *os.File, err error) {
	m, slave, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	defer m.Close()
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		slave.Close()
		return nil, nil, fmt.Errorf("dup pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		slave.Close()
		return nil, nil, fmt.Errorf("set pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), m.Name()), slave, nil
}

// OpenPTYFd opens a new PTY pair as OpenPTY does, but returns the master
// as a bare descriptor, close-on-exec and blocking, that Go's poller
// never sees, for a caller that waits for it itself; name is the master's
// name, for errors. The caller closes both.
func OpenPTYFd() (master int, name string, slave *os.File, err error) {
	m, slave, err := pty.Open()
	if err != nil {
		return -1, "", nil, fmt.Errorf("open pty: %w", err)
	}
	defer m.Close()
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		slave.Close()
		return -1, "", nil, fmt.Errorf("dup pty master: %w", err)
	}
	return fd, m.Name(), slave, nil
}

// SetSize sets the size of the terminal f (either side of a PTY). Like
// the other functions here that take a terminal, it leaves f in Go's
// poller, as File.Fd would not.
func SetSize(f *os.File, ws *unix.Winsize) error {
	return control(f, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws)
	})
}

// GetTermios returns the line settings of the terminal f.
func GetTermios(f *os.File) (*unix.Termios, error) {
	var t *unix.Termios
	err := control(f, func(fd int) error {
		var err error
		t, err = unix.IoctlGetTermios(fd, ioctlGetTermios)
		return err
	})
	return t, err
}

// SetTermios sets the line settings of the terminal f, at once.
func SetTermios(f *os.File, t *unix.Termios) error {
	return control(f, func(fd int) error {
		return unix.IoctlSetTermios(fd, ioctlSetTermios, t)
	})
}

// ForegroundGroup returns the process group in the foreground of the
// terminal f.
func ForegroundGroup(f *os.File) (int, error) {
	var pgrp int
	err := control(f, func(fd int) error {
		var err error
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	return pgrp, err
}

// control runs fn on f's descriptor without taking f out of Go's poller,
// as File.Fd would (it puts the descriptor in blocking mode for good).
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var fnErr error
	if err := rc.Control(func(fd uintptr) { fnErr = fn(int(fd)) }); err != nil {
		return err
	}
	return fnErr
}
