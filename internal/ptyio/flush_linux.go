package ptyio

import "golang.org/x/sys/unix"

// flushInput is tcflush(fd, TCIFLUSH), which glibc makes TCFLSH with the
// queue by value.
func flushInput(fd int) error {
	return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
}
