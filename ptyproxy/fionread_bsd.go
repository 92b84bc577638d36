//go:build darwin || freebsd

package ptyproxy

// ioctlInputQueued is FIONREAD, _IOR('f', 127, int), the same on macOS and
// FreeBSD, where it counts the bytes waiting to be read on a terminal too;
// golang.org/x/sys does not name it.
const ioctlInputQueued = 0x4004667f
