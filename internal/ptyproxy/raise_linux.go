package ptyproxy

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// raiseStop stops the process with SIGTSTP, as the shell expects of a job,
// and returns once it is continued. The signal goes to the calling thread,
// so the kernel acts on it before tgkill returns and nothing runs between
// the stop being asked for and taking effect. In an orphaned process group
// the kernel discards it and raiseStop returns at once.
func raiseStop() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGTSTP) // Best effort.
}

// raiseStopSignal stops the process with SIGSTOP, which no process group
// discards, and returns once it is continued.
func raiseStopSignal() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP) // Best effort.
}
