//go:build unix

package main

import "syscall"

// configOpenFlags makes opening the config file return at once should it
// be a named pipe, instead of waiting for a writer; readConfigFile then
// refuses it. A regular file reads the same.
const configOpenFlags = syscall.O_NONBLOCK
