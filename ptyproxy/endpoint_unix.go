//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// An endpoint is one side of a pump: the descriptor it reads, or the one
// it writes. Where the descriptor is in Go's poller (non-blocking), a
// goroutine waiting for it is parked, no thread blocks in the kernel, and
// the reads and writes themselves, which can no longer block, skip the
// runtime's system call bookkeeping (see rawRead): on the keystroke path
// that bookkeeping, not the copying, was the cost (doc/performance.md). A
// read waits until a deadline, which the poller keeps, so the goroutine
// that reads also calls Flush, with no timer and no second goroutine.
//
// Elsewhere (a descriptor the poller does not take) an endpoint reads and
// writes through os.File, blocking, and waits for a deadline with
// select(2) before the read.
//
// An endpoint is used by one goroutine at a time.
type endpoint struct {
	f  *os.File
	rc syscall.RawConn // nil when f is not in the poller
	fd int             // f's descriptor, when f is not in the poller

	// held, if not nil, is set from before a read takes bytes until the
	// caller has passed them on and clears it (see source.taken).
	held *atomic.Bool

	due time.Time // the read deadline set on f (polled) or to wait for

	// The state of the call in progress, for the callbacks below, which
	// are bound once so that no read or write allocates.
	buf      []byte
	n        int
	errno    syscall.Errno
	readFn   func(fd uintptr) bool
	writeFn  func(fd uintptr) bool
	writeErr error

	// waits, if not nil, runs each time a write is about to wait for
	// room (see lane).
	waits func()
}

// newEndpoint returns the endpoint for f, polled if f is in Go's poller.
func newEndpoint(f *os.File, held *atomic.Bool) *endpoint {
	e := &endpoint{f: f, held: held}
	if f.SetReadDeadline(time.Time{}) == nil {
		if rc, err := f.SyscallConn(); err == nil {
			e.rc = rc
		}
	}
	if e.rc == nil {
		e.fd = int(f.Fd()) // Blocking already: Fd would make it so.
	}
	e.readFn = e.rawRead
	e.writeFn = e.rawWrite
	return e
}

// polled reports whether the endpoint's descriptor is in Go's poller.
func (e *endpoint) polled() bool { return e.rc != nil }

// read reads into buf, waiting at most until due (the zero time: for as
// long as it takes). It returns os.ErrDeadlineExceeded when due has
// passed with nothing read, and io.EOF at the end of the input.
func (e *endpoint) read(buf []byte, due time.Time) (int, error) {
	if e.rc == nil {
		return e.readBlocking(buf, due)
	}
	if !due.Equal(e.due) {
		if err := e.f.SetReadDeadline(due); err != nil {
			return 0, err
		}
		e.due = due
	}
	e.buf, e.n, e.errno = buf, 0, 0
	err := e.rc.Read(e.readFn)
	e.buf = nil
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, err
	case err != nil:
		return 0, closed("read", e.f)
	case e.errno != 0:
		return 0, e.errno
	case e.n == 0:
		return 0, io.EOF
	}
	return e.n, nil
}

// rawRead is the poller's callback for read: it reports false, to wait,
// when there is nothing to read yet.
func (e *endpoint) rawRead(fd uintptr) bool {
	if e.held != nil {
		e.held.Store(true) // Before the bytes leave the kernel: see source.
	}
	for {
		n, errno := rawRead(int(fd), e.buf)
		switch errno {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if e.held != nil {
				e.held.Store(false)
			}
			return false
		}
		e.n, e.errno = n, errno
		return true
	}
}

// readBlocking is read for a descriptor outside the poller: with a
// deadline it first waits for input with select(2), then marks the bytes
// held before it reads them; without one it reads at once.
func (e *endpoint) readBlocking(buf []byte, due time.Time) (int, error) {
	if !due.IsZero() {
		if !awaitReadable(e.fd, due) {
			return 0, os.ErrDeadlineExceeded
		}
		if e.held != nil {
			e.held.Store(true)
		}
	}
	n, err := e.f.Read(buf)
	if n > 0 && e.held != nil {
		e.held.Store(true)
	}
	return n, err
}

// awaitReadable waits until fd has input, is gone, or due has passed, and
// reports false only in the last case. If it cannot wait, it returns true
// at once, and the read that follows waits instead.
func awaitReadable(fd int, due time.Time) bool {
	for {
		wait := time.Until(due)
		if wait <= 0 {
			return false
		}
		var fds unix.FdSet
		fds.Set(fd)
		tv := unix.NsecToTimeval(wait.Nanoseconds())
		n, err := unix.Select(fd+1, &fds, nil, nil, &tv)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil || n > 0:
			return true
		}
	}
}

// Write writes p whole, waiting while the descriptor cannot take more.
func (e *endpoint) Write(p []byte) (int, error) {
	if e.rc == nil {
		return e.f.Write(p)
	}
	e.buf, e.n, e.writeErr = p, 0, nil
	err := e.rc.Write(e.writeFn)
	n := e.n
	e.buf = nil
	switch {
	case err != nil:
		return n, closed("write", e.f)
	case e.writeErr != nil:
		return n, &os.PathError{Op: "write", Path: e.f.Name(), Err: e.writeErr}
	}
	return n, nil
}

// closed is the error of an operation op on f that the poller refused:
// apart from a deadline, which the callers check first, it refuses only
// files that are closed.
func closed(op string, f *os.File) error {
	return &os.PathError{Op: op, Path: f.Name(), Err: os.ErrClosed}
}

// rawWrite is the poller's callback for Write: it reports false, to wait,
// when the descriptor takes no more for now.
func (e *endpoint) rawWrite(fd uintptr) bool {
	for e.n < len(e.buf) {
		n, errno := rawWrite(int(fd), e.buf[e.n:])
		switch errno {
		case 0:
			e.n += n
		case unix.EINTR:
		case unix.EAGAIN:
			if e.waits != nil {
				e.waits()
			}
			return false
		default:
			e.writeErr = errno
			return true
		}
	}
	return true
}
