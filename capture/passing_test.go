package capture

import (
	"bytes"
	"testing"
	"time"
)

// passingGaps are the times between two reads the fuzzer picks from:
// around the burst detector's and the parser's thresholds, and well past
// them.
var passingGaps = []time.Duration{
	0, time.Microsecond, time.Millisecond, 5 * time.Millisecond,
	8*time.Millisecond - time.Microsecond, 8 * time.Millisecond, 8*time.Millisecond + time.Microsecond,
	10 * time.Millisecond, 11 * time.Millisecond, 25 * time.Millisecond, 26 * time.Millisecond,
	200 * time.Millisecond, 3 * time.Second,
}

// plainChars returns the characters of b, and whether it is plain text,
// as ptyproxy.Passer defines them: no ESC; characters are the bytes that
// do not continue a UTF-8 sequence.
func plainChars(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c == 0x1b {
			return 0, false
		}
		if c&0xc0 != 0x80 {
			n++
		}
	}
	return n, true
}

// readsOf cuts in into reads: each byte of cuts, in turn and cycling,
// gives the length of the next, from 1 to 16 (all of in at once without
// cuts), as bracketed's fuzz tests do.
func readsOf(in, cuts []byte) [][]byte {
	var reads [][]byte
	for k := 0; len(in) > 0; k++ {
		n := len(in)
		if len(cuts) > 0 {
			n = min(n, int(cuts[k%len(cuts)]%16)+1)
		}
		reads = append(reads, in[:n])
		in = in[n:]
	}
	return reads
}

// FuzzInputPassing holds Input to its word as a ptyproxy.Passer: whenever
// Passing says that the next call passes plain text of up to n
// characters (n > 0: 0 passes nothing), a Filter call with such text, whatever its time, writes
// exactly that text and nothing else. The input is cut into reads (cuts,
// as in bracketed's fuzz tests) spaced by gaps (passingGaps), with Flush
// at every deadline on the way, or, for a gap byte of 128 or more, none
// (the proxy may read before it flushes), in each burst mode, with the
// child's bracketed paste on or off; a gap byte of 255 ends the command
// there.
func FuzzInputPassing(f *testing.F) {
	for _, s := range []string{
		"hello", "ab", "a\x7fb\rc", "é漢x", "abc\r", "\x1b[Ax", "\x1b", "\x1bx",
		start + "pasted" + end + "typed", start + "cut", "x" + end + "y",
		"\x1b]52;c;?\x07z", "\x1b[<0;1;2Mq", lines(300, "\r"),
	} {
		f.Add([]byte(s), []byte{0}, []byte{11}, byte(0))
		f.Add([]byte(s), []byte{1, 0, 2}, []byte{0, 5, 1, 11}, byte(1))
		f.Add([]byte(s), []byte{0}, []byte{6, 255, 3}, byte(6))
	}
	f.Fuzz(func(t *testing.T, in, cuts, gaps []byte, mode byte) {
		b := newBurstRig(t, []BurstMode{BurstAuto, BurstOn, BurstOff}[int(mode)%3], mode&4 != 0)
		b.root = fastTempDir(t)
		for k, chunk := range readsOf(in, cuts) {
			if len(gaps) > 0 {
				g := gaps[k%len(gaps)]
				if g == 255 {
					b.in.CommandEnded()
				}
				if d := passingGaps[int(g)%len(passingGaps)]; g < 128 {
					b.wait(d)
				} else {
					b.now = b.now.Add(d) // No Flush, however late.
				}
			}
			chars, plain := plainChars(chunk)
			pass := b.in.Passing()
			ahead := pass > 0 && plain && chars <= pass
			before := b.child.Len()
			d, err := b.in.Filter(&b.child, chunk, b.now)
			if err != nil {
				t.Fatalf("Filter: %v", err)
			}
			if !d.IsZero() && d.Before(b.now) {
				d = b.now // A deadline missed is flushed at the next wait.
			}
			b.deadline = d
			if got := b.child.Bytes()[before:]; ahead && !bytes.Equal(got, chunk) {
				t.Fatalf("read %d: Passing said %q would pass, and the child got %q", k, chunk, got)
			}
		}
	})
}

// Typing passes, any number of keys, where the terminal marks pastes; a
// paste does not, nor does what may start one, nor anything where Input
// looks for unmarked pastes (it holds every byte then).
func TestInputPassing(t *testing.T) {
	b := newAskingRig(t, BurstAuto, false)
	b.read(0, "\x1b[?2004;1$y\x1b[?1;2c")
	if n := b.in.Passing(); n < 1<<30 {
		t.Errorf("the terminal marks pastes: Passing = %d, want any number", n)
	}
	b.read(0, "a")
	if n := b.in.Passing(); n < 1<<30 {
		t.Errorf("after a key: Passing = %d, want any number", n)
	}
	if n := newAskingRig(t, BurstAuto, false).in.Passing(); n != 0 {
		t.Errorf("the answer not in yet: Passing = %d, want 0 (the time of the input decides)", n)
	}
	h := newAskingRig(t, BurstAuto, false)
	h.read(0, "\x1b[?20")
	if n := h.in.Passing(); n != 0 {
		t.Errorf("an answer's start held: Passing = %d, want 0", n)
	}
	if n := newBurstRig(t, BurstAuto, false).in.Passing(); n != 0 {
		t.Errorf("looking for unmarked pastes: Passing = %d, want 0", n)
	}
	b.read(0, "\x1b")
	if n := b.in.Passing(); n != 0 {
		t.Errorf("with an ESC held: Passing = %d, want 0", n)
	}
	b.read(0, "[200~x")
	if n := b.in.Passing(); n != 0 {
		t.Errorf("in a paste: Passing = %d, want 0", n)
	}
	off := newBurstRig(t, BurstOff, false)
	if n := off.in.Passing(); n < 1<<30 {
		t.Errorf("bursts off: Passing = %d, want any number", n)
	}
	off.in.CommandEnded()
	if n := off.in.Passing(); n != 0 {
		t.Errorf("after the command ended: Passing = %d, want 0", n)
	}
}

// FuzzOutputPassing holds Output to its word as a ptyproxy.Passer, over
// output cut into reads at random (cuts): plain text it says it passes
// reaches the terminal exactly, whatever sequences came before.
func FuzzOutputPassing(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b[?2004h text \x1b[?2004l", "\x1b[?1049h\x1b[2J screen", "\x1b]52;c;?\x07after",
		"\x1b]0;title\x1b\\rest", "\x1b[38;5;1mred\x1b[0m", "\x1b[?25l\x1b[?1000h", "é漢\x1b[?2004", "x\x1b",
	} {
		f.Add([]byte(s), []byte{0})
		f.Add([]byte(s), []byte{1, 3, 0})
	}
	f.Fuzz(func(t *testing.T, in, cuts []byte) {
		o := NewOutput(OutputConfig{})
		var term bytes.Buffer
		for k, chunk := range readsOf(in, cuts) {
			chars, plain := plainChars(chunk)
			pass := o.Passing()
			ahead := pass > 0 && plain && chars <= pass
			before := term.Len()
			if _, err := o.Filter(&term, chunk, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if got := term.Bytes()[before:]; ahead && !bytes.Equal(got, chunk) {
				t.Fatalf("read %d: Passing said %q would pass, and the terminal got %q", k, chunk, got)
			}
		}
	})
}
