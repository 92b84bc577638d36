//go:build darwin || freebsd

package ptyproxy

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// terminalPath opens the controlling terminal anew: a file description of
// pbwrap's own (see the Linux version). Where the poller does not take it
// the proxy reads and writes standard input and output instead, blocking,
// with select(2) for deadlines. On macOS that is always so: XNU's /dev/tty
// (device 2,0) does not support kqueue, so Go cannot register it and
// SetReadDeadline fails; the PTY's master side is in the poller there too.
const terminalPath = "/dev/tty"

// isPTYMaster is false here: /dev/tty is the controlling terminal, never a
// PTY's master side, and sameTerminal tells it from a master on standard
// input by its device.
func isPTYMaster(int) bool { return false }

// rawRead reads fd, which must be non-blocking. Here it goes through the
// ordinary system call path: raw system calls are Linux's only.
func rawRead(fd int, p []byte) (int, syscall.Errno) {
	n, err := unix.Read(fd, p)
	return max(n, 0), errno(err)
}

// rawWrite is rawRead's counterpart for writing.
func rawWrite(fd int, p []byte) (int, syscall.Errno) {
	n, err := unix.Write(fd, p)
	return max(n, 0), errno(err)
}

func errno(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}
