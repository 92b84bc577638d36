//go:build darwin || freebsd

package ptytest

import "golang.org/x/sys/unix"

// ioctlInputQueued is FIONREAD, _IOR('f', 127, int), the same on macOS
// and FreeBSD, which golang.org/x/sys does not name.
const ioctlInputQueued = 0x4004667f

// flushInput discards the unread input of the terminal fd (TIOCFLUSH,
// FREAD), as tcflush(TCIFLUSH) does.
func flushInput(fd int) error {
	const fread = 1 // FREAD in <sys/fcntl.h>
	return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread)
}
