//go:build darwin || freebsd

package ptyproxy

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// terminalPath opens the controlling terminal anew: a file description of
// pbwrap's own (see the Linux version). Where the poller does not take it
// (kqueue on macOS refuses some terminals), the proxy reads and writes
// standard input and output instead, blocking.
const terminalPath = "/dev/tty"

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
