// Package ptyio holds the Unix plumbing that ptyproxy, its end-to-end
// tests and the benchmark driver share: opening a PTY whose master side
// can be read with a deadline, setting a terminal's size and termios
// through Go's poller, and waiting for a child by decoding its wait status
// bit by bit, the same on Linux and the BSDs.
//
// The wait-status decoding builds on every system; the rest builds on
// Linux, macOS and FreeBSD.
package ptyio
