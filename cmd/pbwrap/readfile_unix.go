//go:build unix

package main

import "syscall"

// readOpenFlags makes opening a file that readRegular reads return at
// once should it have become a named pipe since its stat (no writer is
// waited for; readRegular then refuses it), and never makes a terminal
// there the controlling one. A regular file reads the same.
const readOpenFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
