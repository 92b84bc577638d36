package ptyproxy

import (
	"runtime"
	"unsafe"

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

// holdTTIN blocks SIGTTIN for the calling goroutine's thread, to which it
// stays locked, so that reading the terminal from the background fails
// with EIO instead of stopping the process. It reports whether it did.
func holdTTIN() bool {
	runtime.LockOSThread()
	var set unix.Sigset_t
	bits := uint(unsafe.Sizeof(set.Val[0])) * 8
	sig := uint(unix.SIGTTIN) - 1
	set.Val[sig/bits] |= 1 << (sig % bits)
	return unix.PthreadSigmask(unix.SIG_BLOCK, &set, nil) == nil
}
