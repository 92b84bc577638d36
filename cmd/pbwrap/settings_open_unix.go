//go:build unix

package main

import "syscall"

// settingsOpenFlags makes opening an agent's settings file return at once
// when it is a named pipe (no writer is waited for; readSettings then
// refuses it), and never makes a terminal there the controlling one. A
// regular file reads the same.
const settingsOpenFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
