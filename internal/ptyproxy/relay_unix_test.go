//go:build darwin || freebsd || linux

package ptyproxy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// relayRig runs both directions of the relay between pipes: what the test
// writes to typed comes out of toCommand, what it writes to printed comes
// out of shown.
type relayRig struct {
	typed, printed   *os.File   // the test writes these
	toCommand, shown *os.File   // the test reads these
	in, out          *port      // what the directions read
	inW, outW        *port      // what they write
	inDone, outDone  chan error // each direction's last error, once it has ended
}

func newRelayRig(t *testing.T, input Filter) *relayRig {
	t.Helper()
	return newRelayRigWith(t, input, nil)
}

// newRelayRigWith is newRelayRig with an output filter too; nil passes
// the output on as it is.
func newRelayRigWith(t *testing.T, input, output Filter) *relayRig {
	t.Helper()
	inR, typed := testPipe(t, false, nil)
	inW, toCommand := testSink(t)
	outR, printed := testPipe(t, false, nil)
	outW, shown := testSink(t)
	r := &relayRig{typed: typed, printed: printed, toCommand: toCommand, shown: shown,
		in: inR, out: outR, inW: inW, outW: outW,
		inDone: make(chan error, 1), outDone: make(chan error, 1)}
	in, out := newPump("input", input, inW, t.Logf), newPump("output", output, outW, t.Logf)
	go relay(in, r.in, in.feed, func(err error) bool { r.inDone <- err; return true })             // Ends with its pipe.
	go relayOnThread(out, r.out, out.feed, func(err error) bool { r.outDone <- err; return true }) // Ends with its pipe.
	t.Cleanup(func() { typed.Close(); printed.Close() })
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

// flood is more than a pipe or a PTY holds.
var flood = bytes.Repeat([]byte("0123456789abcdef"), 64<<10)

// Both directions pass every byte, in order, however they interleave.
func TestRelayCopiesBothWays(t *testing.T) {
	r := newRelayRig(t, nil)
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

// A terminal that stops reading holds up the output only: typed input
// still reaches the command, which may wait for it before it reads its
// own output's consequences. Then the output goes through whole.
func TestRelayTerminalThatStopsReading(t *testing.T) {
	r := newRelayRig(t, nil)
	go r.printed.Write(flood) // Ends once the test reads shown.
	awaitTrue(t, "the output waiting to write", func() bool { return queuedIn(t, r.shown) > 0 && queuedInPort(t, r.out) > 0 })
	r.typed.Write([]byte("typed"))
	if got := readN(t, r.toCommand, 5); string(got) != "typed" {
		t.Fatalf("input while the output waits: %q", got)
	}
	if got := readN(t, r.shown, len(flood)); !bytes.Equal(got, flood) {
		t.Fatal("the output did not come through whole")
	}
}

// A command that never reads holds up the input only: its output still
// reaches the terminal, so a command that prints without reading is
// never left waiting on a wrapper that waits on it. Then the input goes
// through whole.
func TestRelayCommandThatNeverReads(t *testing.T) {
	r := newRelayRig(t, &holdEsc{hold: time.Hour})
	upper := bytes.ToUpper(flood)
	go r.typed.Write(flood) // Ends once the test reads toCommand.
	awaitTrue(t, "the input waiting to write", func() bool { return queuedIn(t, r.toCommand) > 0 && queuedInPort(t, r.in) > 0 })
	r.printed.Write([]byte("printed"))
	if got := readN(t, r.shown, 7); string(got) != "printed" {
		t.Fatalf("output while the input waits: %q", got)
	}
	if got := readN(t, r.toCommand, len(upper)); !bytes.Equal(got, upper) {
		t.Fatal("the input did not come through whole")
	}
}

// With one P, both directions blocked in writes, and the garbage
// collector running again and again, nothing stalls: every wait of the
// relay leaves its P, and the traffic goes through once it is read.
func TestRelayGCWithOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r := newRelayRig(t, nil)
	go r.typed.Write(flood)   // Ends once the test reads toCommand.
	go r.printed.Write(flood) // Ends once the test reads shown.
	stop := make(chan struct{})
	collected := make(chan int)
	go func() { // Ends when the test stops it.
		n := 0
		for {
			select {
			case <-stop:
				collected <- n
				return
			default:
				runtime.GC()
				n++
				_ = make([]byte, 1<<16) // Garbage.
			}
		}
	}()
	got := make(chan []byte)
	go func() { got <- readN(t, r.toCommand, len(flood)) }() // Ends at the watchdog at the latest.
	if out := readN(t, r.shown, len(flood)); !bytes.Equal(out, flood) {
		t.Error("the output did not come through whole")
	}
	if in := <-got; !bytes.Equal(in, flood) {
		t.Error("the input did not come through whole")
	}
	close(stop)
	if n := <-collected; n == 0 {
		t.Error("no collection ran beside the relay")
	}
}

// A source closed elsewhere (the PTY, when the terminal hangs up) ends
// its direction at once, though it waits in a read; the other goes on.
func TestRelaySourceClosedElsewhere(t *testing.T) {
	r := newRelayRig(t, nil)
	r.printed.Write([]byte("x"))
	readN(t, r.shown, 1)
	r.out.close()
	select {
	case err := <-r.outDone:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("the output ended with %v, want ErrClosed", err)
		}
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the output did not end after its file was closed")
	}
	r.typed.Write([]byte("on"))
	if got := readN(t, r.toCommand, 2); string(got) != "on" {
		t.Fatalf("input afterwards: %q", got)
	}
}

// The end of the output ends its direction; the input goes on.
func TestRelayOutputEnds(t *testing.T) {
	r := newRelayRig(t, nil)
	r.printed.Write([]byte("last"))
	r.printed.Close()
	if got := readN(t, r.shown, 4); string(got) != "last" {
		t.Fatalf("got %q", got)
	}
	select {
	case err := <-r.outDone:
		if !errors.Is(err, io.EOF) {
			t.Errorf("the output ended with %v, want EOF", err)
		}
	case <-time.After(ptytest.Watchdog):
		t.Fatal("the end of the output was not told")
	}
	r.typed.Write([]byte("still"))
	if got := readN(t, r.toCommand, 5); string(got) != "still" {
		t.Fatalf("input after the output's end: %q", got)
	}
}

// A keystroke through the relay's read and the pump allocates nothing.
func TestRelayKeystrokeAllocs(t *testing.T) {
	e, typed := testPipe(t, false, nil)
	inW, toCommand := testSink(t)
	p := newPump("input", identity{}, inW, nil)
	buf, key := make([]byte, ioBufSize), []byte("k")
	allocs := testing.AllocsPerRun(100, func() {
		typed.Write(key)
		n, _ := e.read(buf, time.Time{}, false)
		p.feed(buf[:n])
		toCommand.Read(buf)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per keystroke, want 0", allocs)
	}
}

// queuedIn is how many bytes the pipe that f reads holds.
func queuedIn(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if cerr := rc.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), ioctlInputQueued) }); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// queuedInPort is how many bytes the pipe that the port p reads holds.
func queuedInPort(t *testing.T, p *port) int {
	t.Helper()
	n := 0
	if err := p.control(func(fd int) (err error) { n, err = unix.IoctlGetInt(fd, ioctlInputQueued); return err }); err != nil {
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
			t.Fatalf("watchdog: waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A read waits for the filter's deadline, or for as long as it takes;
// for hotFor after bytes last came, for at most hotWait, and says so.
func TestRelayWaitUntil(t *testing.T) {
	now := time.Unix(1000, 0)
	soon, late := now.Add(2*time.Millisecond), now.Add(time.Hour)
	for _, c := range []struct {
		name       string
		due, moved time.Time
		wait       time.Time
		hot        bool
	}{
		{"nothing came yet, no deadline", time.Time{}, time.Time{}, time.Time{}, false},
		{"nothing came yet, a deadline", soon, time.Time{}, soon, false},
		{"bytes just came, no deadline", time.Time{}, now, now.Add(hotWait), true},
		{"bytes just came, a deadline sooner", soon, now, soon, false},
		{"bytes just came, a deadline later", late, now, now.Add(hotWait), true},
		{"bytes came a while ago", time.Time{}, now.Add(-hotFor), time.Time{}, false},
		{"bytes came a while ago, a deadline", late, now.Add(-hotFor), late, false},
	} {
		wait, hot := waitUntil(now, c.due, c.moved)
		if !wait.Equal(c.wait) || hot != c.hot {
			t.Errorf("%s: waitUntil = %v, %v; want %v, %v", c.name, wait, hot, c.wait, c.hot)
		}
	}
}
