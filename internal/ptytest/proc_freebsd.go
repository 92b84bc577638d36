package ptytest

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Stopped reports whether the process pid is stopped (by a stop signal),
// from its kinfo_proc (sysctl kern.proc.pid.PID): ki_stat is SSTOP.
func Stopped(pid int) (bool, error) {
	raw, err := unix.SysctlRaw("kern.proc.pid", pid)
	if err != nil {
		return false, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	return freebsdStopped(raw)
}
