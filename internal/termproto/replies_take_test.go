package termproto

import (
	"fmt"
	"strings"
	"testing"
)

// The answers to PasteQuestion as pbwrap doctor takes them (Take): as
// terminals write them, among keys the user types.
const (
	da1XTerm = "\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c" // the longest in common use
	da1VTE   = "\x1b[?65;1;9c"
	da1Old   = "\x1b[?1;2c" // a VT100
	focusIn  = "\x1b[I"
	focusOut = "\x1b[O"
)

func decrpm(ps string) string { return "\x1b[?2004;" + ps + "$y" }

type takeCase struct {
	name string
	in   string
	mode string
	da1  bool
	rest string // what follows the DA1 answer: not used
}

func takeCases() []takeCase {
	cases := []takeCase{
		{name: "nothing yet"},
		{name: "only DA1", in: da1VTE, da1: true},
		{name: "only DA1, old terminal", in: da1Old, da1: true},
		{name: "DECRQM, DA1 not yet", in: decrpm("2"), mode: "2"},
		{name: "DECRQM cut short", in: "\x1b[?2004;2$"},
		{name: "xterm's long DA1", in: decrpm("1") + da1XTerm, mode: "1", da1: true},
		{name: "typing after DA1 is not used", in: decrpm("2") + da1VTE + "ls -l\r", mode: "2", da1: true, rest: "ls -l\r"},
		{name: "a second DA1 is not used", in: da1VTE + da1Old, da1: true, rest: da1Old},
		{name: "a key typed before", in: "x" + decrpm("1") + da1VTE, mode: "1", da1: true},
		{name: "keys typed between", in: decrpm("2") + "ab\x03\x1b[A\x1bOB" + da1VTE, mode: "2", da1: true},
		{name: "a Ctrl key inside an answer", in: "\x1b[?2004;\x032$y" + da1VTE, mode: "2", da1: true},
		{name: "focus events around", in: focusOut + decrpm("1") + focusIn + da1VTE + focusOut, mode: "1", da1: true, rest: focusOut},
		{name: "a lone Esc before", in: "\x1b" + decrpm("3") + da1VTE, mode: "3", da1: true},
		{name: "Esc restarts a sequence", in: "\x1b[?2004\x1b[?2004;4$y" + da1VTE, mode: "4", da1: true},
		{name: "CAN cancels a sequence", in: "\x1b[?2004;1\x18$y" + da1VTE, da1: true},
		{name: "UTF-8 typed, with a 0x9b byte", in: "\u011b\u00e9" + decrpm("2") + "\u011b" + da1VTE, mode: "2", da1: true},
		{name: "a DA1 answer pasted ends the answers", in: "\x1b[200~echo \x1b[?62c\x1b[201~" + decrpm("1"), da1: true, rest: "\x1b[201~" + decrpm("1")},
		{name: "another mode's answer", in: "\x1b[?1049;1$y" + da1VTE, da1: true},
		{name: "a state out of range", in: decrpm("5") + da1VTE, da1: true},
		{name: "a two-digit state", in: decrpm("12") + da1VTE, da1: true},
		{name: "DA2 is not DA1", in: "\x1b[>41;354;0c"},
		{name: "the question echoed is not DA1", in: PasteQuestion},
		{name: "an empty DA1 is not DA1", in: "\x1b[?c"},
		{name: "an overlong sequence is not DA1", in: "\x1b[?" + strings.Repeat("1;", maxReply) + "c"},
		{name: "answers after an overlong sequence", in: "\x1b[?" + strings.Repeat("1", 2*maxReply) + "$y" + decrpm("2") + da1VTE, mode: "2", da1: true},
	}
	for _, ps := range []string{"0", "1", "2", "3", "4"} {
		cases = append(cases, takeCase{name: "DECRQM " + ps, in: decrpm(ps) + da1VTE, mode: ps, da1: true})
	}
	return cases
}

// A taken is what Take found: the DECRQM answer for mode 2004 as a
// string ("" for none), and whether DA1 came.
type taken struct {
	mode string
	da1  bool
}

func takenOf(r *Replies) *taken {
	t := &taken{da1: r.AnsweredDA1()}
	if m := r.Mode(); m != ModeUnanswered {
		t.mode = string(m)
	}
	return t
}

// scanChunks feeds in to a new Replies, asked, n bytes at a time, as long
// as it uses them, and returns what it took with the bytes it did not use.
func scanChunks(in string, n int) (*taken, string) {
	var r Replies
	r.Ask()
	for off := 0; off < len(in); {
		chunk := in[off:min(off+n, len(in))]
		used := r.Take([]byte(chunk))
		off += used
		if used < len(chunk) {
			return takenOf(&r), in[off:]
		}
	}
	return takenOf(&r), ""
}

// TestRepliesTake: every case at every chunk size finds the same answers
// and stops right after DA1.
func TestRepliesTake(t *testing.T) {
	for _, tc := range takeCases() {
		for n := 1; n <= max(len(tc.in), 1); n++ {
			s, rest := scanChunks(tc.in, n)
			if s.mode != tc.mode || s.da1 != tc.da1 || rest != tc.rest {
				t.Errorf("%s: %q in chunks of %d: mode %q, DA1 %v, unused %q; want %q, %v, %q",
					tc.name, tc.in, n, s.mode, s.da1, rest, tc.mode, tc.da1, tc.rest)
			}
		}
	}
}

// TestRepliesTakeSplitAnywhere: an answer split in two at any byte, as
// reads can split it, is found.
func TestRepliesTakeSplitAnywhere(t *testing.T) {
	in := focusIn + decrpm("2") + "q" + da1XTerm
	for i := 0; i <= len(in); i++ {
		var r Replies
		r.Ask()
		used := r.Take([]byte(in[:i]))
		used += r.Take([]byte(in[i:]))
		s := takenOf(&r)
		if s.mode != "2" || !s.da1 || used != len(in) {
			t.Errorf("%q split at %d: mode %q, DA1 %v, used %d; want %q, true, %d", in, i, s.mode, s.da1, used, "2", len(in))
		}
	}
}

// FuzzRepliesTake: any chunking of any input gives the answers of the
// whole input at once.
func FuzzRepliesTake(f *testing.F) {
	for _, tc := range takeCases() {
		f.Add(tc.in, uint8(1))
		f.Add(tc.in, uint8(7))
	}
	f.Fuzz(func(t *testing.T, in string, n uint8) {
		whole, wholeRest := scanChunks(in, max(len(in), 1))
		chunked, chunkedRest := scanChunks(in, int(n%32)+1)
		got := fmt.Sprintf("%q %v %q", chunked.mode, chunked.da1, chunkedRest)
		want := fmt.Sprintf("%q %v %q", whole.mode, whole.da1, wholeRest)
		if got != want {
			t.Errorf("%q in chunks of %d: %s; at once: %s", in, int(n%32)+1, got, want)
		}
	})
}
