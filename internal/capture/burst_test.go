package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// Tests of pastes from a terminal that does not mark them: the input has
// no markers, and its timing and size make a paste (termproto.Burst).

// burstRig is a rig whose reads come at chosen times, with Flush called
// at each deadline that passes before the next read, as ptyproxy does
// when nothing has arrived by then.
type burstRig struct {
	*rig
	deadline time.Time
	debug    []string
}

// newBurstRig is a rig whose Input looks for unmarked pastes: with
// BurstAuto, it has asked the terminal, which answered that it does not
// mark pastes.
func newBurstRig(t *testing.T, mode BurstMode, childMode bool) *burstRig {
	t.Helper()
	b := newAskingRig(t, mode, childMode)
	if mode == BurstAuto {
		b.read(0, "\x1b[?2004;0$y\x1b[?62;22c")
	}
	return b
}

// newAskingRig is a rig that has asked the terminal, with BurstAuto.
func newAskingRig(t *testing.T, mode BurstMode, childMode bool) *burstRig {
	t.Helper()
	b := &burstRig{}
	b.rig = newRig(t, Config{Burst: mode, Debugf: func(format string, args ...any) {
		b.debug = append(b.debug, fmt.Sprintf(format, args...))
	}})
	b.mode = childMode
	if q := b.in.Ask(b.now); (mode == BurstAuto) != (string(q) == termproto.Question) {
		t.Fatalf("Ask with %v = %q", mode, q)
	}
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

// A large unmarked paste is saved whole and replaced by its reference,
// exactly as a marked one, however the terminal chunks and paces it: in
// one read, in 4 KiB reads at once, in GNU screen's 4,095 bytes and a byte
// right after, 1 KB every 20 ms, 64 bytes every 5 ms; a key typed before
// it is typed.
func TestBurstLargeSaved(t *testing.T) {
	body := lines(600, "\r")
	for _, mode := range []bool{false, true} {
		for _, tc := range []struct {
			name    string
			size    int
			spacing time.Duration
		}{
			{"one read", len(body), 0},
			{"4 KiB reads at once", 4096, 0},
			{"1 KB every 20 ms", 1024, 20 * time.Millisecond},
			{"64 bytes every 5 ms", 64, 5 * time.Millisecond},
			{"screen's 4,095 and a byte", 0, 0},
		} {
			b := newBurstRig(t, BurstAuto, mode)
			b.read(0, "a")
			b.wait(time.Second)
			if tc.size == 0 {
				for p := body; len(p) > 0; {
					n := min(4095, len(p))
					b.read(20*time.Microsecond, p[:n])
					p = p[n:]
					if len(p) > 0 {
						b.read(20*time.Microsecond, p[:1])
						p = p[1:]
					}
				}
			} else {
				b.readChunks(body, tc.size, tc.spacing)
			}
			if b.child.String() != "a" {
				t.Fatalf("mode %v, %s: the paste reached the child before its end: %.60q", mode, tc.name, b.child.String())
			}
			b.wait(termproto.BurstGap)
			b.read(time.Second, "!")
			b.wait(time.Second)
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

// The mis-framings of the detector that held every key: a 100 KB paste
// arriving 1 KB every 20 ms was typed as its thousands of lines, each
// Entered (what was held went on at every 16 ms pause); a key typed 5 ms
// before an unmarked paste, and an Enter typed 5 ms after it, were saved
// inside the file. Now the paste is one file, the key reaches the child
// before it, and the Enter after its reference.
func TestBurstPacedPasteWithKeys(t *testing.T) {
	var text strings.Builder
	for i := 0; text.Len() < 100<<10; i++ {
		fmt.Fprintf(&text, "%05d the quick brown fox jumps\r", i)
	}
	body := text.String()
	for _, mode := range []bool{false, true} {
		b := newBurstRig(t, BurstAuto, mode)
		b.read(time.Second, "k")
		if got := b.child.String(); got != "k" {
			t.Fatalf("mode %v: the key typed before the paste: child got %q, want it at once", mode, got)
		}
		b.wait(5 * time.Millisecond)
		b.readChunks(body, 1024, 20*time.Millisecond)
		b.read(5*time.Millisecond, "\r")
		path := filepath.Join(b.sess.Dir, "paste-1.txt")
		want := "k" + bracket(mode, "[paste saved: "+path+"]") + "\r"
		if got := b.child.String(); got != want {
			t.Fatalf("mode %v: child got %.120q, want %q the moment the Enter came", mode, got, want)
		}
		saved, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(saved) != strings.ReplaceAll(body, "\r", "\n") {
			t.Errorf("mode %v: the file holds %d bytes, want the %d pasted and nothing typed", mode, len(saved), len(body))
		}
	}
}

// Typing reaches the child as it is read, in any rhythm, before any
// deadline: keys 1 and 20 ms apart, a program's keys, clumps, a line in
// one read, an input method's phrase, arrows. No key waits.
func TestBurstTyping(t *testing.T) {
	line := "git commit -m 'fix the thing'\r"
	for _, tc := range []struct {
		name    string
		in      string
		size    int
		spacing time.Duration
	}{
		{"20 ms apart", line, 1, 20 * time.Millisecond},
		{"4 ms apart", line, 1, 4 * time.Millisecond},
		{"a program, 1 ms apart", line, 1, time.Millisecond},
		{"a program, 0.1 ms apart", line, 1, 100 * time.Microsecond},
		{"clumps of 5, 30 ms apart", line, 5, 30 * time.Millisecond},
		{"the line in one read", line, len(line), 0},
		{"an input method's phrase", "日本語の文", 100, 0},
		{"arrows and Enter", "\x1b[A\x1b[B\r", 100, 0},
	} {
		b := newBurstRig(t, BurstAuto, true)
		for k, p := 0, tc.in; len(p) > 0; k++ {
			n := min(tc.size, len(p))
			b.read(tc.spacing, p[:n])
			if got, want := b.child.String(), tc.in[:len(tc.in)-len(p)+n]; got != want {
				t.Fatalf("%s: after read %d the child has %q, want %q: a key was held", tc.name, k, got, want)
			}
			p = p[n:]
		}
		if !b.deadline.IsZero() {
			t.Errorf("%s: a deadline is owed after typing (%v): something is held", tc.name, b.deadline)
		}
	}
}

// What is no one's typing but stays small (a few lines in one read, a read
// longer than a line) reaches the child exactly as it came, never in paste
// markers, once the terminal has paused the gap, and no later; or at once
// when a key comes, before the key.
func TestBurstSmall(t *testing.T) {
	for _, body := range []string{"one\rtwo\rthree", "a\nb", strings.Repeat("x", termproto.LineBytes+1)} {
		for _, mode := range []bool{false, true} {
			b := newBurstRig(t, BurstAuto, mode)
			b.read(0, body)
			b.wait(termproto.BurstGap - time.Millisecond)
			if b.child.Len() != 0 {
				t.Errorf("%.20q, mode %v: delivered before the gap: %q", body, mode, b.child.String())
			}
			b.wait(time.Millisecond)
			if got := b.child.String(); got != body {
				t.Errorf("%.20q, mode %v: child got %q, want it as it came", body, mode, got)
			}
			b = newBurstRig(t, BurstAuto, mode)
			b.read(0, body)
			b.read(10*time.Millisecond, "y")
			if got := b.child.String(); got != body+"y" {
				t.Errorf("%.20q, mode %v, then a key: child got %q, want both at the key", body, mode, got)
			}
		}
	}
}

// A front end known to pause within its pastes (GNU screen 4, for up to
// 200 ms) gets a longer gap: a paste pausing so stays one.
func TestBurstGapOfTheFrontEnd(t *testing.T) {
	b := &burstRig{}
	b.rig = newRig(t, Config{Burst: BurstAuto, Marks: MarksNo, BurstGap: 300 * time.Millisecond})
	body := lines(600, "\r")
	b.read(0, body[:len(body)/2])
	b.read(200*time.Millisecond, body[len(body)/2:])
	b.wait(300 * time.Millisecond)
	path := filepath.Join(b.sess.Dir, "paste-1.txt")
	if got := b.child.String(); got != "[paste saved: "+path+"]" {
		t.Fatalf("child got %.100q, want one reference", got)
	}
}

// In auto mode a terminal that marks a paste marks them all: from its
// first marked paste on, unmarked input is typing. On keeps looking; off
// never does.
func TestBurstModes(t *testing.T) {
	large := lines(300, "\r")
	for _, tc := range []struct {
		mode          BurstMode
		before, after bool // a large paste before the marked one is saved, and one after it
		debugSaysOff  bool
	}{
		{BurstAuto, true, false, true},
		{BurstOn, true, true, false},
		{BurstOff, false, false, false},
	} {
		b := newBurstRig(t, tc.mode, true)
		b.read(0, large)
		b.wait(termproto.BurstGap)
		b.read(time.Second, start+"pasted"+end)
		b.read(time.Second, lines(400, "\r"))
		b.wait(termproto.BurstGap)
		got := b.child.String()
		if saved := strings.HasPrefix(got, start+"[paste saved: "); saved != tc.before {
			t.Errorf("%v: the first large paste saved %v, want %v (%.80q)", tc.mode, saved, tc.before, got)
		}
		if saved := strings.HasSuffix(got, ".txt]"+end); saved != tc.after {
			t.Errorf("%v: the second large paste saved %v, want %v (%.80q)", tc.mode, saved, tc.after, got[max(0, len(got)-80):])
		}
		if got := strings.Contains(strings.Join(b.debug, "\n"), "marks pastes: unmarked input is typing"); got != tc.debugSaysOff {
			t.Errorf("%v: the debug log says looking stopped: %v, want %v (%q)", tc.mode, got, tc.debugSaysOff, b.debug)
		}
	}
}

// What the terminal answers decides, and never reaches the child: marks
// (DECRQM 1 or 3) means typing from the first byte; does not mark (0, 2,
// 4), DA1 alone, or silence for AnswerWait means looking. A late answer
// still counts; the environment's word needs no question.
func TestBurstAnswers(t *testing.T) {
	large := lines(300, "\r")
	for _, tc := range []struct {
		name   string
		answer string
		after  time.Duration // before the paste
		looks  bool
	}{
		{"marks", "\x1b[?2004;1$y\x1b[?1;2c", 0, false},
		{"marks, permanently", "\x1b[?2004;3$y\x1b[?1;2c", 0, false},
		{"does not know the mode", "\x1b[?2004;0$y\x1b[?1;2c", time.Second, true},
		{"reset", "\x1b[?2004;2$y\x1b[?1;2c", time.Second, true},
		{"DA1 alone", "\x1b[?64;1;2c", time.Second, true},
		{"silence", "", AnswerWait + time.Second, true},
		{"not yet: typing", "", AnswerWait - time.Millisecond, false},
		{"a late answer", "\x1b[?2004;1$y", AnswerWait + time.Second, false},
	} {
		b := newAskingRig(t, BurstAuto, true)
		if tc.name == "a late answer" {
			b.wait(AnswerWait)
		}
		b.read(0, "x"+tc.answer+"y")
		b.wait(tc.after)
		b.read(0, large)
		b.wait(termproto.BurstGap)
		got := b.child.String()
		if !strings.HasPrefix(got, "xy") || strings.Contains(got, "$y") || strings.Contains(got, "\x1b[?") {
			t.Errorf("%s: the child got %.40q: the answer reached it, or the keys did not", tc.name, got)
		}
		if saved := strings.Contains(got, "[paste saved: "); saved != tc.looks {
			t.Errorf("%s: the large unmarked paste was saved %v, want %v", tc.name, saved, tc.looks)
		}
	}
	b := newRig(t, Config{Burst: BurstAuto, Marks: MarksYes})
	if q := b.in.Ask(b.now); q != nil {
		t.Errorf("MarksYes: Ask = %q, want nothing", q)
	}
}

// What the front end is known to do decides before the terminal answers:
// where it marks pastes (tmux, found by its process too) a large unmarked
// paste is typing, and nothing is asked; where it does not (GNU screen 4,
// the Linux console), pbwrap looks from the first byte, and still asks,
// since the terminal's own answer goes first.
func TestBurstFrontEnd(t *testing.T) {
	large := lines(300, "\r")
	for _, tc := range []struct {
		name   string
		marks  Marks
		answer string
		looks  bool
	}{
		{"marks", MarksYes, "", false},
		{"does not mark, no answer yet", MarksNo, "", true},
		{"does not mark, the terminal says it does not say", MarksNo, "\x1b[?1;2c", true},
		{"does not mark, but the terminal says it marks", MarksNo, "\x1b[?2004;1$y\x1b[?1;2c", false},
		{"not known, no answer yet", MarksUnknown, "", false},
	} {
		b := &burstRig{}
		b.rig = newRig(t, Config{Burst: BurstAuto, Marks: tc.marks})
		if q := b.in.Ask(b.now); (q != nil) != (tc.marks != MarksYes) {
			t.Errorf("%s: Ask = %q", tc.name, q)
		}
		b.read(0, tc.answer)
		b.read(time.Millisecond, large)
		b.wait(termproto.BurstGap)
		if saved := strings.Contains(b.child.String(), "[paste saved: "); saved != tc.looks {
			t.Errorf("%s: the large unmarked paste was saved %v, want %v", tc.name, saved, tc.looks)
		}
	}
}

// A paste held when a marked paste or a stray end marker comes goes on
// first: the order is kept.
func TestBurstThenMarkers(t *testing.T) {
	b := newBurstRig(t, BurstOn, true)
	b.read(0, "one\rtwo")
	b.read(time.Millisecond, start+"x\ry"+end+"three\rfour")
	b.read(time.Millisecond, end+"z")
	b.wait(termproto.BurstGap)
	want := "one\rtwo" + start + "x\ry" + end + "three\rfour" + "z"
	if got := b.child.String(); got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
}

// A large paste still arriving when the child ends is read to its end,
// saved and delivered nowhere, like a marked one.
func TestBurstChildEnds(t *testing.T) {
	b := newBurstRig(t, BurstAuto, true)
	b.read(0, "x")
	b.wait(time.Second)
	body := lines(300, "\r")
	b.read(time.Second, body[:1000])
	if !b.in.Pending() {
		t.Fatal("Pending() = false in a paste")
	}
	b.in.CommandEnded()
	b.read(5*time.Millisecond, body[1000:])
	b.wait(termproto.BurstGap - time.Millisecond)
	if !b.in.Pending() {
		t.Fatal("Pending() = false before the paste's end")
	}
	b.wait(time.Millisecond)
	if b.in.Pending() {
		t.Error("Pending() = true after the paste's end")
	}
	if got := b.child.String(); got != "x" {
		t.Errorf("the child got %q, want only %q from before it ended", got, "x")
	}
	orphans := b.in.Orphans()
	if len(orphans) != 1 || orphans[0].Path == "" {
		t.Fatalf("orphans %+v, want one saved", orphans)
	}
	if text, err := os.ReadFile(orphans[0].Path); err != nil || string(text) != lines(300, "\n") {
		t.Errorf("saved %d bytes (%v), want the paste", len(text), err)
	}
}

// A large unmarked paste pasted again within the repeat window goes
// inline, as a paste, like a marked one.
func TestBurstRepeat(t *testing.T) {
	body := lines(300, "\r")
	b := newBurstRig(t, BurstAuto, true)
	b.read(0, body)
	b.wait(termproto.BurstGap)
	first := b.child.String()
	b.child.Reset()
	b.read(10*time.Second, body)
	b.wait(termproto.BurstGap)
	if got, want := b.child.String(), bracket(true, body); got != want {
		t.Errorf("second paste within a minute: child got %.80q, want the text as a paste", got)
	}
	if !strings.HasPrefix(first, start+"[paste saved: ") {
		t.Errorf("first paste: child got %q, want a reference", first)
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
		b.wait(termproto.BurstGap + NoteGap)
		if got, want := b.child.String(), bracket(mode, body)+bracket(mode, UnsavedNote("a part of the root's path is not a directory")); got != want {
			t.Errorf("mode %v: child got %d bytes, want the %d pasted and the note: %q", mode, len(got), len(want), tail(got))
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

// The terminal's answer for mode 12, a blinking cursor, goes once to
// Config.CursorBlink, for the output filter's reset; it never reaches the
// child.
func TestCursorBlinkAnswer(t *testing.T) {
	var heard []byte
	b := &burstRig{}
	b.rig = newRig(t, Config{Burst: BurstAuto, CursorBlink: func(a byte) { heard = append(heard, a) }})
	if q := b.in.Ask(b.now); string(q) != termproto.Question {
		t.Fatalf("Ask = %q", q)
	}
	b.read(0, "x\x1b[?2004;1$y\x1b[?12;2$y")
	b.read(0, "\x1b[?64;1;2c\x1b[?12;1$yy")
	if string(heard) != string(termproto.ModeReset) {
		t.Errorf("CursorBlink heard %q, want %q once", heard, termproto.ModeReset)
	}
	if got := b.child.String(); got != "x\x1b[?12;1$yy" {
		t.Errorf("the child got %q: want the keys, and the answer after DA1, which is the child's", got)
	}
}

// When pbwrap's own work on a read of a paste outlasts the gap (a slow
// disk, a descheduled thread), what came meanwhile was waiting, not a
// pause of the terminal's: the paste stays open until pbwrap could read
// for the gap, and a Flush at the old deadline (a relay whose read gave up
// at it) does not end it.
func TestBurstBusyCaller(t *testing.T) {
	b := newBurstRig(t, BurstAuto, false)
	body := lines(600, "\r")
	half := len(body) / 2
	b.in.clock = func() time.Time { return b.now.Add(150 * time.Millisecond) } // Each read's work takes 150 ms.
	b.read(0, body[:half])
	b.in.clock = func() time.Time { return b.now }
	if _, err := b.in.Flush(&b.child, b.now.Add(termproto.BurstGap)); err != nil {
		t.Fatal(err)
	}
	b.now = b.now.Add(151 * time.Millisecond)
	b.read(0, body[half:])
	b.wait(termproto.BurstGap)
	path := filepath.Join(b.sess.Dir, "paste-1.txt")
	if got := b.child.String(); got != "[paste saved: "+path+"]" {
		t.Fatalf("child got %.100q, want one reference", got)
	}
}
