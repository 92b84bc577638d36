package ptyio

// A WaitState is what one wait status says happened to a child.
type WaitState struct {
	Kind WaitKind
	N    int  // Exited: the exit code; Killed, Stopped: the signal
	Core bool // Killed: the child dumped core
}

// A WaitKind is one of the four things a wait status reports.
type WaitKind uint8

const (
	Exited    WaitKind = iota + 1 // it exited with code N
	Killed                        // signal N killed it
	Stopped                       // signal N stopped it
	Continued                     // SIGCONT continued it (reported only with WCONTINUED)
)

// Ended reports whether the child is gone: it exited or was killed.
func (w WaitState) Ended() bool { return w.Kind == Exited || w.Kind == Killed }

// ExitCode is the status a shell gives for the child: its exit code, or
// 128+N when signal N killed it; -1 while it lives (stopped, continued).
func (w WaitState) ExitCode() int {
	switch w.Kind {
	case Exited:
		return w.N
	case Killed:
		return 128 + w.N
	}
	return -1
}

// The raw status that means continued (WIFCONTINUED) is the one encoding
// that differs between the systems. On Darwin it looks like a stop by
// signal 0x13, which is SIGCONT there but SIGSTOP on Linux.
const (
	continuedLinux   = 0xffff // <bits/waitstatus.h>: __W_CONTINUED
	continuedDarwin  = 0x137f // <sys/wait.h>: _WSTOPPED with WSTOPSIG 0x13 (SIGCONT)
	continuedFreeBSD = 0x13   // <sys/wait.h>: WIFCONTINUED(x) (x == 0x13)
)

// Wait status bits, as <sys/wait.h> has them on Linux and the BSDs: the
// low seven bits are 0 for an exit, 0177 for a stop, and otherwise the
// signal that killed the child, with 0200 set when it dumped core; the
// next eight bits are the exit code or the stop signal.
const (
	statusMask    = 0x7f
	statusCore    = 0x80
	statusStopped = 0x7f
	statusShift   = 8
)

// decodeWait decodes the raw status of wait(2) by its bits, for a system
// whose continued status is continued. It does not use x/sys's
// WaitStatus methods: on the BSDs, macOS included, their Stopped is false
// for a stop by SIGSTOP, which they take for continued.
func decodeWait(raw, continued uint32) WaitState {
	if raw == continued {
		return WaitState{Kind: Continued}
	}
	high := int(raw>>statusShift) & 0xff
	switch low := raw & statusMask; low {
	case 0:
		return WaitState{Kind: Exited, N: high}
	case statusStopped:
		return WaitState{Kind: Stopped, N: high}
	default:
		return WaitState{Kind: Killed, N: int(low), Core: raw&statusCore != 0}
	}
}

// MaxRSSKiB converts a ru_maxrss (the peak resident set size a wait
// reports) of the system goos to KiB: macOS counts it in bytes, Linux and
// FreeBSD in KiB.
func MaxRSSKiB(goos string, maxrss int64) int {
	if goos == "darwin" {
		return int(maxrss / 1024)
	}
	return int(maxrss)
}
