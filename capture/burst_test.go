package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/bracketed"
	"github.com/pbwrap/pbwrap/store"
)

// Tests of pastes from a terminal that does not bracket them (issue 12):
// the input has no markers, and its timing makes a burst.

// burstRig is a rig whose reads come at chosen times, with Flush called
// at each deadline that passes before the next read, as ptyproxy does
// when nothing has arrived by then.
type burstRig struct {
	*rig
	deadline time.Time
	debug    []string
}

func newBurstRig(t *testing.T, mode BurstMode, childMode bool) *burstRig {
	t.Helper()
	b := &burstRig{}
	b.rig = newRig(t, Config{Burst: mode, Debugf: func(format string, args ...any) {
		b.debug = append(b.debug, fmt.Sprintf(format, args...))
	}})
	b.mode = childMode
	return b
}

// read passes in as one read, after lets time pass first.
func (b *burstRig) read(after time.Duration, in string) {
	b.t.Helper()
	b.wait(after)
	d, err := b.in.Filter(&b.child, []byte(in), b.now)
	if err != nil {
		b.t.Fatalf("Filter: %v", err)
	}
	b.deadline = d
}

// readChunks passes in as reads of size bytes, spacing apart.
func (b *burstRig) readChunks(in string, size int, spacing time.Duration) {
	b.t.Helper()
	for k := 0; len(in) > 0; k++ {
		n := min(size, len(in))
		if k > 0 {
			b.wait(spacing)
		}
		b.read(0, in[:n])
		in = in[n:]
	}
}

// wait lets d pass, calling Flush at each deadline on the way.
func (b *burstRig) wait(d time.Duration) {
	b.t.Helper()
	until := b.now.Add(d)
	for !b.deadline.IsZero() && !until.Before(b.deadline) {
		b.now = b.deadline
		next, err := b.in.Flush(&b.child, b.now)
		if err != nil {
			b.t.Fatalf("Flush: %v", err)
		}
		b.deadline = next
	}
	b.now = until
}

// bracket is s as a child with bracketed paste on (mode) receives a paste.
func bracket(mode bool, s string) string {
	if mode {
		return start + s + end
	}
	return s
}

// A large burst is saved and replaced by its reference, exactly as a
// bracketed paste: in one read, in VS Code's 50-byte reads 5 ms apart, in
// a terminal's 4 KiB reads at once.
func TestBurstLargeSaved(t *testing.T) {
	body := lines(600, "\r")
	for _, mode := range []bool{false, true} {
		for _, tc := range []struct {
			name    string
			size    int
			spacing time.Duration
		}{
			{"one read", len(body), 0},
			{"50 bytes every 5 ms", 50, 5 * time.Millisecond},
			{"4 KiB reads at once", 4096, 0},
		} {
			b := newBurstRig(t, BurstAuto, mode)
			b.read(0, "a")
			b.wait(time.Second)
			b.readChunks(body, tc.size, tc.spacing)
			if b.child.String() != "a" {
				t.Fatalf("mode %v, %s: the burst reached the child before its end: %.60q", mode, tc.name, b.child.String())
			}
			b.wait(bracketed.BurstGap)
			b.read(time.Second, "!")
			path := filepath.Join(b.sess.Dir, "paste-1.txt")
			ref := "[paste saved: " + path + "]"
			if got, want := b.child.String(), "a"+bracket(mode, ref)+"!"; got != want {
				t.Fatalf("mode %v, %s: child got %.200q, want %q", mode, tc.name, got, want)
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(text) != lines(600, "\n") {
				t.Errorf("mode %v, %s: the file differs from the text pasted", mode, tc.name)
			}
			m := b.manifest()
			if len(m.Pastes) != 1 || m.Pastes[0].Outcome != store.OutcomeSaved || !m.Pastes[0].Burst ||
				m.Pastes[0].Lines != 600 || m.Pastes[0].Bracketed != mode || m.Pastes[0].Reference != ref {
				t.Errorf("mode %v, %s: manifest %+v", mode, tc.name, m.Pastes)
			}
			if !strings.Contains(strings.Join(b.debug, "\n"), "burst") {
				t.Errorf("mode %v, %s: the debug log does not say it was a burst: %q", mode, tc.name, b.debug)
			}
		}
	}
}

// A small burst with a newline is one bracketed paste for a child with
// bracketed paste on, so that its newlines do not submit, and as it came
// for one without; one without a newline (an input method committing a
// phrase) is as it came for both. It is held until BurstGap after its last
// input, and no longer.
func TestBurstSmall(t *testing.T) {
	for _, tc := range []struct {
		body    string
		newline bool
	}{
		{"one\rtwo\rthree", true},
		{"ls -la\r", true},
		{"a\nb", true},
		{"日本語の文", false},
		{"abc", false},
	} {
		for _, mode := range []bool{false, true} {
			b := newBurstRig(t, BurstAuto, mode)
			b.read(0, tc.body)
			b.wait(bracketed.BurstGap - time.Millisecond)
			if b.child.Len() != 0 {
				t.Errorf("%q, mode %v: delivered before BurstGap: %q", tc.body, mode, b.child.String())
			}
			b.wait(time.Millisecond)
			want := tc.body
			if tc.newline {
				want = bracket(mode, tc.body)
			}
			if got := b.child.String(); got != want {
				t.Errorf("%q, mode %v: child got %q, want %q", tc.body, mode, got, want)
			}
		}
	}
}

// Typing is never held: each key reaches the child in the call that
// reads it, and no deadline is asked for. Keys 30 ms apart (key repeat)
// and 120 ms apart, and two keys sharing a read, are typing.
func TestBurstTypingNotHeld(t *testing.T) {
	for _, spacing := range []time.Duration{30 * time.Millisecond, 120 * time.Millisecond} {
		b := newBurstRig(t, BurstAuto, true)
		typed := ""
		for _, key := range []string{"l", "s", " ", "-", "l", "a", "é", "\r", "s\r"} {
			b.read(spacing, key)
			typed += key
			if got := b.child.String(); got != typed || !b.deadline.IsZero() {
				t.Fatalf("%v apart, key %q: child got %q, deadline %v; want %q at once, no deadline", spacing, key, got, b.deadline, typed)
			}
		}
		if b.sess != nil {
			if m := b.manifest(); len(m.Pastes) != 0 {
				t.Errorf("%v apart: manifest %+v, want no paste", spacing, m.Pastes)
			}
		}
	}
}

// Keys are never part of a burst: a key during a burst ends it, and
// reaches the child at once, after it; after a burst, keys are typing.
func TestBurstKeys(t *testing.T) {
	for _, mode := range []bool{false, true} {
		b := newBurstRig(t, BurstAuto, mode)
		b.read(0, "one\rtwo")
		b.read(time.Millisecond, "\x1b[A")
		want := bracket(mode, "one\rtwo") + "\x1b[A"
		if got := b.child.String(); got != want {
			t.Fatalf("mode %v: arrow during a burst: child got %q, want %q at once", mode, got, want)
		}
		b.read(time.Millisecond, "three\rfour")
		b.read(time.Millisecond, "\x1b") // The Esc key: the parser holds it for EscHold.
		b.wait(bracketed.EscHold)
		want += bracket(mode, "three\rfour") + "\x1b"
		if got := b.child.String(); got != want {
			t.Fatalf("mode %v: Esc during a burst: child got %q, want %q", mode, got, want)
		}
		b.read(time.Second, "\x1b")
		b.wait(bracketed.EscHold)
		b.read(time.Second, "\x1b[B")
		b.read(time.Second, "\x03")
		want += "\x1b\x1b[B\x03"
		if got := b.child.String(); got != want || !b.deadline.IsZero() {
			t.Errorf("mode %v: keys after a burst: child got %q, deadline %v; want %q, none", mode, got, b.deadline, want)
		}
	}
}

// In auto mode a terminal that brackets a paste brackets them all: from
// its first bracketed paste on, fast input is typing. On keeps taking
// bursts for pastes; off never does.
func TestBurstModes(t *testing.T) {
	for _, tc := range []struct {
		mode         BurstMode
		before       bool // a burst before the bracketed paste is one
		after        bool // ... and one after it
		debugSaysOff bool
	}{
		{BurstAuto, true, false, true},
		{BurstOn, true, true, false},
		{BurstOff, false, false, false},
	} {
		b := newBurstRig(t, tc.mode, true)
		b.read(0, "one\rtwo")
		b.wait(bracketed.BurstGap)
		b.read(time.Second, start+"pasted"+end)
		b.read(time.Second, "three\rfour")
		b.wait(bracketed.BurstGap)
		want := bracket(tc.before, "one\rtwo") + start + "pasted" + end + bracket(tc.after, "three\rfour")
		if got := b.child.String(); got != want {
			t.Errorf("%v: child got %q, want %q", tc.mode, got, want)
		}
		if got := strings.Contains(strings.Join(b.debug, "\n"), "brackets pastes"); got != tc.debugSaysOff {
			t.Errorf("%v: the debug log says bursts are off: %v, want %v (%q)", tc.mode, got, tc.debugSaysOff, b.debug)
		}
	}
}

// A burst open when a bracketed paste or a stray end marker comes ends
// first: the order is kept.
func TestBurstThenMarkers(t *testing.T) {
	b := newBurstRig(t, BurstOn, true)
	b.read(0, "one\rtwo")
	b.read(time.Millisecond, start+"x\ry"+end+"three\rfour")
	b.read(time.Millisecond, end+"z")
	want := start + "one\rtwo" + end + start + "x\ry" + end + start + "three\rfour" + end + "z"
	if got := b.child.String(); got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
}

// A burst still arriving when the child ends is read to its end, saved
// whatever its size and delivered nowhere, like a bracketed paste.
func TestBurstChildEnds(t *testing.T) {
	b := newBurstRig(t, BurstAuto, true)
	b.read(0, "x")
	b.read(time.Second, "one\rtwo\r")
	if !b.in.Pending() {
		t.Fatal("Pending() = false in a burst")
	}
	b.in.CommandEnded()
	b.read(5*time.Millisecond, "rest\r")
	b.wait(bracketed.BurstGap - time.Millisecond)
	if !b.in.Pending() {
		t.Fatal("Pending() = false before the burst's end")
	}
	b.wait(time.Millisecond)
	if b.in.Pending() {
		t.Error("Pending() = true after the burst's end")
	}
	if got := b.child.String(); got != "x" {
		t.Errorf("the child got %q, want only %q from before it ended", got, "x")
	}
	orphans := b.in.Orphans()
	if len(orphans) != 1 || orphans[0].Path == "" {
		t.Fatalf("orphans %+v, want one saved", orphans)
	}
	if text, err := os.ReadFile(orphans[0].Path); err != nil || string(text) != "one\ntwo\nrest\n" {
		t.Errorf("saved %q (%v), want the burst", text, err)
	}
}

// A large burst pasted again within the repeat window goes inline, as a
// paste, like a bracketed one.
func TestBurstRepeat(t *testing.T) {
	body := lines(300, "\r")
	b := newBurstRig(t, BurstAuto, true)
	b.read(0, body)
	b.wait(bracketed.BurstGap)
	first := b.child.String()
	b.child.Reset()
	b.read(10*time.Second, body)
	b.wait(bracketed.BurstGap)
	if got, want := b.child.String(), bracket(true, body); got != want {
		t.Errorf("second burst within a minute: child got %.80q, want the text as a paste", got)
	}
	if !strings.HasPrefix(first, start+"[paste saved: ") {
		t.Errorf("first burst: child got %q, want a reference", first)
	}
	m := b.manifest()
	if len(m.Pastes) != 2 || m.Pastes[0].Outcome != store.OutcomeSaved || m.Pastes[1].Outcome != store.OutcomeInline ||
		!m.Pastes[0].Burst || !m.Pastes[1].Burst {
		t.Errorf("manifest %+v", m.Pastes)
	}
}

// When the store fails, a large burst reaches the child exactly as the
// terminal sent it, as a paste.
func TestBurstStoreFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []bool{false, true} {
		b := newBurstRig(t, BurstAuto, mode)
		b.root = filepath.Join(file, "root")
		body := lines(300, "\r")
		b.readChunks(body, 50, 5*time.Millisecond)
		b.wait(bracketed.BurstGap)
		if got, want := b.child.String(), bracket(mode, body); got != want {
			t.Errorf("mode %v: child got %d bytes, want the %d pasted", mode, len(got), len(want))
		}
	}
}

func TestParseBurstMode(t *testing.T) {
	for _, m := range []BurstMode{BurstAuto, BurstOn, BurstOff} {
		got, err := ParseBurstMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseBurstMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if _, err := ParseBurstMode("yes"); err == nil || !strings.Contains(err.Error(), "want auto, on or off") {
		t.Errorf("ParseBurstMode(yes) = %v, want an error", err)
	}
}
