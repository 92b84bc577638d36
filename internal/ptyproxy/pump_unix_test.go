//go:build darwin || freebsd || linux

package ptyproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// holdEsc is a test Filter: it upper-cases letters, holds a trailing ESC
// back until its deadline, and says which calls it got.
type holdEsc struct {
	hold  time.Duration
	held  bool
	calls []string
}

func (f *holdEsc) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	f.calls = append(f.calls, "filter")
	out := bytes.ToUpper(p)
	if f.held {
		out = append([]byte{0x1b}, out...)
		f.held = false
	}
	if n := len(out); n > 0 && out[n-1] == 0x1b {
		f.held = true
		out = out[:n-1]
	}
	_, err := w.Write(out)
	if f.held {
		return now.Add(f.hold), err
	}
	return time.Time{}, err
}

func (f *holdEsc) Flush(w io.Writer, now time.Time) (time.Time, error) {
	f.calls = append(f.calls, "flush")
	if !f.held {
		return time.Time{}, nil
	}
	f.held = false
	_, err := w.Write([]byte{0x1b})
	return time.Time{}, err
}

func (f *holdEsc) Close(w io.Writer) error {
	f.calls = append(f.calls, "close")
	_, err := f.Flush(w, time.Time{})
	return err
}

func TestPumpWithoutFilterCopies(t *testing.T) {
	var w ptytest.Buffer
	p := newPump("test", nil, &w, nil)
	p.feed([]byte("abc\x1b"))
	p.writeFrom(func() []byte { return []byte("[set]") })
	p.feed([]byte("def"))
	p.close()
	if got, want := w.String(), "abc\x1b[set]def"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// writeFrom calls its function with the stream held, and a function that
// panics writes nothing and is logged: it may run while the proxy restores
// the terminal after a panic.
func TestPumpWriteFrom(t *testing.T) {
	var w ptytest.Buffer
	var logged []string
	p := newPump("test", nil, &w, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	p.writeFrom(func() []byte {
		if p.mu.TryLock() {
			t.Error("the stream is not held while the function runs")
		}
		return []byte("[reset]")
	})
	p.writeFrom(func() []byte { panic("half-way") })
	p.writeFrom(nil)
	if got := w.String(); got != "[reset]" {
		t.Errorf("got %q, want %q", got, "[reset]")
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "half-way") {
		t.Errorf("logged %q, want the panic", logged)
	}
}

// The goroutine that reads also flushes: its read waits until the
// filter's deadline, then Flush lets the held ESC go; the loop ends with
// the input. For a non-blocking descriptor and a blocking one. The
// watchdog on the flush is ten times the filter's deadline: a read that
// ignores the deadline fails the test soon after it, and a loaded machine
// that wakes the reader late does not.
func TestPumpFlushesAtDeadline(t *testing.T) {
	const hold = 100 * time.Millisecond
	for _, blocking := range []bool{false, true} {
		t.Run(fmt.Sprintf("blocking=%v", blocking), func(t *testing.T) {
			r, wr := testPipe(t, blocking, nil)
			var w ptytest.Buffer
			f := &holdEsc{hold: hold}
			p := newPump("test", f, &w, nil)
			done := make(chan struct{})
			go func() { // Ends at the end of the input (wr closed below).
				defer close(done)
				relay(p, r, p.feed, func(error) bool { return true })
			}()
			if _, err := wr.Write([]byte("ab\x1b")); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * hold)
			for w.String() != "AB\x1b" {
				if time.Now().After(deadline) {
					t.Fatalf("watchdog: the held ESC did not come within %v: got %q", 10*hold, w.String())
				}
				time.Sleep(time.Millisecond)
			}
			wr.Close()
			select {
			case <-done:
			case <-time.After(ptytest.Watchdog):
				t.Fatal("watchdog: the loop did not end with its input")
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if want := []string{"filter", "flush"}; !equal(f.calls, want) {
				t.Errorf("calls %q, want %q", f.calls, want)
			}
		})
	}
}

// testPipe returns a pipe: a port that reads it, and the test's end to
// write. With blocking, the port's descriptor is blocking, as standard
// input may be; otherwise non-blocking, as pbwrap's own are.
func testPipe(t *testing.T, blocking bool, held *atomic.Bool) (*port, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := dupCloexec(r)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := unix.SetNonblock(fd, !blocking); err != nil {
		t.Fatal(err)
	}
	p, err := newPort(fd, "pipe", !blocking, held)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.close(); w.Close() })
	return p, w
}

// testSink returns a pipe: a port that writes it, non-blocking, and the
// test's end to read, in Go's poller.
func testSink(t *testing.T) (*port, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := dupCloexec(w)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	p, err := newPort(fd, "pipe", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.close(); r.Close() })
	return p, r
}

// A read waits until the deadline, and no longer, whether the descriptor
// is blocking or not, and whether it reads first or not; bytes already
// there come at once; the end of the input is EOF, and a read of a closed
// port fails with ErrClosed.
func TestPortReadDeadline(t *testing.T) {
	for _, blocking := range []bool{false, true} {
		for _, first := range []bool{false, true} {
			t.Run(fmt.Sprintf("blocking=%v,first=%v", blocking, first), func(t *testing.T) {
				var held atomic.Bool
				e, wr := testPipe(t, blocking, &held)
				buf := make([]byte, 8)
				if n, err := e.read(buf, time.Now().Add(time.Millisecond), first); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("read with nothing to read = %d, %v, want the deadline", n, err)
				}
				if held.Load() {
					t.Error("held after a read that took nothing")
				}
				wr.Write([]byte("xy"))
				n, err := e.read(buf, time.Now().Add(ptytest.Watchdog), first)
				if err != nil || string(buf[:n]) != "xy" {
					t.Fatalf("read = %q, %v, want \"xy\"", buf[:n], err)
				}
				if !held.Load() {
					t.Error("bytes read but not held")
				}
				wr.Close()
				if _, err := e.read(buf, time.Time{}, first); !errors.Is(err, io.EOF) {
					t.Errorf("read at the end = %v, want EOF", err)
				}
				e.close()
				if _, err := e.read(buf, time.Time{}, first); !errors.Is(err, os.ErrClosed) {
					t.Errorf("read of a closed port = %v, want ErrClosed", err)
				}
			})
		}
	}
}

// Closing a port ends a read that waits, and a write that waits for
// room, at once, with ErrClosed; the descriptor goes once they are out.
func TestPortCloseEndsWaits(t *testing.T) {
	for _, blocking := range []bool{false, true} {
		t.Run(fmt.Sprintf("blocking=%v", blocking), func(t *testing.T) {
			e, _ := testPipe(t, blocking, nil)
			sink, _ := testSink(t)
			ended := make(chan error, 2)
			go func() { // Ends when the port is closed.
				_, err := e.read(make([]byte, 8), time.Time{}, false)
				ended <- err
			}()
			go func() { // Ends when the port is closed: nothing reads the pipe.
				_, err := sink.Write(flood)
				ended <- err
			}()
			time.Sleep(10 * time.Millisecond) // Not needed to pass: a wait begun after the close ends too.
			e.close()
			sink.close()
			for range 2 {
				select {
				case err := <-ended:
					if !errors.Is(err, os.ErrClosed) {
						t.Errorf("a wait ended with %v, want ErrClosed", err)
					}
				case <-time.After(ptytest.Watchdog):
					t.Fatal("watchdog: a wait did not end when its port was closed")
				}
			}
			if n := e.refs.Load(); n != 0 {
				t.Errorf("the closed port counts %d calls under way, want 0: its descriptor stays open", n)
			}
		})
	}
}

// Reads and writes of ports allocate nothing.
func TestPortAllocs(t *testing.T) {
	in, wr := testPipe(t, false, nil)
	out, rd := testSink(t)
	buf, key := make([]byte, 8), []byte("k")
	allocs := testing.AllocsPerRun(100, func() {
		wr.Write(key)
		in.read(buf, time.Now().Add(time.Second), false)
		out.Write(key)
		rd.Read(buf)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per write and read, want 0", allocs)
	}
}

func TestPumpInputBeforeDeadlineCancelsFlush(t *testing.T) {
	var w ptytest.Buffer
	f := &holdEsc{hold: time.Hour}
	p := newPump("test", f, &w, nil)
	p.feed([]byte("a\x1b"))
	p.feed([]byte("b"))
	p.close()
	if got, want := w.String(), "A\x1bB"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if want := []string{"filter", "filter", "close", "flush"}; !equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
}

func TestPumpCloseReleasesHeldBytes(t *testing.T) {
	var w ptytest.Buffer
	p := newPump("test", &holdEsc{hold: time.Hour}, &w, nil)
	p.feed([]byte("x\x1b"))
	p.close()
	if got, want := w.String(), "X\x1b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, io.ErrClosedPipe
}

func TestPumpLogsFirstErrorOnly(t *testing.T) {
	var logged []string
	logf := func(format string, args ...any) { logged = append(logged, format) }
	w := &failWriter{}
	p := newPump("output", nil, w, logf)
	p.feed([]byte("a"))
	p.feed([]byte("b"))
	if w.n != 2 {
		t.Errorf("writes after an error: %d, want the stream to go on (2)", w.n)
	}
	if len(logged) != 1 {
		t.Errorf("logged %d errors, want 1", len(logged))
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkPumpKeystroke is the per-keystroke cost of the pump, without a
// filter and with one that does nothing but pass bytes on.
func BenchmarkPumpKeystroke(b *testing.B) {
	key := []byte("x")
	b.Run("nil", func(b *testing.B) {
		p := newPump("bench", nil, io.Discard, nil)
		for b.Loop() {
			p.feed(key)
		}
	})
	b.Run("identity", func(b *testing.B) {
		p := newPump("bench", identity{}, io.Discard, nil)
		for b.Loop() {
			p.feed(key)
		}
	})
}

type identity struct{}

func (identity) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	_, err := w.Write(p)
	return time.Time{}, err
}
func (identity) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (identity) Close(io.Writer) error                         { return nil }

// fakeSource is a source whose queue the test sets.
func fakeSource(queued *atomic.Bool) *source {
	return &source{queued: queued.Load}
}

// expireUntil lets p's deadline pass, as the reading goroutine does when
// its read times out, until f has received want calls, failing at the
// watchdog.
func expireUntil(t *testing.T, p *pump, f *holdEsc, want []string) {
	t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for {
		p.expire()
		p.mu.Lock()
		got := slices.Clone(f.calls)
		p.mu.Unlock()
		if equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: calls %q, want %q", got, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// A deadline does not pass while input waits to be read, or has been read
// and not yet fed: the proxy stalled, not the terminal. Regression test
// for issue 10, point 1 (a paste ended when pbwrap was stopped).
func TestPumpDeadlineWaitsForInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block func(src *source, queued *atomic.Bool)
		free  func(src *source, queued *atomic.Bool)
	}{
		{"input queued",
			func(_ *source, q *atomic.Bool) { q.Store(true) },
			func(_ *source, q *atomic.Bool) { q.Store(false) }},
		{"input taken, not yet fed",
			func(s *source, _ *atomic.Bool) { s.taken.Store(true) },
			func(s *source, _ *atomic.Bool) { s.taken.Store(false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w ptytest.Buffer
			var queued atomic.Bool
			f := &holdEsc{hold: time.Millisecond}
			p := newPump("test", f, &w, nil)
			p.src = fakeSource(&queued)
			p.feed([]byte("a\x1b"))
			tc.block(p.src, &queued)
			// The read times out and finds input on its way, more than once.
			for range 3 {
				time.Sleep(2 * f.hold) // Not an assertion: past the deadline.
				p.expire()
			}
			p.mu.Lock()
			calls := slices.Clone(f.calls)
			p.mu.Unlock()
			if !equal(calls, []string{"filter"}) {
				t.Fatalf("calls %q with input on its way, want no flush", calls)
			}
			tc.free(p.src, &queued)
			expireUntil(t, p, f, []string{"filter", "flush"})
			if got, want := w.String(), "A\x1b"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// slowFilter spends d in each Filter call, as one blocked writing to a
// child that does not read, and then asks for a flush after hold.
type slowFilter struct {
	holdEsc
	d time.Duration
}

func (f *slowFilter) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	time.Sleep(f.d)
	return f.holdEsc.Filter(w, p, now)
}

// The time a Filter call takes is not silence: the deadline counts from
// the call's return. Regression test for issue 10, point 1 (a paste ended
// after a write to a paused child).
func TestPumpDeadlineCountsFromFeedReturn(t *testing.T) {
	var queued atomic.Bool
	f := &slowFilter{holdEsc: holdEsc{hold: time.Hour}, d: 50 * time.Millisecond}
	p := newPump("test", f, io.Discard, nil)
	p.src = fakeSource(&queued)
	before := time.Now()
	if p.feed([]byte("x\x1b")).IsZero() {
		t.Fatal("feed reports no deadline")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if earliest := before.Add(f.d + f.hold); p.due.Before(earliest) {
		t.Errorf("deadline %v after the feed began, want at least %v (the call, then the hold)", p.due.Sub(before), f.d+f.hold)
	}
	p.schedule(time.Time{})
}

// unfinished is a holdEsc that is Unfinished while it holds an ESC.
type unfinished struct {
	holdEsc
	ended int
}

func (f *unfinished) CommandEnded() { f.ended++ }
func (f *unfinished) Pending() bool { return f.held }

// Once the command has ended, an Unfinished filter is told once, writes
// nowhere, and the pump settles when it wants no more input.
func TestPumpEndSettlesWhenFilterIsDone(t *testing.T) {
	var w ptytest.Buffer
	var queued atomic.Bool
	f := &unfinished{holdEsc: holdEsc{hold: time.Hour}}
	p := newPump("test", f, &w, nil)
	p.src = fakeSource(&queued)
	p.feed([]byte("a\x1b"))
	settled := p.end()
	select {
	case <-settled:
		t.Fatal("settled while the filter wants more")
	default:
	}
	p.feed([]byte("b"))
	select {
	case <-settled:
	case <-time.After(ptytest.Watchdog):
		t.Fatal("watchdog: never settled")
	}
	p.close()
	if got, want := w.String(), "A"; got != want {
		t.Errorf("written %q, want %q: nothing after the end", got, want)
	}
	if f.ended != 1 {
		t.Errorf("CommandEnded called %d times, want once", f.ended)
	}
}

// A filter that is not Unfinished, or no filter, settles at once.
func TestPumpEndSettlesAtOnce(t *testing.T) {
	for _, f := range []Filter{nil, &holdEsc{hold: time.Hour}} {
		p := newPump("test", f, io.Discard, nil)
		p.feed([]byte("a\x1b"))
		select {
		case <-p.end():
		default:
			t.Errorf("filter %T: not settled at the end", f)
		}
		p.close()
	}
}

// Input queued when the command ends is read before the pump settles: it
// may be a paste's start.
func TestPumpEndWaitsForQueuedInput(t *testing.T) {
	var queued atomic.Bool
	queued.Store(true)
	f := &unfinished{holdEsc: holdEsc{hold: time.Hour}}
	p := newPump("test", f, io.Discard, nil)
	p.src = fakeSource(&queued)
	settled := p.end()
	select {
	case <-settled:
		t.Fatal("settled with input queued")
	default:
	}
	queued.Store(false)
	p.feed([]byte("x"))
	select {
	case <-settled:
	default:
		t.Error("not settled once the queue was read")
	}
	p.close()
}
