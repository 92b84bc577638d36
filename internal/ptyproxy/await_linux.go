package ptyproxy

import (
	"time"

	"golang.org/x/sys/unix"
)

// A waiter waits, in ppoll(2), until its descriptor can be read (or
// written), its port is closed, or a deadline passes. Its state is set up
// once (see port), so that a wait allocates nothing.
type waiter struct {
	fds [2]unix.PollFd // the descriptor; the port's shut pipe
	ts  unix.Timespec
	err error // why the last wait failed
}

func (w *waiter) init(fd, shut int, write bool) {
	ev := int16(unix.POLLIN)
	if write {
		ev = unix.POLLOUT
	}
	w.fds = [2]unix.PollFd{{Fd: int32(fd), Events: ev}, {Fd: int32(shut), Events: unix.POLLIN}}
}

// await waits until the descriptor is ready, the port is closed, or due
// has passed (the zero time: no deadline), and says which (waitReady,
// waitShut, waitExpired; waitFailed with w.err). A signal that interrupts
// the wait (the runtime's own, for preemption) only makes it wait again
// for what is left.
func (w *waiter) await(due time.Time) int {
	for {
		ts := (*unix.Timespec)(nil)
		if !due.IsZero() {
			left := time.Until(due)
			if left <= 0 {
				return waitExpired
			}
			w.ts = unix.NsecToTimespec(int64(left))
			ts = &w.ts
		}
		w.fds[0].Revents, w.fds[1].Revents = 0, 0
		n, err := unix.Ppoll(w.fds[:], ts, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			w.err = err
			return waitFailed
		case w.fds[1].Revents != 0:
			return waitShut
		case n > 0:
			return waitReady // Readable, writable, hung up or failed: the call that follows says.
		}
	}
}
