package ptyproxy

import "golang.org/x/sys/unix"

// terminalPath opens the terminal on standard input anew: a file
// description of pbwrap's own, which it can make non-blocking without
// changing the one it shares with the shell.
const terminalPath = "/proc/self/fd/0"

// isPTYMaster reports whether fd is the master side of a PTY (only a
// master has a PTY number to give): reopening it through terminalPath
// would open /dev/ptmx, a new PTY, not the same terminal, though the
// device numbers agree.
func isPTYMaster(fd int) bool {
	_, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	return err == nil
}

// ioctlInputQueued is FIONREAD for a terminal: the bytes waiting to be read.
const ioctlInputQueued = unix.TIOCINQ
