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

// The relay: how bytes cross between the terminal and the command.
//
// There are two directions, input (terminal to PTY) and output (PTY to
// terminal), and each is one goroutine running relay: it reads a chunk,
// passes it through its pump (the direction's Filter), which writes it
// on, and reads again. Nothing is handed from one goroutine to another
// on the way: a keystroke is read, filtered and written by the goroutine
// that woke for it. The PTY's master side is non-blocking in Go's
// poller; so is the terminal, opened anew as a file description of
// pbwrap's own (ownTerminal), wherever the system's poller takes it
// (Linux, FreeBSD). Where it does not (macOS's /dev/tty and kqueue), the
// terminal side reads standard input and writes standard output,
// blocking, through the same code: there is no second path on any
// system.
//
// A read waits until the filter's deadline, if it set one: the read ends
// with os.ErrDeadlineExceeded and the same goroutine calls the pump's
// expire, so no timer and no other goroutine calls Flush. Each pump has a
// mutex, which its own goroutine takes once per chunk, uncontended: the
// only other takers are the session's terminal set-up and reset, which
// must not interleave with output, and the end of the command.
//
// Why the relay cannot hold up the garbage collector. A goroutine of the
// relay is, at any moment, running Go code (the filters: preemptible by
// the runtime at any instruction), parked in the poller (a read or write
// that would wait: no thread, no P), or in a system call made through
// the runtime's system call path (a non-blocking read or write, or, on
// the blocking terminal side of macOS, read(2) and select(2)): a
// stop-the-world does not wait for a goroutine in a system call, whose P
// it takes. There is no raw system call that can wait and no loop that
// spins, so nothing waits for preemption to end it.
//
// Why the relay cannot deadlock. A direction that cannot write (a
// command that does not read its input; a terminal that stops reading,
// by flow control or a stopped terminal emulator) waits in that write
// only: it holds its own pump's mutex and nothing else, and the other
// direction, with its own goroutine, buffer and pump, goes on. The output
// direction never waits for the input. The input waits for the output in
// one case: an input filter that is a Teller writes to the terminal
// through the output pump (a clipboard read the user's paste asked for),
// and so waits, holding the input pump's mutex, for an output write in
// progress, as any writer to the terminal must; the output pump never
// takes the input's, so the wait cannot close a cycle. The session's goroutine takes a
// pump's mutex to write the terminal set-up and reset (output) and at
// the end (both). On the input side it waits at most endLockWait and
// lingerSlack for a pump blocked in a write to a command that does not
// read. On the output side the drain stops waiting for the PTY after
// DrainTimeout (a grandchild may hold it open), and the set-up, the reset
// and the drain's close wait for a write to the terminal in progress, as
// any writer to that terminal must: the terminal, not pbwrap, holds it.
// The lock order is the session's mu, then the input pump's, then the
// output pump's, and no pump call takes the session's: a filter that panics unlocks its pump before
// guard gives the terminal back.

// ioBufSize is the read size on both directions: large enough that a
// flood of output or a big paste moves in few system calls, small enough
// to stay in cache.
const ioBufSize = 32 << 10

// relay runs one direction in the calling goroutine, until ends reports
// that reading ends after an error: it reads src, has feed pass what it
// read through p's filter and write it on, and, when a read has waited
// until the deadline the filter asked for, lets p expire. The bytes read
// are held (src.held) until feed returns.
func relay(p *pump, src *endpoint, feed func([]byte) time.Time, ends func(error) bool) {
	buf := make([]byte, ioBufSize)
	var due time.Time // when p's Flush is owed; zero when nothing is
	for {
		n, err := src.read(buf, due)
		if n > 0 {
			due = feed(buf[:n])
		}
		if src.held != nil {
			src.held.Store(false)
		}
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			if !due.IsZero() && !time.Now().Before(due) {
				due = p.expire()
			}
		case ends(err):
			return
		}
	}
}

// An endpoint is the side a direction reads: the terminal, or the PTY's
// master side. Where the descriptor is in Go's poller, a read that waits
// parks the goroutine, and the deadline is the poller's. Elsewhere (a
// descriptor the poller does not take) it reads through os.File,
// blocking, and waits for a deadline with select(2) before the read.
//
// An endpoint is used by one goroutine at a time.
type endpoint struct {
	f  *os.File
	rc syscall.RawConn // nil when f is not in the poller
	fd int             // f's descriptor, when f is not in the poller

	// held, if not nil, is set from before a read takes bytes until the
	// caller has passed them on and clears it (see source.taken).
	held *atomic.Bool

	due time.Time // the read deadline set on f

	// The state of the read in progress, for readFn, which is bound once
	// so that no read allocates.
	buf    []byte
	n      int
	err    error
	readFn func(fd uintptr) bool
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
	e.readFn = e.readNow
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
	e.buf, e.n, e.err = buf, 0, nil
	err := e.rc.Read(e.readFn)
	e.buf = nil
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, err
	case err != nil:
		return 0, &os.PathError{Op: "read", Path: e.f.Name(), Err: os.ErrClosed} // The poller refuses only a closed file, apart from the deadline.
	case e.err != nil:
		return 0, e.err
	case e.n == 0:
		return 0, io.EOF
	}
	return e.n, nil
}

// readNow is the poller's callback for read: it marks the bytes held
// before they leave the kernel, and reports false, to wait, when there
// is nothing to read yet.
func (e *endpoint) readNow(fd uintptr) bool {
	if e.held != nil {
		e.held.Store(true)
	}
	for {
		n, err := unix.Read(int(fd), e.buf)
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if e.held != nil {
				e.held.Store(false)
			}
			return false
		case nil:
			e.n = n
		default:
			e.err = err
		}
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
