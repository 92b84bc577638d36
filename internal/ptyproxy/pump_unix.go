//go:build darwin || freebsd || linux

package ptyproxy

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// A pump passes one direction of the stream through its Filter to w. One
// goroutine reads, filters and writes (see relay): it calls feed
// with what it read and, when its read has waited until the deadline that
// feed returned, expire. Those calls and the session's (terminal set-up
// and reset sequences, the end of the command) are serialized by mu, so
// output bytes never interleave inside one another; no timer takes it.
type pump struct {
	mu   sync.Mutex
	f    Filter // nil copies bytes unchanged
	w    io.Writer
	due  time.Time     // when Flush is owed; zero when nothing is held
	wait time.Duration // how long the filter last asked to wait for input
	err  error         // first error, reported once through logf
	done bool          // closed: later input is dropped
	name string
	logf func(string, ...any)

	// src, on the input pump, tells whether the terminal has sent input
	// that the filter has not had (see expire); nil on the output pump.
	src *source

	// The end of the command (see end).
	ended     atomic.Bool   // the command has ended
	told      bool          // the filter writes nowhere and knows why
	settled   chan struct{} // closed once the filter wants no more input
	isSettled bool
	dueAt     atomic.Int64 // due as nanoseconds since clockBase, 0 for none
}

// clockBase is what dueAt counts from, with the monotonic clock.
var clockBase = time.Now()

// A source tracks the reader that feeds the input pump, so that the pump
// can tell the terminal's silence from the reader's own stalls.
type source struct {
	// taken is set while the reader holds bytes that the filter has not
	// had: from before the read that takes them (so that no byte leaves
	// the terminal unmarked) until the feed is over (see port.read and
	// relay).
	taken atomic.Bool
	// queued reports whether the terminal has input waiting to be read.
	queued func() bool
}

// quiet reports whether the terminal has sent nothing that the filter has
// not had. The order of the checks matters: a reader marks its bytes taken
// before it reads them, so bytes read before queued looks are seen as
// taken after it.
func (s *source) quiet() bool {
	return !s.queued() && !s.taken.Load()
}

func newPump(name string, f Filter, w io.Writer, logf func(string, ...any)) *pump {
	return &pump{name: name, f: f, w: w, logf: logf, settled: make(chan struct{})}
}

// feed passes one chunk just read, and returns when Flush is owed if
// nothing more is read by then: the deadline for the next read, or the
// zero time.
func (p *pump) feed(b []byte) (due time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return time.Time{}
	}
	p.notice()
	if p.f == nil {
		_, err := p.w.Write(b)
		p.note(err)
		return time.Time{}
	}
	now := time.Now() // The time of the read, give or take the lock.
	due, err := p.f.Filter(p.w, b, now)
	p.note(err)
	if !due.IsZero() {
		// The time spent in Filter, maybe blocked writing, is not silence
		// from the terminal: the deadline counts from now on.
		p.wait = due.Sub(now)
		due = due.Add(time.Since(now))
	}
	p.schedule(due)
	p.settle(true)
	return due
}

// writeFrom passes what f returns to w as it is, bypassing the filter. f
// is called with the stream held, so that no filter call runs meanwhile;
// nil writes nothing, and so does an f that panics (the panic is logged).
func (p *pump) writeFrom(f func() []byte) {
	if f == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if b := p.call(f); len(b) > 0 {
		_, err := p.w.Write(b)
		p.note(err)
	}
}

// call returns what f returns, or nil if it panics: f may read a filter
// left half-way by a panic that the proxy is restoring the terminal from.
func (p *pump) call(f func() []byte) (b []byte) {
	defer func() {
		if r := recover(); r != nil {
			b = nil
			if p.logf != nil {
				p.logf("%s: terminal sequences: panic: %v", p.name, r)
			}
		}
	}()
	return f()
}

// close ends the stream: the filter writes what it still holds, and
// whatever is fed later is dropped. Raw writes (terminal set-up and reset)
// still go through.
func (p *pump) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeLocked()
}

// closeWithin closes the stream unless a call holds the pump for longer
// than d (one blocked for good), and reports whether it did.
func (p *pump) closeWithin(d time.Duration) bool {
	if !p.lockWithin(d) {
		return false
	}
	defer p.mu.Unlock()
	p.closeLocked()
	return true
}

func (p *pump) closeLocked() {
	if p.done {
		return
	}
	p.done = true
	p.schedule(time.Time{})
	p.notice()
	if p.f != nil {
		p.note(p.f.Close(p.w))
	}
	p.settleNow()
}

// end tells the pump that the command has ended, and returns a channel
// that is closed once the filter wants no more input: at once, unless the
// filter is Unfinished. The filter is told now, or at the end of a call in
// progress, or if that call is blocked for good (writing to a command
// that does not read), never: the caller bounds its wait (see deadline).
func (p *pump) end() <-chan struct{} {
	p.ended.Store(true)
	if p.lockWithin(endLockWait) {
		p.notice()
		p.settle(false)
		p.mu.Unlock()
	}
	return p.settled
}

// endLockWait bounds how long end waits for a call in progress to finish:
// calls take far less, unless blocked, and a blocked call tells the filter
// itself when it ends.
const endLockWait = 100 * time.Millisecond

// lockWithin locks mu unless a call holds it for longer than d, and
// reports whether it did. It is for the end of a session only, where a
// call blocked for good must not hang the session.
func (p *pump) lockWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !p.mu.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// notice, once the command has ended, makes what the filter writes go
// nowhere and tells an Unfinished filter, once. p.mu must be held.
func (p *pump) notice() {
	if p.told || !p.ended.Load() {
		return
	}
	p.told = true
	p.w = io.Discard
	if u, ok := p.f.(Unfinished); ok {
		u.CommandEnded()
	}
}

// settle closes settled once the command has ended, the filter wants no
// more input, and the terminal has sent none that the filter has not had;
// right after a feed, the bytes taken are those just fed. p.mu must be
// held.
func (p *pump) settle(afterFeed bool) {
	p.notice()
	if !p.told || p.isSettled {
		return
	}
	if u, ok := p.f.(Unfinished); ok {
		switch {
		case u.Pending():
			return
		case p.src == nil:
		case afterFeed && p.src.queued(), !afterFeed && !p.src.quiet():
			return
		}
	}
	p.settleNow()
}

// settleNow closes settled. p.mu must be held.
func (p *pump) settleNow() {
	if !p.isSettled {
		p.isSettled = true
		close(p.settled)
	}
}

// deadline returns when Flush is owed, or the zero time; unlike due, it
// can be read while a call holds the pump.
func (p *pump) deadline() time.Time {
	n := p.dueAt.Load()
	if n == 0 {
		return time.Time{}
	}
	return clockBase.Add(time.Duration(n))
}

// schedule records when Flush is owed, the zero time for never. p.mu
// must be held.
func (p *pump) schedule(due time.Time) {
	p.due = due
	if due.IsZero() {
		p.dueAt.Store(0)
		return
	}
	p.dueAt.Store(int64(max(1, due.Sub(clockBase))))
}

// expire is called by the reading goroutine when its read has waited
// until the deadline with nothing read, and returns the next deadline.
// Flush is called only if the terminal has sent nothing that the filter
// has not had: a deadline passes by the terminal's silence, never by the
// proxy's own stall (stopped, starved of CPU, blocked in a write).
func (p *pump) expire() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.due.IsZero() || p.done {
		return time.Time{} // Nothing is owed, or the stream is over.
	}
	now := time.Now()
	if now.Before(p.due) {
		return p.due
	}
	if p.src != nil && !p.src.quiet() {
		// The feed of that input sets the next deadline; this one is
		// looked at again in case that feed does not come.
		p.schedule(now.Add(max(p.wait, time.Millisecond)))
		return p.due
	}
	due, err := p.f.Flush(p.w, now)
	p.note(err)
	if !due.IsZero() {
		p.wait = due.Sub(now)
	}
	p.schedule(due)
	p.settle(false)
	return due
}

// note records the first error and logs it; the stream goes on, since a
// terminal or child that fails once may fail for good, and the session
// must still end cleanly.
func (p *pump) note(err error) {
	if err == nil || p.err != nil {
		return
	}
	p.err = err
	if p.logf != nil {
		p.logf("%s: %v", p.name, err)
	}
}
