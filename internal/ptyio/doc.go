// Package ptyio holds the Unix terminal plumbing that pbwrap's packages
// and their tests share: opening a PTY whose master side can be read with
// a deadline, setting a terminal's size and termios through Go's poller,
// waiting for a child by decoding its wait status bit by bit, the same on
// Linux and the BSDs, and, for pbwrap doctor, opening the controlling
// terminal, asking it whether it supports bracketed paste
// and whether it has kitty's clipboard paste events (QueryTerminal) and discarding its pending input (FlushInput).
//
// The wait-status decoding builds on every system, and so do OpenTTY,
// ControllingTTY, QueryTerminal and FlushInput, which fail with
// errors.ErrUnsupported elsewhere than on Linux, macOS and FreeBSD; the
// rest builds on those three only.
package ptyio
