//go:build darwin || freebsd

package ptyproxy

// terminalPath opens the controlling terminal anew: a file description of
// pbwrap's own (see the Linux version), which the relay waits for with
// select(2): XNU's /dev/tty (device 2,0) supports select, but neither
// kqueue nor poll(2), and FreeBSD's takes all three.
const terminalPath = "/dev/tty"

// isPTYMaster is false here: /dev/tty is the controlling terminal, never a
// PTY's master side, and sameTerminal tells it from a master on standard
// input by its device.
func isPTYMaster(int) bool { return false }

// ioctlInputQueued is FIONREAD, _IOR('f', 127, int), the same on macOS and
// FreeBSD, where it counts the bytes waiting to be read on a terminal too;
// golang.org/x/sys does not name it.
const ioctlInputQueued = 0x4004667f
