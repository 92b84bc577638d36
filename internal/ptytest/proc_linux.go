package ptytest

import (
	"fmt"
	"os"
)

// Stopped reports whether the process pid is stopped (by a stop signal),
// from /proc/PID/stat.
func Stopped(pid int) (bool, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false, err
	}
	return linuxStopped(stat)
}
