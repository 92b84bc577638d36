package ptytest

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Stopped reports whether the process pid is stopped (by a stop signal),
// from its kinfo_proc (sysctl kern.proc.pid.PID): p_stat is SSTOP.
func Stopped(pid int) (bool, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		// A pid that does not exist gives an empty answer, hence EIO.
		return false, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	return kp.Proc.P_stat == sstop, nil
}
