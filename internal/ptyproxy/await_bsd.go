//go:build darwin || freebsd

package ptyproxy

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A waiter waits, in select(2), until its descriptor can be read (or
// written), its port is closed, or a deadline passes. Not poll(2): it
// does not take devices on macOS (its man page, BUGS), the terminal
// among them; select(2) takes the terminal, /dev/tty included, and the
// PTY's master side on macOS and FreeBSD alike. Its state is set up once
// (see port), so that a wait allocates nothing.
type waiter struct {
	fd, shut int
	write    bool
	r, w     unix.FdSet
	tv       unix.Timeval
	err      error // why the last wait failed
}

// fdSetSize is FD_SETSIZE: the descriptors an fd_set can name.
const fdSetSize = int(unsafe.Sizeof(unix.FdSet{})) * 8

func (w *waiter) init(fd, shut int, write bool) {
	w.fd, w.shut, w.write = fd, shut, write
}

// await waits until the descriptor is ready, the port is closed, or due
// has passed (the zero time: no deadline), and says which (waitReady,
// waitShut, waitExpired; waitFailed with w.err). A signal that interrupts
// the wait (the runtime's own, for preemption) only makes it wait again
// for what is left.
func (w *waiter) await(due time.Time) int {
	if w.fd >= fdSetSize || w.shut >= fdSetSize {
		w.err = errFdTooHigh
		return waitFailed
	}
	for {
		tv := (*unix.Timeval)(nil)
		if !due.IsZero() {
			left := time.Until(due)
			if left <= 0 {
				return waitExpired
			}
			// Rounded up: select(2) counts microseconds, and a wait
			// that ends early only waits again.
			w.tv = unix.NsecToTimeval(int64(left + time.Microsecond - 1))
			tv = &w.tv
		}
		w.r.Zero()
		w.w.Zero()
		if w.write {
			w.w.Set(w.fd)
		} else {
			w.r.Set(w.fd)
		}
		w.r.Set(w.shut)
		n, err := unix.Select(max(w.fd, w.shut)+1, &w.r, &w.w, nil, tv)
		switch {
		case err == unix.EINTR:
		case err != nil:
			w.err = err
			return waitFailed
		case w.r.IsSet(w.shut):
			return waitShut
		case n > 0:
			return waitReady // Readable, writable, hung up or failed: the call that follows says.
		}
	}
}
