package termproto

import (
	"bytes"
	"testing"
)

var repliesTests = []struct {
	name, in, pass string
	mode           byte
	da1            bool
	blink          byte
}{
	{"both answers", "\x1b[?2004;1$y\x1b[?62;22c", "", ModeSet, true, 0},
	{"xterm's answers", "\x1b[?2004;1$y\x1b[?12;2$y\x1b[?64;1;2;6;9;15;18;21;22c", "", ModeSet, true, ModeReset},
	{"a second 12 answer is the program's", "\x1b[?12;1$y\x1b[?12;2$y", "\x1b[?12;2$y", 0, false, ModeSet},
	{"keys around them pass", "a\x1b[?2004;2$yb\x1b[?1;2cc", "abc", ModeReset, true, 0},
	{"DA1 alone", "\x1b[?64;1;2;6;9;15;18;21;22c", "", ModeUnanswered, true, 0},
	{"after DA1 nothing is taken", "\x1b[?1;2c\x1b[?2004;1$y\x1b[?1;2c", "\x1b[?2004;1$y\x1b[?1;2c", ModeUnanswered, true, 0},
	{"a marked paste, an arrow, a lone Esc pass", "\x1b[200~x\x1b[201~\x1b[A\x1b", "\x1b[200~x\x1b[201~\x1b[A\x1b", 0, false, 0},
	{"another mode's answer is the program's", "\x1b[?1049;1$y\x1b[?2004;3$y", "\x1b[?1049;1$y", ModePermanentSet, false, 0},
	{"a second 2004 answer is the program's", "\x1b[?2004;0$y\x1b[?2004;1$y", "\x1b[?2004;1$y", ModeNotRecognized, false, 0},
	{"a digit out of range is no answer", "\x1b[?2004;7$y", "\x1b[?2004;7$y", 0, false, 0},
	{"a control character inside is no answer", "\x1b[?2004;\x031$y", "\x1b[?2004;\x031$y", 0, false, 0},
	{"ESC restarts", "\x1b[?20\x1b[?2004;1$y", "\x1b[?20", ModeSet, false, 0},
	{"DA2 and CPR pass", "\x1b[>41;3c\x1b[12;1R", "\x1b[>41;3c\x1b[12;1R", 0, false, 0},
	{"CSI ? c with no parameter is no DA1", "\x1b[?c", "\x1b[?c", 0, false, 0},
}

// Every case at every split, the answers out and the rest through, in
// order.
func TestReplies(t *testing.T) {
	for _, tt := range repliesTests {
		for n := 1; n <= len(tt.in); n++ {
			var r Replies
			r.Ask()
			var out []byte
			now := epoch
			for rest := tt.in; len(rest) > 0; rest = rest[min(n, len(rest)):] {
				out, _ = r.Write(out, []byte(rest[:min(n, len(rest))]), now)
			}
			out, _ = r.Flush(out, now.Add(EscHold))
			if string(out) != tt.pass || r.Mode() != tt.mode || r.AnsweredDA1() != tt.da1 || r.Blink() != tt.blink {
				t.Errorf("%s, reads of %d: passed %q, mode %q, DA1 %v, blink %q; want %q, %q, %v, %q",
					tt.name, n, out, r.Mode(), r.AnsweredDA1(), r.Blink(), tt.pass, tt.mode, tt.da1, tt.blink)
			}
		}
	}
}

// Not asked, Replies takes nothing; a hold waits EscHold at most; Stop
// gives back what is held.
func TestRepliesHold(t *testing.T) {
	var r Replies
	if out, d := r.Write(nil, []byte("\x1b[?2004;1$y"), epoch); string(out) != "\x1b[?2004;1$y" || !d.IsZero() {
		t.Errorf("not asked: passed %q, deadline %v", out, d)
	}
	r.Ask()
	out, d := r.Write(nil, []byte("x\x1b[?20"), epoch)
	if string(out) != "x" || !d.Equal(epoch.Add(EscHold)) {
		t.Errorf("a prefix: passed %q, deadline %v", out, since(d))
	}
	if out, _ = r.Flush(nil, epoch.Add(EscHold-1)); len(out) > 0 {
		t.Errorf("early flush passed %q", out)
	}
	if out, d = r.Flush(nil, epoch.Add(EscHold)); string(out) != "\x1b[?20" || !d.IsZero() {
		t.Errorf("flush: passed %q, deadline %v", out, d)
	}
	r.Write(nil, []byte("\x1b["), epoch)
	if out := r.Stop(); string(out) != "\x1b[" || !r.Done() {
		t.Errorf("stop: %q, done %v", out, r.Done())
	}
	if out, _ := r.Write(nil, []byte("\x1b[?1;2c"), epoch); string(out) != "\x1b[?1;2c" {
		t.Errorf("after Stop: passed %q", out)
	}
}

// Marks says what the answer says about pastes.
func TestRepliesMarks(t *testing.T) {
	for _, tc := range []struct {
		in           string
		marks, known bool
	}{
		{"\x1b[?2004;1$y", true, true}, {"\x1b[?2004;3$y", true, true},
		{"\x1b[?2004;2$y", false, true}, {"\x1b[?2004;0$y", false, true}, {"\x1b[?2004;4$y", false, true},
		{"\x1b[?1;2c", false, false}, {"", false, false},
	} {
		var r Replies
		r.Ask()
		r.Write(nil, []byte(tc.in), epoch)
		if marks, known := r.Marks(); marks != tc.marks || known != tc.known {
			t.Errorf("%q: Marks() = %v, %v; want %v, %v", tc.in, marks, known, tc.marks, tc.known)
		}
	}
}

// interleaves reports whether in is out with the answers put in, in
// their order, each whole and somewhere.
func interleaves(in, out []byte, answers [][]byte) bool {
	type state struct{ at, k int } // in[:at] made of answers[:k] and out's first at-len(answers[:k]) bytes
	seen := map[state]bool{}
	var from func(s state) bool
	from = func(s state) bool {
		if seen[s] {
			return false
		}
		seen[s] = true
		taken := 0
		for _, a := range answers[:s.k] {
			taken += len(a)
		}
		o := s.at - taken
		if s.at == len(in) {
			return s.k == len(answers) && o == len(out)
		}
		if o < len(out) && in[s.at] == out[o] && from(state{s.at + 1, s.k}) {
			return true
		}
		return s.k < len(answers) && bytes.HasPrefix(in[s.at:], answers[s.k]) && from(state{s.at + len(answers[s.k]), s.k + 1})
	}
	return from(state{})
}

// FuzzRepliesConservation requires that what passes and the answers taken
// are the input, in order, whatever the chunking and timing.
func FuzzRepliesConservation(f *testing.F) {
	for _, tt := range repliesTests {
		f.Add([]byte(tt.in), []byte{3, 0x15})
	}
	f.Fuzz(func(t *testing.T, in, ops []byte) {
		if len(ops) == 0 {
			ops = []byte{0xf}
		}
		var r Replies
		var answers [][]byte
		r.taken = func(a []byte) { answers = append(answers, bytes.Clone(a)) }
		r.Ask()
		var out []byte
		now := epoch
		for k, rest := 0, in; len(rest) > 0; k++ {
			o := ops[k%len(ops)]
			if o&0x80 != 0 {
				now = now.Add(EscHold)
				out, _ = r.Flush(out, now)
			}
			n := min(len(rest), int(o&15)+1)
			out, _ = r.Write(out, rest[:n], now)
			rest = rest[n:]
		}
		out = append(out, r.Stop()...)
		// What passed and the answers taken, in order, each whole, make up
		// the input: which of two equal texts was the answer the timing
		// says, so every way of putting them together is tried.
		if !interleaves(in, out, answers) {
			t.Fatalf("input %q: passed %q and answers %q do not make it up", in, out, answers)
		}
	})
}

// The answer for mode 5522 (ClipQuestion) is taken, as kitty and tmux
// give it, at every split; a second one is the program's.
func TestRepliesClip(t *testing.T) {
	for _, tt := range []struct {
		name, in, pass string
		clip           byte
	}{
		{"kitty 0.48.2", "\x1b[?5522;2$y\x1b[?2004;1$y\x1b[?12;2$y\x1b[?62;52;c", "", ModeReset},
		{"kitty with the mode on", "\x1b[?5522;1$y\x1b[?62;52;c", "", ModeSet},
		{"tmux 3.7b", "\x1b[?5522;0$y\x1b[?1;2c", "", ModeNotRecognized},
		{"tmux 3.3a, screen: DA1 alone", "\x1b[?1;2c", "", ModeUnanswered},
		{"a second answer is the program's", "\x1b[?5522;2$y\x1b[?5522;1$y", "\x1b[?5522;1$y", ModeReset},
		{"a key typed before", "a\x1b[?5522;2$y\x1b[?1c", "a", ModeReset},
	} {
		for n := 1; n <= len(tt.in); n++ {
			var r Replies
			r.Ask()
			var out []byte
			for rest := tt.in; len(rest) > 0; rest = rest[min(n, len(rest)):] {
				out, _ = r.Write(out, []byte(rest[:min(n, len(rest))]), epoch)
			}
			out, _ = r.Flush(out, epoch.Add(EscHold))
			if string(out) != tt.pass || r.Clip() != tt.clip {
				t.Errorf("%s, reads of %d: passed %q, clip %q; want %q, %q", tt.name, n, out, r.Clip(), tt.pass, tt.clip)
			}
		}
	}
}
