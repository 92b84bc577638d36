//go:build !darwin && !freebsd && !linux

package ptytest

// Dispatch does nothing on this system: the harness needs a Unix terminal.
func Dispatch() {}
