package main

import "golang.org/x/sys/unix"

// flushInput discards the input the terminal fd has received and not
// yet been read: tcflush(fd, TCIFLUSH), which glibc makes TCFLSH with the
// queue by value.
func flushInput(fd int) error {
	return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
}
