//go:build darwin || freebsd || linux

package ptyproxy

import (
	"io"
	"sync"
	"time"
)

// A pump passes one direction of the stream through its Filter to w. Calls
// from the reading goroutine, from the deadline timer and from the session
// (terminal set-up and reset sequences) are serialized by mu, so output
// bytes never interleave inside one another.
type pump struct {
	mu    sync.Mutex
	f     Filter // nil copies bytes unchanged
	w     io.Writer
	timer *time.Timer
	due   time.Time // when Flush is owed; zero when nothing is held
	err   error     // first error, reported once through logf
	done  bool      // closed: later input is dropped
	name  string
	logf  func(string, ...any)
}

func newPump(name string, f Filter, w io.Writer, logf func(string, ...any)) *pump {
	return &pump{name: name, f: f, w: w, logf: logf}
}

// feed passes one chunk just read.
func (p *pump) feed(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	if p.f == nil {
		_, err := p.w.Write(b)
		p.note(err)
		return
	}
	due, err := p.f.Filter(p.w, b, time.Now())
	p.note(err)
	p.schedule(due)
}

// write passes b to w as it is, bypassing the filter.
func (p *pump) write(b []byte) {
	if len(b) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.w.Write(b)
	p.note(err)
}

// close ends the stream: the filter writes what it still holds, and
// whatever is fed later is dropped. Raw writes (terminal set-up and reset)
// still go through.
func (p *pump) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	p.schedule(time.Time{})
	if p.f != nil {
		p.note(p.f.Close(p.w))
	}
}

// schedule arms the timer for due, or disarms it when due is zero.
// p.mu must be held.
func (p *pump) schedule(due time.Time) {
	p.due = due
	if due.IsZero() {
		if p.timer != nil {
			p.timer.Stop()
		}
		return
	}
	wait := time.Until(due)
	if p.timer == nil {
		p.timer = time.AfterFunc(wait, p.expire)
		return
	}
	p.timer.Reset(wait)
}

// expire runs on the timer's goroutine when a deadline passes.
func (p *pump) expire() {
	defer guard()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.due.IsZero() || p.done {
		return // Disarmed while this call waited for the lock.
	}
	now := time.Now()
	if now.Before(p.due) {
		p.schedule(p.due) // Re-armed for later while this call waited.
		return
	}
	due, err := p.f.Flush(p.w, now)
	p.note(err)
	p.schedule(due)
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
