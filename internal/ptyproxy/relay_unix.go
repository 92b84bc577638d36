//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"os"
	"runtime"
	"time"
)

// The relay: how bytes cross between the terminal and the command.
//
// There are two directions, input (terminal to PTY) and output (PTY to
// terminal), and each is one goroutine running relay: it waits for its
// source in the kernel, reads a chunk, passes it through its pump (the
// direction's Filter), which writes it on, and waits again. The wait is
// poll(2) (Linux) or select(2) (macOS, FreeBSD) on the source and on the
// port's shut pipe (see port), made on the goroutine's own thread (a
// goroutine in a system call keeps its thread): when a key comes, the
// kernel wakes the thread that reads, filters and writes it, and nothing
// is handed from one goroutine or thread to another on the way. The
// descriptors stay out of Go's poller, so the runtime has no part in the
// wake-up but the system call's return. That is one design on
// every system: macOS's /dev/tty, which kqueue does not take, is waited
// for like the rest.
//
// A read waits until the filter's deadline, if it set one: the read ends
// with os.ErrDeadlineExceeded and the same goroutine calls the pump's
// expire, so no timer and no other goroutine calls Flush. Each pump has a
// mutex, which its own goroutine takes once per chunk, uncontended: the
// only other takers are the session's terminal set-up and reset, which
// must not interleave with output, and the end of the command. The
// session ends a wait by closing the port (the shut pipe becomes
// readable): at the end of the run, when the terminal hangs up, and the
// drain at exit stops reading a PTY that a grandchild holds open that way
// too.
//
// Hot waits. While a direction is moving bytes (within hotFor of its last
// chunk), it passes through the scheduler once (runtime.Gosched) every
// yieldEvery, before a wait, and a wait lasts at most hotWait. That keeps
// the keystroke path warm at a typist's pace and the runtime quiet in a
// flood: the Go runtime (proc.go, retake, as of Go 1.26) takes the P from
// a goroutine that has sat in one system call for 10 ms, or whose P has
// not been through the scheduler for 10 ms, at its monitor's (sysmon's)
// first look into any system call of it, and preemption, which would put
// it through the scheduler, skips goroutines in system calls. After such
// a take the thread woken for the next key must take a P back under the
// scheduler's lock and wake the monitor from its deep sleep, and the
// monitor wakes more threads to hand the P on: tens of microseconds on
// the critical path, several context switches per key, and the monitor
// polling every 20 microseconds while bytes flow. A wait that ends before
// 10 ms and a pass through the scheduler every few milliseconds leave
// the P where it is, and the woken thread runs on at once. It costs a
// wake-up every hotWait per direction, and only for hotFor after the last
// bytes: an idle session waits in one system call each way. GOMAXPROCS is
// at least minProcs (see Run), so that two directions waiting hold two Ps
// and the monitor still sees one idle, without which it takes a waiting
// goroutine's P at its first look whatever its age.
//
// Why the relay cannot hold up the garbage collector. A goroutine of the
// relay is, at any moment, running Go code (the filters: preemptible by
// the runtime at any instruction), or in a system call made through the
// runtime's system call path (syscall.Syscall and the x/sys calls built
// on it: the poll or select, the read, the write), which runtime.entersyscall
// enters and runtime.exitsyscall leaves. A stop-the-world does not wait for
// a goroutine in a system call: stopTheWorldWithSema takes the P of every
// goroutine it finds in one (setBlockOnExitSyscall, then gcstopP), and a
// goroutine that returns from its call while the world is stopped waits in
// exitsyscall for a P, before it runs any Go code. A goroutine blocked in
// poll for an hour holds up nothing. There is no raw system call and no
// loop that spins, so nothing waits for preemption to end it;
// TestRelayGCWithOneP shows it with one P.
//
// Why the relay cannot deadlock. A direction that cannot write (a
// command that does not read its input; a terminal that stops reading,
// by flow control or a stopped terminal emulator) waits in that write
// only, for room (a non-blocking descriptor: poll, then write again) or in
// write(2) (standard output as the shell left it, blocking): it holds its
// own pump's mutex and nothing else, and the other direction, with its own
// goroutine, thread, buffer and pump, goes on. The output direction never
// waits for the input. The input waits for the output in one case: an
// input filter that is a Teller writes to the terminal through the output
// pump (a clipboard read the user's paste asked for), and so waits,
// holding the input pump's mutex, for an output write in progress, as any
// writer to the terminal must; the output pump never takes the input's,
// so the wait cannot close a cycle. The session's goroutine takes a pump's
// mutex to write the terminal set-up and reset (output) and at the end
// (both). On the input side it waits at most endLockWait and lingerSlack
// for a pump blocked in a write to a command that does not read, and
// closing the PTY's port ends that write. On the output side the drain
// stops waiting for the PTY after DrainTimeout (a grandchild may hold it
// open), and the set-up, the reset and the drain's close wait for a write
// to the terminal in progress, as any writer to that terminal must: the
// terminal, not pbwrap, holds it. The lock order is the session's mu, then
// the input pump's, then the output pump's, and no pump call takes the
// session's: a filter that panics unlocks its pump before guard gives the
// terminal back.

// ioBufSize is the read size on both directions: large enough that a
// flood of output or a big paste moves in few system calls, small enough
// to stay in cache.
const ioBufSize = 32 << 10

// The hot waits (see above): for hotFor after a direction's last chunk,
// a wait lasts at most hotWait, and the goroutine passes through the
// scheduler every yieldEvery, both well under the runtime's 10 ms.
const (
	hotFor     = time.Second
	hotWait    = 8 * time.Millisecond
	yieldEvery = 5 * time.Millisecond
)

// readAgain is the size of a chunk after which a direction reads again
// before it waits (see port.read): a chunk that large comes from a flood
// of output or a paste, which the kernel hands over 4 KiB at a time on
// Linux, and more is likely there already; keys come a few bytes at a
// time, with nothing after them.
const readAgain = 2 << 10

// relay runs one direction in the calling goroutine, until ends reports
// that reading ends after an error: it reads src, has feed pass what it
// read through p's filter and write it on, and, when a read has waited
// until the deadline the filter asked for, lets p expire. The bytes read
// are held (src.held) until feed returns.
func relay(p *pump, src *port, feed func([]byte) time.Time, ends func(error) bool) {
	buf := make([]byte, ioBufSize)
	var due time.Time   // when p's Flush is owed; zero when nothing is
	var moved time.Time // when the last chunk came; zero before the first
	n := 0              // the size of the last chunk
	var yielded time.Time
	for {
		now := time.Now()
		wait, hot := waitUntil(now, due, moved)
		if !moved.IsZero() && now.Sub(moved) < hotFor && now.Sub(yielded) >= yieldEvery {
			yielded = now
			runtime.Gosched()
		}
		var err error
		n, err = src.read(buf, wait, n >= readAgain)
		if n > 0 {
			moved = time.Now()
			due = feed(buf[:n])
		}
		src.unhold()
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && hot:
		case errors.Is(err, os.ErrDeadlineExceeded):
			if !due.IsZero() && !time.Now().Before(due) {
				due = p.expire()
			}
		case ends(err):
			return
		}
	}
}

// relayOnThread is relay with the calling goroutine locked to its thread
// for good (the thread ends with it): the output direction's. In a flood
// its passes through the scheduler while hot, and a P taken back after a
// system call, would hand it from thread to thread and CPU to CPU, each
// move a wake-up of another thread; locked, one thread does every read
// and write. The input direction is not locked: a locked goroutine that
// waits in Go (a pass through the scheduler, a paste's store, the output
// pump's mutex) hands its P to another thread and is handed it back, two
// wake-ups, and the input's pass while hot comes just after a key has
// gone to the command, as its echo is on the way (see "One thread" in
// doc/performance.md).
func relayOnThread(p *pump, src *port, feed func([]byte) time.Time, ends func(error) bool) {
	runtime.LockOSThread() // Not undone: the thread goes when relay returns.
	relay(p, src, feed, ends)
}

// waitUntil returns until when a read at now waits: the filter's
// deadline due (zero: none), or, for hotFor after the last chunk came at
// moved, at most hotWait; hot reports that the second is sooner.
func waitUntil(now, due, moved time.Time) (wait time.Time, hot bool) {
	if moved.IsZero() || now.Sub(moved) >= hotFor {
		return due, false
	}
	if c := now.Add(hotWait); due.IsZero() || c.Before(due) {
		return c, true
	}
	return due, false
}
