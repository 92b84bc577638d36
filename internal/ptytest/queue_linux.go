package ptytest

import "golang.org/x/sys/unix"

// ioctlInputQueued is FIONREAD for a terminal.
const ioctlInputQueued = unix.TIOCINQ

// flushInput discards the unread input of the terminal fd (TCFLSH,
// TCIFLUSH).
func flushInput(fd int) error {
	return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
}
