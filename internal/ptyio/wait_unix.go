//go:build darwin || freebsd || linux

package ptyio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// WaitExit waits for the child pid to end and returns how it ended, with
// Kind Exited or Killed. Each time the child stops, WaitExit calls
// stopped with the stop signal before it waits on. An interrupted wait is
// retried; any other error ends the wait.
func WaitExit(pid int, stopped func(sig int)) (WaitState, error) {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, unix.WUNTRACED, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return WaitState{}, err
		}
		st := decodeWait(uint32(ws), statusContinued)
		if st.Ended() {
			return st, nil
		}
		if st.Kind == Stopped {
			stopped(st.N)
		}
	}
}
