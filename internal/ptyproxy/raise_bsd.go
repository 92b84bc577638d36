//go:build darwin || freebsd

package ptyproxy

import "golang.org/x/sys/unix"

// raiseStop stops the process with SIGTSTP, as the shell expects of a job,
// and returns once it is continued (at once in an orphaned process group,
// where the kernel discards the signal).
func raiseStop() {
	_ = unix.Kill(unix.Getpid(), unix.SIGTSTP) // Best effort.
}

// raiseStopSignal stops the process with SIGSTOP, which no process group
// discards, and returns once it is continued.
func raiseStopSignal() {
	_ = unix.Kill(unix.Getpid(), unix.SIGSTOP) // Best effort.
}
