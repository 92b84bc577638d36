package ptyproxy

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// laneRig is a session whose terminal and PTY are pipes, run by a lane:
// what the test writes to typed comes out of toCommand, what it writes to
// printed comes out of shown.
type laneRig struct {
	s                 *session
	l                 *lane
	typed, printed    *os.File // the test writes these
	toCommand, shown  *os.File // the test reads these
	outDone, laneDone chan struct{}
}

func newLaneRig(t *testing.T, input Filter) *laneRig {
	return startLane(t, newIdleLaneRig(t, input))
}

// startLane runs r's lane until the test's end.
func startLane(t *testing.T, r *laneRig) *laneRig {
	go func() {
		defer close(r.laneDone)
		r.l.run()
	}()
	t.Cleanup(func() {
		r.l.close()
		select {
		case <-r.laneDone:
		case <-time.After(ptytest.Watchdog):
			t.Error("the lane did not end once closed")
		}
	})
	return r
}

// newIdleLaneRig is newLaneRig without the lane's goroutine.
func newIdleLaneRig(t *testing.T, input Filter) *laneRig {
	t.Helper()
	return newIdleLaneRigOut(t, input, nil)
}

// newIdleLaneRigOut is newIdleLaneRig with an output filter.
func newIdleLaneRigOut(t *testing.T, input, output Filter) *laneRig {
	t.Helper()
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("a lane needs two Ps")
	}
	inR, typed := testPipe(t, true)
	toCommand, inW := testPipe(t, true)
	outR, printed := testPipe(t, true)
	shown, outW := testPipe(t, true)
	r := &laneRig{typed: typed, printed: printed, toCommand: toCommand, shown: shown,
		outDone: make(chan struct{}), laneDone: make(chan struct{})}
	s := &session{cfg: Config{Logf: t.Logf}}
	s.inSrc, s.outSrc = newEndpoint(inR, nil), newEndpoint(outR, nil)
	s.inDst, s.outDst = newEndpoint(inW, nil), newEndpoint(outW, nil)
	s.in = newPump("input", input, s.inDst, t.Logf)
	s.out = newPump("output", output, s.outDst, t.Logf)
	r.s, r.l = s, s.newLane(r.outDone)
	if r.l == nil {
		t.Fatal("no lane for pipes in the poller")
	}
	return r
}

// readN reads exactly n bytes from f, or fails at the watchdog.
func readN(t *testing.T, f *os.File, n int) []byte {
	t.Helper()
	f.SetReadDeadline(time.Now().Add(ptytest.Watchdog))
	buf := make([]byte, n)
	if _, err := io.ReadFull(f, buf); err != nil {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	return buf
}

// Both directions pass every byte, in order, however they interleave.
func TestLaneCopiesBothWays(t *testing.T) {
	r := newLaneRig(t, nil)
	var in, out bytes.Buffer
	for i := range 200 {
		k := []byte{byte('a' + i%26)}
		line := []byte(strings.Repeat(string(k), i%50+1) + "\n")
		r.typed.Write(k)
		r.printed.Write(line)
		in.Write(k)
		out.Write(line)
	}
	if got := readN(t, r.toCommand, in.Len()); !bytes.Equal(got, in.Bytes()) {
		t.Errorf("input: got %q, want %q", got, in.Bytes())
	}
	if got := readN(t, r.shown, out.Len()); !bytes.Equal(got, out.Bytes()) {
		t.Errorf("output: got %d bytes, want %d, not the same", len(got), out.Len())
	}
}

// While the lane waits to write output the terminal does not take, typed
// input still reaches the command (the input goes to its helper): a
// command that prints without reading is never left waiting on a wrapper
// that waits on it. Then the output goes through whole.
func TestLaneWriteThatWaitsFreesTheOtherDirection(t *testing.T) {
	r := newLaneRig(t, nil)
	flood := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB: more than a pipe holds.
	go r.printed.Write(flood)
	time.Sleep(50 * time.Millisecond) // The lane now waits to write output.
	r.typed.Write([]byte("typed"))
	if got := readN(t, r.toCommand, 5); string(got) != "typed" {
		t.Fatalf("input while the output waits: %q", got)
	}
	if got := readN(t, r.shown, len(flood)); !bytes.Equal(got, flood) {
		t.Fatal("the output did not come through whole")
	}
	// Both directions are the lane's again, and still pass input.
	r.typed.Write([]byte("again"))
	if got := readN(t, r.toCommand, 5); string(got) != "again" {
		t.Fatalf("input afterwards: %q", got)
	}
}

// A lane waiting raw holds a P, but not for good: with a single P left,
// the garbage collector and other goroutines still run (the runtime's
// preemption signal ends epoll_pwait with EINTR, and the lane yields). A
// wait that the kernel restarts after signals, as read(2), would hang.
func TestLaneYieldsToOthers(t *testing.T) {
	r := newLaneRig(t, nil)
	r.typed.Write([]byte("k")) // The lane is hot from now on.
	readN(t, r.toCommand, 1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ran := make(chan struct{})
	go func() {
		for range 3 {
			time.Sleep(20 * time.Millisecond)
			runtime.GC()
		}
		close(ran)
	}()
	select {
	case <-ran:
	case <-time.After(ptytest.Watchdog):
		t.Fatal("other goroutines did not run beside the lane")
	}
	r.typed.Write([]byte("x"))
	if got := readN(t, r.toCommand, 1); string(got) != "x" {
		t.Fatalf("input afterwards: %q", got)
	}
}

// A preemption signal sends the lane from its raw wait to the poller
// until the next input, however long it would have stayed hot: a
// monitor thread that is awake would otherwise preempt it every 10 ms
// for as long as it is hot. The next input makes it hot again.
func TestLanePreemptedGoesCold(t *testing.T) {
	defer func(d time.Duration) { hotFor = d }(hotFor)
	hotFor = time.Hour
	r := newLaneRig(t, nil)
	for _, k := range []string{"a", "b"} {
		r.typed.Write([]byte(k))
		readN(t, r.toCommand, 1)
		colds := r.l.colds.Load()
		deadline := time.Now().Add(ptytest.Watchdog)
		for r.l.colds.Load() == colds {
			if time.Now().After(deadline) {
				t.Fatalf("after %q and collections, the lane still waits raw", k)
			}
			// A collection stops the world: the lane's thread gets the
			// signal, which ends its raw wait if it is in it by then (it
			// may still be finishing the step: then it is preempted
			// there, and the next collection finds it waiting).
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}
}

// The input filter's deadline is kept: what it holds is flushed then, by
// the lane, without more input.
func TestLaneFlushesAtDeadline(t *testing.T) {
	r := newLaneRig(t, &holdEsc{hold: 20 * time.Millisecond})
	r.typed.Write([]byte("a\x1b"))
	if got := readN(t, r.toCommand, 2); string(got) != "A\x1b" {
		t.Fatalf("got %q, want the held ESC after the deadline", got)
	}
}

// A deadline the input filter set while the helper ran the input is kept
// once the helper hands it back: the lane flushes what the filter holds
// then, with no more input. (The lane's wait had begun without it, and
// the ESC waited for the next byte.)
func TestLaneDeadlineKeptThroughHandBack(t *testing.T) {
	r := newLaneRig(t, &holdEsc{hold: 3 * handBackAfter})
	flood := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB: more than a pipe holds.
	go r.printed.Write(flood)
	time.Sleep(50 * time.Millisecond) // The lane now waits to write output: the input is the helper's.
	r.typed.Write([]byte("a\x1b"))
	if got := readN(t, r.toCommand, 1); string(got) != "A" {
		t.Fatalf("got %q, want A", got)
	}
	readN(t, r.shown, len(flood)) // The lane is free again.
	if got := readN(t, r.toCommand, 1); string(got) != "\x1b" {
		t.Fatalf("got %q, want the held ESC", got)
	}
}

// A file the lane reads, closed elsewhere (the PTY, when the terminal
// hangs up), is let go of through the lane's duplicate too once the lane
// is told, so that it is really closed (the command is hung up), and its
// direction ends, as runPump's does.
func TestLaneSourceClosedElsewhere(t *testing.T) {
	r := newLaneRig(t, nil)
	r.printed.Write([]byte("x"))
	readN(t, r.shown, 1)
	r.s.outSrc.f.Close()
	r.l.closed(r.s.outSrc.f)
	select {
	case <-r.outDone:
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the output's end was not told after its file was closed")
	}
	awaitNoReader(t, r.printed)
	r.typed.Write([]byte("on"))
	if got := readN(t, r.toCommand, 2); string(got) != "on" {
		t.Fatalf("input afterwards: %q", got)
	}
}

// A file the lane writes, closed elsewhere, is let go of through the
// lane's duplicate too once the lane is told: its reader sees the end.
// The lane then closes its duplicates.
func TestLaneDestinationClosedElsewhere(t *testing.T) {
	r := newLaneRig(t, nil)
	r.typed.Write([]byte("x"))
	readN(t, r.toCommand, 1)
	r.s.inDst.f.Close()
	r.l.closed(r.s.inDst.f)
	r.toCommand.SetReadDeadline(time.Now().Add(ptytest.Watchdog))
	if n, err := r.toCommand.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read after the input's destination was closed: %d, %v; want EOF", n, err)
	}
	r.printed.Write([]byte("out"))
	if got := readN(t, r.shown, 3); string(got) != "out" {
		t.Fatalf("output afterwards: %q", got)
	}
	awaitTrue(t, "the lane closing its duplicate of the closed file", func() bool {
		r.l.mu.Lock()
		defer r.l.mu.Unlock()
		return r.l.dirs[0].w.fd < 0
	})
}

// Closing the PTY hangs up the command at once, even while the lane is
// busy (here, in a filter call that does not return): the lane's
// duplicates of the PTY, one it reads and one it writes, do not keep it
// open.
func TestLaneClosedPTYHangsUpAtOnce(t *testing.T) {
	m, slave, err := ptyio.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); slave.Close() })
	stuck := &stuckFilter{in: make(chan struct{}), release: make(chan struct{})}
	defer close(stuck.release)
	r := newIdleLaneRig(t, stuck)
	t.Cleanup(r.l.release)
	r.s.master = m
	r.s.outSrc, r.s.inDst = newEndpoint(m, nil), newEndpoint(m, nil)
	r.s.in = newPump("input", stuck, r.s.inDst, t.Logf)
	l := r.s.newLane(r.outDone)
	r.s.lane = l
	done := make(chan struct{})
	go func() { defer close(done); l.run() }()
	t.Cleanup(func() { l.close(); <-done })
	r.typed.Write([]byte("k"))
	select {
	case <-stuck.in:
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the filter was never called")
	}
	r.s.closeMaster()
	slave.SetReadDeadline(time.Now().Add(ptytest.Watchdog))
	n, err := slave.Read(make([]byte, 16))
	if !errors.Is(err, syscall.EIO) && err != io.EOF {
		t.Fatalf("the command's read after the PTY was closed: %d, %v; want a hang-up (EIO)", n, err)
	}
}

// stuckFilter's Filter says it was called, and returns once released.
type stuckFilter struct{ in, release chan struct{} }

func (f *stuckFilter) Filter(io.Writer, []byte, time.Time) (time.Time, error) {
	f.in <- struct{}{}
	<-f.release
	return time.Time{}, nil
}
func (*stuckFilter) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (*stuckFilter) Close(io.Writer) error                         { return nil }

// A lane that ends closes its duplicates: the files are then open only
// where the session opened them.
func TestLaneReleasesItsDescriptors(t *testing.T) {
	r := newLaneRig(t, nil)
	r.l.close()
	select {
	case <-r.laneDone:
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the lane did not end once closed")
	}
	r.s.outSrc.f.Close()
	if _, err := r.printed.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write with the session's reader closed: %v, want EPIPE", err)
	}
}

// awaitNoReader waits until the pipe w writes has no reader left (a write
// fails with EPIPE), or fails at the watchdog.
func awaitNoReader(t *testing.T, w *os.File) {
	t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for {
		_, err := w.Write([]byte("?"))
		if errors.Is(err, syscall.EPIPE) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pipe still has a reader (write: %v)", err)
		}
		time.Sleep(time.Millisecond)
	}
}

// A read that fails once and would not fail again (an end of input typed
// on a cooked terminal: a read returns nothing, once) is handled as
// runPump handles it: the helper gets the failure the lane met instead of
// reading again, which would wait for more input.
func TestLaneFailureGoesToHelper(t *testing.T) {
	m, slave, err := ptyio.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	cooked, err := os.OpenFile(slave.Name(), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); slave.Close(); cooked.Close() })
	r := newIdleLaneRig(t, nil)
	t.Cleanup(r.l.release)
	r.s.inSrc = newEndpoint(cooked, nil)
	l := r.s.newLane(r.outDone)
	ended := make(chan error, 1)
	l.dirs[0].ends = func(err error) bool { ended <- err; return true }
	go l.run()
	t.Cleanup(l.close)
	m.Write([]byte("ab\n\x04")) // A line, then VEOF.
	if got := readN(t, r.toCommand, 3); string(got) != "ab\n" {
		t.Fatalf("got %q", got)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, io.EOF) {
			t.Errorf("the input ended with %v, want EOF", err)
		}
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the end of input typed on a cooked terminal was never met")
	}
}

// A lane whose own wait fails (nothing does that but this test) leaves
// both directions to their helpers instead of to nobody.
func TestLaneThatEndsLeavesItsDirections(t *testing.T) {
	defer func(d time.Duration) { hotFor = d }(hotFor)
	hotFor = 0 // Always in the poller.
	r := newLaneRig(t, nil)
	r.typed.Write([]byte("a"))
	readN(t, r.toCommand, 1)
	r.l.ep.Close() // The lane's wait in the poller fails: it ends.
	select {
	case <-r.laneDone:
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the lane did not end")
	}
	r.typed.Write([]byte("b"))
	r.printed.Write([]byte("out"))
	if got := readN(t, r.toCommand, 1); string(got) != "b" {
		t.Fatalf("input afterwards: %q", got)
	}
	if got := readN(t, r.shown, 3); string(got) != "out" {
		t.Fatalf("output afterwards: %q", got)
	}
}

// GODEBUG is read as the runtime reads it: a raw wait where preemption
// is off would hold up every stop-the-world until it timed out.
func TestPreemptOff(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                                    false,
		"asyncpreemptoff=1":                   true,
		"asyncpreemptoff=2":                   true,
		"asyncpreemptoff=-1":                  true,
		"gctrace=1,asyncpreemptoff=1":         true,
		"asyncpreemptoff=1,asyncpreemptoff=0": false,
		"asyncpreemptoff=0,asyncpreemptoff=1": true,
		"asyncpreemptoff=1,asyncpreemptoff=x": true, // Not a number: ignored.
		"asyncpreemptoff=0":                   false,
		" asyncpreemptoff=1":                  false, // Not the name.
		"xasyncpreemptoff=1":                  false,
		"asyncpreemptoff":                     false,
		"gccheckmark=1":                       true,
		"gccheckmark=0":                       false,
		"gccheckmark=1,gccheckmark=0":         false,
	} {
		if got := preemptOff(godebug); got != want {
			t.Errorf("preemptOff(%q) = %v, want %v", godebug, got, want)
		}
	}
}

// The end of the output ends its direction, through the helper, which
// says so (outDone); the input goes on.
func TestLaneOutputEnds(t *testing.T) {
	r := newLaneRig(t, nil)
	r.printed.Write([]byte("last"))
	r.printed.Close()
	if got := readN(t, r.shown, 4); string(got) != "last" {
		t.Fatalf("got %q", got)
	}
	select {
	case <-r.outDone:
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the end of the output was not told")
	}
	r.typed.Write([]byte("still"))
	if got := readN(t, r.toCommand, 5); string(got) != "still" {
		t.Fatalf("input after the output's end: %q", got)
	}
}

// A keystroke through the lane allocates nothing, whether it goes ahead
// of its filter or not.
func TestLaneStepAllocs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input Filter
	}{
		{"no filter", nil},
		{"ahead", &passAll{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newIdleLaneRig(t, tc.input)
			t.Cleanup(r.l.release)
			buf, got, key := make([]byte, ioBufSize), make([]byte, 8), []byte("k")
			allocs := testing.AllocsPerRun(100, func() {
				r.typed.Write(key)
				r.l.step(r.l.dirs[0], buf)
				r.toCommand.Read(got)
			})
			if allocs != 0 {
				t.Errorf("%v allocations per keystroke, want 0", allocs)
			}
		})
	}
}

// passAll is a Passer that passes what it is given, and any plain text;
// it counts its calls, and keeps the last time it was given, before it
// writes.
type passAll struct {
	calls atomic.Int32
	last  atomic.Int64 // the time given, in nanoseconds since clockBase
}

func (f *passAll) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	f.calls.Add(1)
	f.last.Store(int64(now.Sub(clockBase)))
	_, err := w.Write(p)
	return time.Time{}, err
}
func (*passAll) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (*passAll) Close(io.Writer) error                         { return nil }
func (*passAll) Passing() int                                  { return math.MaxInt }

// Once the input pump is closed, or the command has ended, nothing goes
// ahead of the filter to the command.
func TestLaneWritesNothingAheadOnceShut(t *testing.T) {
	for _, tc := range []struct {
		name string
		shut func(*pump)
	}{
		{"closed", (*pump).close},
		{"closed within", func(p *pump) { p.closeWithin(time.Second) }},
		{"ended", func(p *pump) { p.end() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newLaneRig(t, &passAll{})
			tc.shut(r.s.in)
			r.typed.Write([]byte("k"))
			awaitStepped(t, r)
			if n := queuedIn(t, r.toCommand); n != 0 {
				t.Errorf("%d bytes reached the command after the pump was %s", n, tc.name)
			}
		})
	}
}

// awaitStepped waits until the lane has read all that was typed, and its
// step is over.
func awaitStepped(t *testing.T, r *laneRig) {
	t.Helper()
	awaitTrue(t, "the lane taking what was typed", func() bool {
		return queuedIn(t, r.s.inSrc.f) == 0 && r.l.stepping.Load() == 0
	})
}

// queuedIn returns how many bytes wait to be read from the pipe f
// (without Fd, which would make f blocking, for the lane too).
func queuedIn(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := rc.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), ioctlInputQueued) }); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("FIONREAD %s: %v", f.Name(), err)
	}
	return n
}

// A chunk of output that goes ahead of its filter goes whole, waiting for
// room if it must, before the session writes to the terminal (its reset
// sequences) or closes the stream: neither lands inside it, nor cuts it.
// (The pump's lock orders them: waiting for the terminal, the lane holds
// it.)
func TestLaneAheadChunkIsWhole(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(*pump)
		tail  string
	}{
		{"reset", func(p *pump) { p.writeFrom(func() []byte { return []byte("RESET") }) }, "RESET"},
		{"close", (*pump).close, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startLane(t, newIdleLaneRigOut(t, nil, &passAll{}))
			full := fillPipe(t, r.s.outDst.f)
			room := 4096
			readN(t, r.shown, room)
			chunk := bytes.Repeat([]byte("x"), 2*room)
			r.printed.Write(chunk)
			awaitTrue(t, "the lane waiting to write the chunk", r.l.waitsInWrite)
			done := make(chan struct{})
			go func() { defer close(done); tc.after(r.s.out) }()
			time.Sleep(10 * time.Millisecond) // Lets it reach its write, if it is not made to wait.
			got := readN(t, r.shown, full-room+len(chunk)+len(tc.tail))
			<-done
			want := append(bytes.Repeat([]byte{0}, full-room), chunk...)
			if !bytes.Equal(got, append(want, tc.tail...)) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("the terminal got other bytes from %d on: %q", i, got[i:min(len(got), i+32)])
			}
			awaitTrue(t, "the input back on the lane", r.l.runsBoth)
		})
	}
}

// fillPipe writes zeros to the pipe w until it is full, and returns how
// many.
func fillPipe(t *testing.T, w *os.File) int {
	t.Helper()
	rc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	zeros, n := make([]byte, 4096), 0
	err = rc.Write(func(fd uintptr) bool {
		for {
			k, err := unix.Write(int(fd), zeros)
			if err != nil {
				return true // EAGAIN: full.
			}
			n += k
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// awaitTrue waits until cond holds, or fails at the watchdog.
func awaitTrue(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// The filter is given the time of the read, from before a write ahead
// that waits for the command to read: a time before the test saw the
// write wait, not one from after the command read.
func TestLaneAheadKeepsTheReadTime(t *testing.T) {
	f := &passAll{}
	r := newLaneRig(t, f)
	full := fillPipe(t, r.s.inDst.f)
	r.typed.Write([]byte("k"))
	awaitTrue(t, "the lane waiting to write the key", r.l.waitsInWrite)
	waiting := time.Now()
	readN(t, r.toCommand, full+1)
	awaitTrue(t, "the filter's call", func() bool { return f.calls.Load() == 1 })
	if late := clockBase.Add(time.Duration(f.last.Load())).Sub(waiting); late > 0 {
		t.Errorf("the filter was given a time %v after the write was seen waiting", late)
	}
	awaitTrue(t, "the output back on the lane", r.l.runsBoth)
}

// runsBoth reports whether the lane runs both directions: a helper that
// it handed one to has handed it back, and cannot outlive the test.
func (l *lane) runsBoth() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dirs[0].runs() && l.dirs[1].runs()
}

// waitsInWrite reports whether the lane waits to write (see writeWaits).
func (l *lane) waitsInWrite() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.blocked
}
