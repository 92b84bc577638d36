package ptyproxy

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A lane runs both directions in one goroutine, as script(1)'s poll loop
// does: it waits for the terminal and the PTY in an epoll set of its own,
// reads whichever has input, and passes it through that direction's pump,
// on the thread that woke. With a goroutine per direction, a keystroke's
// round trip wakes two threads, one per direction, and costs the Go
// scheduler's hand-offs between them; in one thread it costs what a C
// loop's does (doc/performance.md, "Third pass").
//
// While bytes come often, either way (for hotFor after the last read that
// brought some: a keystroke, its echo, output), the lane waits
// with a raw epoll_pwait, outside the runtime's poller: the wake-up goes
// straight to the waiting thread. That wait holds its P, but never for
// long: epoll_pwait, unlike read(2), is never restarted after a signal
// handler, whatever SA_RESTART says (signal(7)), so the runtime's
// preemption signal, sent by a stop-the-world and by its monitor thread to
// a goroutine that has run 10 ms, ends it with EINTR, and the lane
// yields. Otherwise, and after such a signal until the next input, the
// lane waits in Go's poller, where the set itself is registered (an epoll
// descriptor is readable when its set has events), and costs nothing.
//
// The monitor thread sleeps while every P is idle, and waiting in the
// poller leaves the lane's P idle, so the monitor is usually asleep when
// the lane turns hot, and a sleeping monitor preempts nothing: typing
// then costs no wake-up but the keystrokes' own, less CPU than a
// goroutine per direction in the poller. Awake (it wakes for timers, at
// least once a minute), it would preempt the raw wait every 10 ms; the
// lane's first EINTR sends it to the poller instead, which lets the
// monitor sleep again (doc/performance.md, "Fourth pass").
//
// One goroutine must never wait on one direction while the other needs
// it: a command that writes output without reading its input, to a lane
// blocked writing that input, would never be read again. So when a write
// of the direction the lane is running would wait for room, the other
// direction is handed to a helper goroutine of its own first, which runs
// it as runPump does, until it is idle with the lane free again, and then
// hands it back. A read that fails hands its direction to the helper too,
// with its failure, which the helper handles as runPump does (the end of
// the input, the background, a hang-up).
//
// The lane reads and writes descriptors of its own: duplicates of the
// terminal's and the PTY's, which only its goroutine uses and closes, so
// that a step makes its system calls directly, without the poller's
// reference counting and state, which, cold after a pause between two
// keystrokes, cost more than the calls themselves (doc/performance.md,
// "Fifth pass"). A write that would wait goes on through the endpoint, in
// the poller; helpers use the endpoints, never the lane's descriptors.
// A duplicate keeps its file open, so whoever closes a file the lane uses
// (the PTY, when the terminal hangs up: that close is what hangs up the
// command) tells the lane (see closed), which turns its duplicates of it
// into /dev/null at once, whatever it is doing, and kicks it; it then
// closes them, reads each direction it runs once, and a direction whose
// file is closed goes to its helper, which ends it.
type lane struct {
	ep   *os.File // the set, in Go's poller, for idle waits
	rc   syscall.RawConn
	epfd int
	kick int // an eventfd in the set: written to stop the lane, or to have it look again (see pokeLocked)

	dirs     [2]*laneDir
	stepping atomic.Int32 // the direction the lane is running (its index + 1), 0 for none
	hot      time.Time    // wait raw until then
	rawOK    bool         // the runtime allows a raw wait (see rawAllowed)
	due      time.Time    // the read deadline set on ep
	events   [3]unix.EpollEvent
	n        int          // events found by the last wait
	colds    atomic.Int64 // waits in the poller so far, for the tests
	waitFn   func(fd uintptr) bool

	mu       sync.Mutex
	blocked  bool // the lane waits in a write (guarded by mu)
	stopped  bool // guarded by mu
	released bool // the set and kick are closed (guarded by mu)
}

// A laneDir is one direction of a lane.
type laneDir struct {
	pumpLoop // p, src, feed, ends, due; run by the helper (see laneDir.run)
	l        *lane
	index    int
	ended    func() // called once the direction has ended

	// The lane's own descriptors (see lane): rfd, in the set, reads src,
	// and w writes dst; -1 once closed. Set by the lane's goroutine only,
	// under l.mu.
	rfd int
	w   laneWriter

	// laneFeed is feed writing through w (see pump.feedVia).
	laneFeed func([]byte) time.Time

	// Guarded by l.mu (see runs).
	withHelper bool  // the helper runs the direction, not the lane
	failed     error // the failure of the lane's last read, for the helper
	over       bool  // the direction has ended
	helping    bool  // the helper goroutine has started
	wake       chan struct{}
}

// runs reports whether the lane runs d: neither its helper does, nor has
// it ended. l.mu must be held.
func (d *laneDir) runs() bool { return !d.withHelper && !d.over }

// hotFor is how long after its last read that brought bytes the lane
// waits raw. A variable for the tests.
var hotFor = time.Second

// handBackAfter is how long a helper's direction must be idle before it
// is handed back to the lane.
const handBackAfter = 20 * time.Millisecond

// newLane returns a lane for the session's two directions, or nil if
// there can be none: a side not in Go's poller, no epoll set, or a
// runtime that does not allow a raw wait (see rawAllowed).
func (s *session) newLane(outDone chan<- struct{}) *lane {
	if !s.inSrc.polled() || !s.outSrc.polled() || !s.inDst.polled() || !s.outDst.polled() || !rawAllowed() {
		return nil
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	l := &lane{epfd: epfd, rawOK: true}
	kick, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		_ = unix.Close(epfd)
		return nil
	}
	l.kick = kick
	in := &laneDir{pumpLoop: pumpLoop{p: s.in, src: s.inSrc, feed: s.in.feed, ends: s.inputEnds}, l: l, index: 0, ended: func() {}}
	out := &laneDir{pumpLoop: pumpLoop{p: s.out, src: s.outSrc, feed: s.output, ends: s.outputEnds}, l: l, index: 1, ended: func() { close(outDone) }}
	in.w.dst, out.w.dst = s.inDst, s.outDst
	in.laneFeed = func(b []byte) time.Time { return s.in.feedVia(&in.w, b) }
	out.laneFeed = func(b []byte) time.Time { return s.outputVia(&out.w, b) }
	l.dirs = [2]*laneDir{in, out}
	ok := l.ctl(unix.EPOLL_CTL_ADD, kick, -1)
	for _, d := range l.dirs {
		d.wake = make(chan struct{}, 1)
		d.rfd, d.w.fd = dupOf(d.src), dupOf(d.w.dst)
		ok = ok && d.rfd >= 0 && d.w.fd >= 0 && l.ctl(unix.EPOLL_CTL_ADD, d.rfd, d.index)
	}
	if ok {
		_ = unix.SetNonblock(epfd, true)
		l.ep = os.NewFile(uintptr(epfd), "epoll")
		if l.ep.SetReadDeadline(time.Time{}) == nil {
			l.rc, err = l.ep.SyscallConn()
		}
	}
	if l.rc == nil {
		if l.ep != nil {
			_ = l.ep.Close()
		} else {
			_ = unix.Close(epfd)
		}
		_ = unix.Close(kick)
		l.released = true
		l.closeDups()
		return nil
	}
	l.waitFn = l.pollWait
	// A write that would wait for room first frees the other direction.
	s.inDst.waits = func() { l.writeWaits(0) }
	s.outDst.waits = func() { l.writeWaits(1) }
	return l
}

// rawAllowed reports whether the runtime lets a raw wait hold a P: with
// two Ps at least, so that a wait leaves one for everything else, and
// with asynchronous preemption, whose signal is what ends the wait when
// the runtime needs the P (without it a stop-the-world would wait for the
// raw wait to time out). The runtime reads GODEBUG once, at the start, as
// preemptOff does; settings compiled in (//go:debug) are not seen, and
// pbwrap has none.
func rawAllowed() bool {
	return runtime.GOMAXPROCS(0) >= 2 && !preemptOffAtStart
}

// preemptOffAtStart is preemptOff of the GODEBUG pbwrap started with.
var preemptOffAtStart = preemptOff(os.Getenv("GODEBUG"))

// preemptOff reports whether the GODEBUG value godebug turns the
// runtime's asynchronous preemption off, read as the runtime reads it at
// the start: fields left to right, the last of a name winning, a value
// that is not a number ignored; asyncpreemptoff other than 0 turns it
// off, and so does gccheckmark above 0.
func preemptOff(godebug string) bool {
	var asyncOff, checkmark int64
	for _, field := range strings.Split(godebug, ",") {
		key, value, ok := strings.Cut(field, "=")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(value, 10, 32)
		if err != nil {
			continue
		}
		switch key {
		case "asyncpreemptoff":
			asyncOff = n
		case "gccheckmark":
			checkmark = n
		}
	}
	return asyncOff != 0 || checkmark > 0
}

// ctl adds (or removes) fd to the set, its events tagged with the index
// of its direction (-1: the kick).
func (l *lane) ctl(op, fd, index int) bool {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(index)}
	return unix.EpollCtl(l.epfd, op, fd, &ev) == nil
}

// dupOf returns a duplicate of e's descriptor, closed on exec, or -1.
func dupOf(e *endpoint) int {
	dup := -1
	_ = e.rc.Control(func(fd uintptr) { // Fails only when closed.
		if n, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0); err == nil {
			dup = n
		}
	})
	return dup
}

// isClosed reports whether e's file is closed, or being closed.
func isClosed(e *endpoint) bool {
	return e.rc.Control(func(uintptr) {}) != nil
}

// closeDups closes the lane's duplicates of the files that are closed,
// all of them once the lane is released. It runs on the lane's goroutine,
// or before it starts.
func (l *lane) closeDups() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closeDupsLocked()
}

func (l *lane) closeDupsLocked() {
	for _, d := range l.dirs {
		if d.rfd >= 0 && (l.released || isClosed(d.src)) {
			if !l.released { // A closed set has dropped it.
				_ = l.ctl(unix.EPOLL_CTL_DEL, d.rfd, d.index) // Not there while the helper runs d, nor once it is /dev/null (see closed).
			}
			_ = unix.Close(d.rfd)
			d.rfd = -1
		}
		if d.w.fd >= 0 && (l.released || isClosed(d.w.dst)) {
			_ = unix.Close(d.w.fd)
			d.w.fd = -1
		}
	}
}

// run is the lane's goroutine: it ends when the session is over.
func (l *lane) run() {
	defer guard()
	defer l.release()
	buf := make([]byte, ioBufSize)
	for {
		if !l.wait(l.nextDue()) {
			l.leave()
			return
		}
		stageWake()
		kicked := false
		for _, ev := range l.events[:l.n] {
			if ev.Fd >= 0 {
				l.step(l.dirs[ev.Fd], buf)
			} else {
				kicked = true
			}
		}
		if kicked {
			l.lookAgain(buf)
		}
		l.expire()
	}
}

// leave, when the lane ends before the session closed it (its wait in
// the poller failed), hands the directions it runs to their helpers,
// which run them until they end.
func (l *lane) leave() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.dirs {
		l.handOverLocked(d, nil) // Nothing, once the session has closed the lane.
	}
}

// lookAgain takes the kick, closes the lane's duplicates of the files
// closed meanwhile, and reads once each direction the lane runs: one
// whose file was closed goes to its helper (see step).
func (l *lane) lookAgain(buf []byte) {
	var count [8]byte
	_, _ = rawRead(l.kick, count[:]) // Resets it: the set is level-triggered.
	l.closeDups()
	l.mu.Lock()
	stopped := l.stopped
	l.mu.Unlock()
	if stopped {
		return // What is typed now is the shell's.
	}
	for _, d := range l.dirs {
		l.step(d, buf)
	}
}

// nextDue is the earliest deadline of the directions the lane runs.
func (l *lane) nextDue() time.Time {
	var due time.Time
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.dirs {
		if d.runs() && !d.due.IsZero() && (due.IsZero() || d.due.Before(due)) {
			due = d.due
		}
	}
	return due
}

// wait waits for input on the set until due (the zero time: no
// deadline), raw while hot, in the poller otherwise. It returns false
// once the session is over.
func (l *lane) wait(due time.Time) bool {
	l.n = 0
	for {
		l.mu.Lock()
		stopped := l.stopped
		l.mu.Unlock()
		if stopped {
			return false
		}
		now := time.Now()
		if !due.IsZero() && !now.Before(due) {
			return true
		}
		if !now.Before(l.hot) || !l.rawOK {
			return l.coldWait(due)
		}
		end := l.hot
		if !due.IsZero() && due.Before(end) {
			end = due
		}
		ms := int((end.Sub(now) + time.Millisecond - 1) / time.Millisecond)
		n, errno := epollRaw(l.epfd, l.events[:], ms)
		switch {
		case errno == unix.EINTR:
			// Most likely a preemption request: let it happen, and wait
			// in the poller until the next input (see hot).
			l.hot = time.Time{}
			runtime.Gosched()
		case errno != 0:
			l.hot = time.Time{}
		case n > 0:
			l.n = n
			return true
		}
	}
}

// coldWait waits in Go's poller until the set has events or due passes.
func (l *lane) coldWait(due time.Time) bool {
	l.colds.Add(1)
	if !due.Equal(l.due) {
		if err := l.ep.SetReadDeadline(due); err != nil {
			return false
		}
		l.due = due
	}
	err := l.rc.Read(l.waitFn)
	l.rawOK = rawAllowed() // GOMAXPROCS may have changed meanwhile (a lock, once per wait in the poller).
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return true
	case err != nil:
		return false
	}
	return true
}

// pollWait is the poller's callback for coldWait: it takes the events the
// set has, and reports false, to wait, if there are none.
func (l *lane) pollWait(fd uintptr) bool {
	n, errno := epollRaw(int(fd), l.events[:], 0)
	if errno != 0 && errno != unix.EINTR {
		return true
	}
	l.n = n
	return n > 0
}

// epollRaw takes the events the set epfd has, waiting for them at most ms
// milliseconds (0: not at all), outside the runtime's system call
// bookkeeping: the wait holds the P (see lane).
func epollRaw(epfd int, events []unix.EpollEvent, ms int) (int, syscall.Errno) {
	n, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(ms), 0, 0)
	return int(n), errno
}

// step reads d's input once and passes it through d's pump; a failed read
// hands d to its helper, which handles the failure.
func (l *lane) step(d *laneDir, buf []byte) {
	l.mu.Lock()
	mine := d.runs()
	l.mu.Unlock()
	if !mine {
		return
	}
	l.stepping.Store(int32(d.index + 1))
	n, errno := 0, syscall.Errno(0)
	if d.rfd >= 0 {
		if d.src.held != nil {
			d.src.held.Store(true) // Before the bytes leave the kernel: see source.
		}
		stageReadStart()
		for {
			if n, errno = rawRead(d.rfd, buf); errno != unix.EINTR {
				break
			}
		}
		stageReadEnd()
	}
	var failed error
	switch {
	case d.rfd < 0:
		failed = closed("read", d.src.f)
	case n > 0 && errno == 0:
		d.due = d.laneFeed(buf[:n])
		l.hot = time.Now().Add(hotFor)
	case errno == unix.EAGAIN:
	case errno != 0:
		failed = errno
	default:
		failed = io.EOF
	}
	if d.src.held != nil {
		d.src.held.Store(false)
	}
	l.stepDone() // (A panic in feed ends the process: see guard.)
	stageStep(d.index)
	if failed != nil {
		l.handOver(d, failed)
		runtime.Gosched() // The helper was made ready on this P: let it run.
	}
}

// stepDone ends a step: the lane is free again.
func (l *lane) stepDone() {
	l.stepping.Store(0)
	l.mu.Lock()
	l.blocked = false
	l.mu.Unlock()
}

// expire lets the pump of each direction the lane runs flush what it
// holds once its deadline has passed.
func (l *lane) expire() {
	now := time.Now()
	for _, d := range l.dirs {
		l.mu.Lock()
		mine := d.runs()
		l.mu.Unlock()
		if !mine || d.due.IsZero() || now.Before(d.due) {
			continue
		}
		l.stepping.Store(int32(d.index + 1))
		d.due = d.p.expire()
		l.stepDone()
	}
}

// writeWaits runs when a write of direction index is about to wait for
// room. If the lane is the writer, the other direction goes to its helper
// first, so that it does not wait too.
func (l *lane) writeWaits(index int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stepping.Load() != int32(index+1) {
		return // Not the lane's write (the session's own, say), or its step is over.
	}
	l.blocked = true
	if other := l.dirs[1-index]; other.runs() {
		l.handOverLocked(other, nil)
	}
}

// handOver gives d to its helper, with the failure of the lane's read of
// it, if any, for the helper to handle first.
func (l *lane) handOver(d *laneDir, failed error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handOverLocked(d, failed)
}

func (l *lane) handOverLocked(d *laneDir, failed error) {
	if !d.runs() || l.stopped {
		return
	}
	d.withHelper = true
	d.failed = failed
	if d.rfd >= 0 {
		_ = l.ctl(unix.EPOLL_CTL_DEL, d.rfd, d.index) // Fails only once it is /dev/null (see closed), which left the set with its file.
	}
	if !d.helping {
		d.helping = true
		go d.help()
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// help is d's helper goroutine: it runs d whenever the lane hands it over,
// until d ends or the session is over.
func (d *laneDir) help() {
	defer guard()
	buf := make([]byte, ioBufSize)
	for range d.wake {
		if !d.run(buf) {
			return
		}
	}
}

// run runs d as runPump does, starting with the failure the lane handed
// over, if any, until d has been idle for handBackAfter with the lane
// free and nothing owed to its filter, when it hands d back and returns
// true, or d ends.
func (d *laneDir) run(buf []byte) bool {
	d.l.mu.Lock()
	failed := d.failed
	d.failed = nil
	d.l.mu.Unlock()
	if !d.pumpLoop.run(buf, failed, handBackAfter, d.handBack) {
		return true
	}
	d.l.mu.Lock()
	d.over = true
	d.l.mu.Unlock()
	d.ended()
	return false
}

// handBack gives d back to the lane, unless the lane waits in a write or
// the session is over.
func (d *laneDir) handBack() bool {
	l := d.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.blocked || l.stopped {
		return false
	}
	if d.rfd < 0 || !l.ctl(unix.EPOLL_CTL_ADD, d.rfd, d.index) {
		return false // d's file is closed: its read will say so.
	}
	d.withHelper = false
	l.pokeLocked() // The lane's wait may have begun without d's deadline.
	return true
}

// release closes the set and the kick, once the lane has ended.
func (l *lane) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true // Helpers hand nothing back any more.
	l.released = true
	for _, d := range l.dirs {
		close(d.wake) // An idle helper ends; a busy one ends with its file.
	}
	_ = l.ep.Close()
	_ = unix.Close(l.kick)
	l.closeDupsLocked()
}

// close ends the lane: its goroutine returns, helpers are left to end
// with their files, as the pumps' goroutines are.
func (l *lane) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	l.pokeLocked()
}

// closed tells the lane that f, a file it may use, has just been closed:
// its duplicates of f become /dev/null at once (dup3 over them), which
// lets f's file description go (the command is hung up, the terminal let
// go) whatever the lane is doing, and keeps their numbers valid, used by
// nothing else, until the lane closes them; then the lane is kicked. (A
// fork in progress elsewhere, before its exec, holds the description a
// moment longer, and with it the set's entry for the number, which then
// fires until the exec, and cannot be removed: the lane spins meanwhile.
// pbwrap forks nothing while a lane runs.)
func (l *lane) closed(f *os.File) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return // Its duplicates are closed.
	}
	null := -1
	blank := func(fd int) {
		if null < 0 {
			var err error
			if null, err = unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0); err != nil {
				return // The lane closes it soon, kicked.
			}
		}
		_ = unix.Dup3(null, fd, unix.O_CLOEXEC) // Cannot fail: both are open.
	}
	for _, d := range l.dirs {
		if d.rfd >= 0 && d.src.f == f {
			blank(d.rfd)
		}
		if d.w.fd >= 0 && d.w.dst.f == f {
			blank(d.w.fd)
		}
	}
	if null >= 0 {
		_ = unix.Close(null)
	}
	l.pokeLocked()
}

// pokeLocked wakes the lane's wait. l.mu must be held, which keeps the
// kick open (see release).
func (l *lane) pokeLocked() {
	if l.released {
		return
	}
	one := uint64(1)
	_, _ = unix.Write(l.kick, (*[8]byte)(unsafe.Pointer(&one))[:]) // Cannot block: an eventfd's count does not fill up here.
}

// A laneWriter writes dst through the lane's own descriptor fd, directly,
// as long as it takes what is written; the rest, once it would wait (or
// all of it, once fd is closed), goes through dst, in the poller. Only the
// lane's goroutine writes through it.
type laneWriter struct {
	fd  int
	dst *endpoint
}

// Write writes p whole, as endpoint.Write does.
func (w *laneWriter) Write(p []byte) (int, error) {
	n := 0
write:
	for w.fd >= 0 && n < len(p) {
		stageWriteStart()
		k, errno := rawWrite(w.fd, p[n:])
		stageWriteEnd()
		switch errno {
		case 0:
			n += k
		case unix.EINTR:
		case unix.EAGAIN:
			break write
		default:
			return n, &os.PathError{Op: "write", Path: w.dst.f.Name(), Err: errno}
		}
	}
	if n < len(p) {
		k, err := w.dst.Write(p[n:])
		return n + k, err
	}
	return n, nil
}
