package ptyproxy

import "golang.org/x/sys/unix"

// ioctlInputQueued is FIONREAD for a terminal: the bytes waiting to be read.
const ioctlInputQueued = unix.TIOCINQ
