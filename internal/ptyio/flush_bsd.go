//go:build darwin || freebsd

package ptyio

import "golang.org/x/sys/unix"

// fread is FREAD of <sys/fcntl.h>, which x/sys does not define: the read
// side for TIOCFLUSH.
const fread = 0x1

// flushInput is tcflush(fd, TCIFLUSH), which the BSD libcs make TIOCFLUSH
// with a pointer to FREAD (with 0 it would flush the output too).
func flushInput(fd int) error {
	return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread)
}
