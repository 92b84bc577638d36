//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// A port is a descriptor the relay reads or writes (the terminal, the
// PTY's master side), outside Go's poller: a read waits for input in the
// kernel, in poll(2) or select(2) (see await), on the goroutine that then
// reads, filters and writes. A port owns its descriptor and a pipe whose
// write end it closes to wake every wait on the port at once, for good,
// when it is closed (see close); the descriptors go when the last call
// under way returns.
//
// The descriptor may be non-blocking (one of pbwrap's own: its terminal
// description, the PTY's master) or blocking (a description shared with
// the shell, which pbwrap does not change): the code is the same. A read
// waits for input before it reads, so that the wait can end at a
// deadline or at close; a write that the descriptor would make wait
// (EAGAIN) waits for room the same way. On a blocking descriptor a write
// waits in write(2) instead, and close does not end it.
//
// Read is used by one goroutine at a time, and Write by one at a time
// (the pump's); the two may run together, and close from anywhere.
type port struct {
	fd    int
	name  string
	shutR int // the pipe's read end: readable once closing is set
	shutW int // its write end, closed by close
	// nonblock: fd is non-blocking, pbwrap's own (see newPort).
	nonblock bool

	// held, if not nil, is set from before a read takes bytes until the
	// caller has passed them on and clears it (see source.taken).
	held *atomic.Bool

	closing  atomic.Bool
	refs     atomic.Int32 // calls under way, plus one until close
	release1 sync.Once
	closed1  sync.Once

	rw, ww waiter // the read's and the write's wait, set up once so that no wait allocates
}

// errPortClosed is the error of a read or write on a closed port; it is
// os.ErrClosed, as a closed os.File's.
var errPortClosed = os.ErrClosed

// newPort returns a port that owns fd, named name in its errors. With
// nonblock, fd is made non-blocking: it must be a description of
// pbwrap's own.
func newPort(fd int, name string, nonblock bool, held *atomic.Bool) (*port, error) {
	if nonblock {
		if err := unix.SetNonblock(fd, true); err != nil {
			return nil, &os.PathError{Op: "fcntl", Path: name, Err: err}
		}
	}
	var p [2]int
	if err := pipeCloexec(&p); err != nil {
		return nil, &os.PathError{Op: "pipe", Path: name, Err: err}
	}
	e := &port{fd: fd, name: name, shutR: p[0], shutW: p[1], nonblock: nonblock, held: held}
	e.refs.Store(1)
	e.rw.init(fd, e.shutR, false)
	e.ww.init(fd, e.shutR, true)
	return e, nil
}

// pipeCloexec makes a pipe whose ends are closed on exec, as os.Pipe does,
// without putting them in Go's poller.
func pipeCloexec(p *[2]int) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	defer w.Close()
	rfd, err := dupCloexec(r)
	if err != nil {
		return err
	}
	wfd, err := dupCloexec(w)
	if err != nil {
		unix.Close(rfd)
		return err
	}
	p[0], p[1] = rfd, wfd
	return nil
}

// dupCloexec returns a duplicate of f's descriptor, closed on exec,
// leaving f as it is (File.Fd would make it blocking).
func dupCloexec(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, ferr := -1, error(nil)
	if err := rc.Control(func(u uintptr) { fd, ferr = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	return fd, ferr
}

// acquire counts a call under way, unless the port is closed.
func (e *port) acquire() bool {
	e.refs.Add(1)
	if e.closing.Load() {
		e.release()
		return false
	}
	return true
}

// release ends a call; the last one out closes the descriptors.
func (e *port) release() {
	if e.refs.Add(-1) == 0 {
		e.closed1.Do(func() {
			_ = unix.Close(e.fd) // Best effort: nothing is left to tell.
			_ = unix.Close(e.shutR)
		})
	}
}

// close ends every wait on the port, now and later, with os.ErrClosed, and
// closes its descriptor once the calls under way have returned. It is
// safe to call more than once, from any goroutine.
func (e *port) close() {
	e.release1.Do(func() {
		e.closing.Store(true)
		_ = unix.Close(e.shutW) // Wakes every wait: the read end is at its end.
		e.release()
	})
}

// control runs fn on the port's descriptor, which stays open meanwhile.
func (e *port) control(fn func(fd int) error) error {
	if !e.acquire() {
		return &os.PathError{Op: "ioctl", Path: e.name, Err: errPortClosed}
	}
	defer e.release()
	return fn(e.fd)
}

// read reads into buf, waiting at most until due (the zero time: for as
// long as it takes). It returns os.ErrDeadlineExceeded when due has
// passed with nothing read, io.EOF at the end of the input, and
// os.ErrClosed once the port is closed. With first, on a non-blocking
// descriptor, it reads before it waits: one system call fewer per chunk
// when input is already there (a flood, a paste), one more when not.
func (e *port) read(buf []byte, due time.Time, first bool) (int, error) {
	if !e.acquire() {
		return 0, e.closedErr("read")
	}
	defer e.release()
	wait := !first || !e.nonblock
	for {
		if wait {
			switch e.rw.await(due) {
			case waitExpired:
				return 0, os.ErrDeadlineExceeded
			case waitShut:
				return 0, e.closedErr("read")
			case waitFailed:
				return 0, &os.PathError{Op: "read", Path: e.name, Err: e.rw.err}
			}
		}
		wait = true
		if e.held != nil {
			e.held.Store(true) // Before the bytes leave the kernel.
		}
		n, err := unix.Read(e.fd, buf)
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			// Taken by another reader of the description, or a wake-up
			// with nothing after all: wait again.
		case err != nil:
			e.unhold()
			return 0, &os.PathError{Op: "read", Path: e.name, Err: err}
		case n == 0:
			e.unhold()
			return 0, io.EOF
		default:
			return n, nil
		}
		e.unhold()
	}
}

func (e *port) unhold() {
	if e.held != nil {
		e.held.Store(false)
	}
}

// Write writes all of b, waiting for room as long as it takes, unless the
// port is closed meanwhile.
func (e *port) Write(b []byte) (int, error) {
	if !e.acquire() {
		return 0, e.closedErr("write")
	}
	defer e.release()
	total := 0
	for len(b) > 0 {
		n, err := unix.Write(e.fd, b)
		if n > 0 {
			total += n
			b = b[n:]
		}
		switch {
		case err == nil, err == unix.EINTR:
		case err == unix.EAGAIN:
			switch e.ww.await(time.Time{}) {
			case waitShut:
				return total, e.closedErr("write")
			case waitFailed:
				return total, &os.PathError{Op: "write", Path: e.name, Err: e.ww.err}
			}
		default:
			return total, &os.PathError{Op: "write", Path: e.name, Err: err}
		}
	}
	return total, nil
}

func (e *port) closedErr(op string) error {
	return &os.PathError{Op: op, Path: e.name, Err: errPortClosed}
}

// What a wait ended with.
const (
	waitReady   = iota // the descriptor is ready (or at its end, or failed: the read or write says)
	waitExpired        // the deadline has passed
	waitShut           // the port is closed
	waitFailed         // the wait itself failed (its err)
)

var errFdTooHigh = errors.New("descriptor past FD_SETSIZE, which select(2) cannot wait for")
