package frontend

import (
	"os"

	"golang.org/x/sys/unix"
)

// maxAncestors bounds the walk up the process tree: a login over SSH
// into a multiplexer is a handful of processes deep.
const maxAncestors = 32

// noDev is the kernel's controlling terminal of a process that has none.
const noDev = -1

// Ancestors returns pbwrap's parent, its parent, and so on up to launchd,
// read with sysctl; what cannot be read ends the list early.
func Ancestors() []Process {
	var ps []Process
	pid := os.Getppid()
	for range maxAncestors {
		if pid <= 1 {
			break
		}
		k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
		if err != nil || int(k.Proc.P_pid) != pid {
			break
		}
		ps = append(ps, Process{PID: pid, Name: unix.ByteSliceToString(k.Proc.P_comm[:]), TTY: tty(k.Eproc.Tdev)})
		pid = int(k.Eproc.Ppid)
	}
	return ps
}

// tty is a controlling terminal's device number, 0 for none.
func tty(dev int32) uint64 {
	if dev == noDev {
		return 0
	}
	return uint64(uint32(dev))
}

// ownTerminal returns this process's controlling terminal; macOS has no
// Linux console.
func ownTerminal() (uint64, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid())
	if err != nil {
		return 0, false
	}
	return tty(k.Eproc.Tdev), false
}

// screenVersionOf runs the screen on PATH with -v.
func screenVersionOf(Process) string { return runVersion("screen") }
