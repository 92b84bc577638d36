package vtoracle_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/termproto"
	"github.com/pbwrap/pbwrap/internal/vtoracle"
)

var (
	streams = flag.Int("vtoracle.streams", 3000, "random output streams the differential test tries")
	seed    = flag.Uint64("vtoracle.seed", 0, "seed of the streams (0: a new one, logged)")
)

// startOracle starts xterm.js, or skips the test where it is not
// installed, unless scripts/test asks for it (PBWRAP_REQUIRE_ORACLE=1).
func startOracle(t *testing.T) *vtoracle.XtermJS {
	t.Helper()
	x, err := vtoracle.StartXtermJS()
	if errors.Is(err, vtoracle.ErrUnavailable) && os.Getenv("PBWRAP_REQUIRE_ORACLE") != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// What pbwrap writes around the child's output (cmd/pbwrap wrap.go): the
// mode on when it takes the terminal, off when it gives it back.
const (
	pasteOn  = "\x1b[?2004h"
	pasteOff = "\x1b[?2004l"
)

// A session is what pbwrap writes to the terminal for one stream of the
// child's output, chunk by chunk, and what each chunk is.
type session struct {
	chunks [][]byte
	kinds  []string // "output", "stop" (at Ctrl-Z), "fg", "exit"
}

func (s *session) add(kind string, b []byte) {
	s.chunks = append(s.chunks, bytes.Clone(b))
	s.kinds = append(s.kinds, kind)
}

// play runs the child's output, in the chunks given, through an
// OutputFilter as pbwrap does: Ctrl-Z after the chunks marked in stops.
func play(in [][]byte, stops map[int]bool, eightBit bool) *session {
	var s session
	f := termproto.OutputFilter{EightBit: eightBit}
	s.add("setup", []byte(pasteOn))
	for i, c := range in {
		s.add("output", f.Write(c))
		if stops[i] {
			s.add("stop", append(f.AppendReset(nil), pasteOff...))
			s.add("fg", append([]byte(pasteOn), f.AppendRestore(nil)...))
		}
	}
	end := append(f.Close(), f.AppendReset(nil)...)
	s.add("exit", append(end, pasteOff...))
	return &s
}

// check compares what the emulator made of the session with what pbwrap
// promises: bracketed paste on whenever the child runs, every mode at its
// default after a stop and at exit, no clipboard read.
func check(r *vtoracle.Result, s *session) []string {
	var problems []string
	for i, snap := range r.After {
		switch s.kinds[i] {
		case "setup", "output", "fg":
			if snap["dec2004"] != true {
				problems = append(problems, fmt.Sprintf("chunk %d (%s): bracketed paste off", i, s.kinds[i]))
			}
		case "stop", "exit":
			if d := snap.Differences(r.Fresh); len(d) > 0 {
				problems = append(problems, fmt.Sprintf("chunk %d (%s): not the defaults: %s", i, s.kinds[i], strings.Join(d, "; ")))
			}
		}
	}
	if r.Reads > 0 {
		problems = append(problems, fmt.Sprintf("%d clipboard read(s) reached the terminal", r.Reads))
	}
	return problems
}

// TestXtermJSForms plays each hostile form of issue 24, and the filter's
// own cases, through the filter to xterm.js: none may leave bracketed
// paste off, a mode on after exit, or read the clipboard.
func TestXtermJSForms(t *testing.T) {
	x := startOracle(t)
	for _, in := range hostileForms {
		for _, cut := range []int{0, 1, 3} {
			chunks := split([]byte(in), cut)
			stops := map[int]bool{len(chunks) / 2: true}
			s := play(chunks, stops, false)
			r, err := x.Read(s.chunks)
			if err != nil {
				t.Fatal(err)
			}
			if p := check(r, s); len(p) > 0 {
				t.Errorf("%q, chunks of %d: %s\nwrote %q", in, cut, strings.Join(p, "\n\t"), s.chunks)
			}
		}
	}
}

// TestXtermJSDifferential plays random streams of the child's output,
// built from mode changes, strings and text and garbled as a hostile or
// buggy program would, cut at random points, with Ctrl-Z at random
// points, through the filter to xterm.js.
func TestXtermJSDifferential(t *testing.T) {
	x := startOracle(t)
	sd := *seed
	if sd == 0 {
		sd = rand.Uint64()
	}
	t.Logf("seed %d (-vtoracle.seed to try it again), %d streams", sd, *streams)
	rng := rand.New(rand.NewPCG(sd, 24))
	failed := 0
	for n := range *streams {
		in := randomStream(rng)
		chunks := randomSplit(rng, in)
		stops := map[int]bool{}
		for range rng.IntN(3) {
			stops[rng.IntN(len(chunks))] = true
		}
		eightBit := rng.IntN(8) == 0
		s := play(chunks, stops, eightBit)
		r, err := x.Read(s.chunks)
		if err != nil {
			t.Fatal(err)
		}
		if p := check(r, s); len(p) > 0 {
			failed++
			if failed <= 5 {
				t.Errorf("stream %d (8-bit %v): %q\nin chunks %q:\n\t%s", n, eightBit, in, chunks, strings.Join(p, "\n\t"))
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d streams disagree", failed, *streams)
	}
}

// split cuts in into chunks of n bytes; 0 leaves it whole.
func split(in []byte, n int) [][]byte {
	if n == 0 {
		return [][]byte{in}
	}
	var out [][]byte
	for len(in) > 0 {
		c := min(n, len(in))
		out = append(out, in[:c])
		in = in[c:]
	}
	return out
}

// randomSplit cuts in at random points, often inside sequences.
func randomSplit(rng *rand.Rand, in []byte) [][]byte {
	var out [][]byte
	for len(in) > 0 {
		c := min(1+rng.IntN(24), len(in))
		if rng.IntN(4) == 0 {
			c = min(1+rng.IntN(4), len(in))
		}
		out = append(out, in[:c])
		in = in[c:]
	}
	return out
}

// hostileForms are the forms issue 24 names, and more of their kind.
var hostileForms = []string{
	"\x1b[?20\a04l",                      // a C0 inside
	"\x1b[?2004\x7fl", "\x1b[?20\x7f04l", // DEL
	"\x1b[\b?2004l", "\x1b\a[?2004l", // a C0 before the marker, after ESC
	"\x1b[?" + strings.Repeat("1;", 40) + "2004l", // many parameters
	"\x1b[?" + strings.Repeat("1;", 20) + "2004l",
	"\x1b[?" + strings.Repeat("0", 300) + "2004l", // long
	"\x1b[?2004:1l",                    // a sub-parameter
	"\x1b\a" + "c\x1b[?2004l",          // RIS after a C0
	"\x1bc", "\x1b[!p", "\x1b[62;1\"p", // resets
	"\x1b[?2004h\x1b[?2004s\x1b[?2004l\x1b[?2004r",
	"\x1b[?20\x8004l", "\x1b[?20\xff04l", "\x1b[?20\xc204l", // invalid UTF-8 inside
	"\x1b[?20\u00e904l",                                      // non-ASCII inside
	"\u009b?2004l", "\x9b?2004l", "\u009b?1049h\u009b?1000h", // C1 CSI
	"\u009d52;c;?\u009c", "\x9d52;c;?\a", "\u009d52;c;?\a", // C1 OSC reads
	"\x1b]52;c;?\a", "\x1b]52;c;?\x1b\\", "\x1b]0052;c;?\a", "\x1b]52;?\a", "\x1b]52;c;\n?\a",
	"\x1b]5\r2;c;?\a", "\x1b]52x;?\a", "\x1b]000052;?\a",
	"\x1bPtmux;\x1b\x1b]52;c;?\a\x1b\\", "\x1bPtmux;\x1b\x1b[?2004l\x1b\\",
	"\x1b]0;x\x1b[?2004lb\x1b\\", "\x1b]0;title", "\x1bPq\a\x1b[?2004l\x1b\\",
	"\x1b[=15;1u\x1b[>3u\x1b[<1u",    // kitty: the base set with = outlives pops
	"\x1b[?1049h\x1b[>1u\x1b[?1049l", // kitty: a push left on the alternate screen
	"\x1b[?5522h",                    // kitty's clipboard mode
	"\x1b[?1049;1000;1006;1004;2026h\x1b[?25l\x1b[?1h\x1b=\x1b[4h\x1b[20h\x1b[5 q\x1b[2;10r\x1b[1;31m\x1b(0\x0e",
	"\x1b[?6h\x1b[?45h\x1b[?7l\x1b[?12h\x1b[?66h\x1b[?1003h\x1b[?1016h",
	"\x1b[?25l\x1bc", "\x1b[20h\x1bc", "\x1b[ q", "\x1b[?12h\x1b[5 q",
	"\x1b[?1000s\x1b[?1000h\x1b[?1000r", "\x1b[?25l\x1b[?25s\x1b[?25h\x1b[?25r",
}

// Pieces of output the random streams are made of.
var (
	decNumbers  = []int{1, 2, 3, 6, 7, 8, 9, 12, 25, 45, 47, 66, 69, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1015, 1016, 1047, 1048, 1049, 2004, 2026, 2031, 2048, 5522, 7727, 9001, 1051, 12345, 0}
	ansiNumbers = []int{2, 4, 12, 20, 3, 34}
	fixed       = []string{
		"\x1bc", "\x1b[!p", "\x1b[62;1\"p", "\x1b=", "\x1b>", "\x1b7", "\x1b8", "\x1b[s", "\x1b[u",
		"\x1b[?u", "\x1b[>4;2m", "\x1b[>4m", "\x1b[>4n", "\x1b[>m", "\x1b[>1;2m",
		"\x1b[1;31m", "\x1b[0m", "\x1b[m", "\x1b[38:2::1:2:3m", "\x1b[38;5;208m", "\x1b[2;10r", "\x1b[r", "\x1b[5;1H",
		"\x1b(0", "\x1b(B", "\x1b)0", "\x1b)B", "\x1b*0", "\x1bn", "\x0e", "\x0f", "\x1b#8", "\x1b(%5",
		"\x1b]0;title\a", "\x1b]2;t\x1b\\", "\x1b]8;;http://x/\x1b\\", "\x1b]0;unterminated",
		"\x1b]52;c;aGk=\a", "\x1b]52;c;?\a", "\x1b]52;;?\x1b\\", "\x1b]0052;p;?\a", "\x1b]52;c;", "\x1b]52",
		"\x1b]5522;type=write\a", "\x1b]5522;type=read;Lg==\x1b\\", "\x1b]5522;id=1:type=read\a",
		"\x1bP$qm\x1b\\", "\x1bPtmux;\x1b\x1b[?1000h\x1b\\", "\x1bPq#0;2;0;0;0\x1b\\", "\x1b_Gf=1;AA\x1b\\", "\x1b^pm\x1b\\", "\x1bXsos\x1b\\",
		"hello ", "caf\u00e9 \u2500\u276f\u26d4 ", "\r\n", "\x07", "\b", "\t", "\x1b[K", "\x1b[2J", "\x1b[H",
		"\u009b?1049h", "\x9b?25l", "\u009d0;t\u009c", "\u0085", "\x85", "\u0090$q\u009c",
		"\x1b[?s", "\x1b[?r",
	}
	garble = []string{"\a", "\b", "\n", "\r", "\x00", "\x7f", "\x18", "\x1a", "\x1b", "\x80", "\x9b", "\u009b", "\u009c", "\u0085", "\xff", "\xc2", "\u00e9", ":", ";", "?", " ", "0"}
)

// randomStream builds a stream of output from random pieces, some garbled.
func randomStream(rng *rand.Rand) []byte {
	var b []byte
	for range 5 + rng.IntN(40) {
		var piece string
		switch rng.IntN(10) {
		case 0, 1, 2:
			piece = modeSequence(rng, "\x1b[?", decNumbers, "hlhlhlsr")
		case 3:
			piece = modeSequence(rng, "\x1b[", ansiNumbers, "hl")
		case 4:
			piece = kitty(rng)
		case 5:
			piece = fmt.Sprintf("\x1b[%d q", rng.IntN(7))
		default:
			piece = fixed[rng.IntN(len(fixed))]
		}
		if rng.IntN(5) == 0 && len(piece) > 1 { // Garbled inside.
			at := 1 + rng.IntN(len(piece)-1)
			piece = piece[:at] + garble[rng.IntN(len(garble))] + piece[at:]
		}
		if rng.IntN(6) == 0 && strings.HasPrefix(piece, "\x1b[") { // In a C1 form.
			piece = [...]string{"\u009b", "\x9b"}[rng.IntN(2)] + piece[2:]
		}
		b = append(b, piece...)
	}
	return b
}

// modeSequence is a mode set, reset, save or restore of a few numbers.
func modeSequence(rng *rand.Rand, intro string, numbers []int, finals string) string {
	var p []string
	for range 1 + rng.IntN(4) {
		s := fmt.Sprint(numbers[rng.IntN(len(numbers))])
		switch rng.IntN(12) {
		case 0:
			s = "00" + s
		case 1:
			s += ":1"
		case 2:
			s = ""
		}
		p = append(p, s)
	}
	return intro + strings.Join(p, ";") + string(finals[rng.IntN(len(finals))])
}

// kitty is a kitty keyboard protocol push, pop or set.
func kitty(rng *rand.Rand) string {
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprintf("\x1b[>%du", rng.IntN(32))
	case 1:
		return fmt.Sprintf("\x1b[<%du", rng.IntN(4))
	case 2:
		return fmt.Sprintf("\x1b[=%d;%du", rng.IntN(32), 1+rng.IntN(3))
	}
	return "\x1b[<u"
}

// vtermProblems checks libvterm's reading of the filter's output for one
// stream (without pbwrap's own writes around it): no bracketed paste reset
// or restore, every reset of the terminal followed by bracketed paste set
// again, no clipboard read.
func vtermProblems(dump string) []string {
	var problems []string
	tokens := strings.SplitAfter(dump, "}")
	for i, tok := range tokens {
		k := strings.LastIndexByte(tok, '{')
		if k < 0 {
			continue
		}
		ctl := tok[k+1 : len(tok)-1]
		next := ""
		if i+1 < len(tokens) {
			next = tokens[i+1]
		}
		restore := xtrestore.FindStringSubmatch(ctl)
		switch {
		case strings.HasPrefix(ctl, "DECRM ") && hasParam(ctl[6:], "2004"),
			restore != nil && hasParam(restore[1], "2004"):
			problems = append(problems, "bracketed paste reset: {"+ctl+"}")
		case ctl == "ESC c" || ctl == "CSI * ! p" || restore != nil:
			if !strings.HasPrefix(next, "{DECSM 2004}") {
				problems = append(problems, "{"+ctl+"} not followed by bracketed paste on, but by "+next)
			}
		case strings.HasPrefix(ctl, "OSC 52;") && clipRead(ctl[len("OSC 52;"):]):
			problems = append(problems, "a clipboard read: {"+ctl+"}")
		}
	}
	return problems
}

// xtrestore matches XTRESTORE as vterm-dump writes it.
var xtrestore = regexp.MustCompile(`^CSI \? ([0-9,+]*) r$`)

// hasParam reports whether libvterm's parameter list (comma-separated,
// '+' before sub-parameters) has p as a main value.
func hasParam(list, p string) bool {
	for _, f := range strings.Split(list, ",") {
		f, _, _ = strings.Cut(f, "+")
		if strings.TrimLeft(f, "0") == p {
			return true
		}
	}
	return false
}

// clipRead reports whether the data of an OSC 52 reads the clipboard.
func clipRead(data string) bool {
	sel, d, _ := strings.Cut(data, ";")
	return d == "?" || strings.Contains(sel, "?")
}

// TestVtermDumpDifferential reads the filter's output for random streams
// with libvterm's parser, and the forms of issue 24.
func TestVtermDumpDifferential(t *testing.T) {
	if _, err := vtoracle.VtermDump(nil); errors.Is(err, vtoracle.ErrUnavailable) && os.Getenv("PBWRAP_REQUIRE_VTERM") != "1" {
		t.Skip(err)
	}
	rng := rand.New(rand.NewPCG(rand.Uint64(), 24))
	var inputs [][]byte
	for _, in := range hostileForms {
		inputs = append(inputs, []byte(in))
	}
	for range *streams / 10 {
		inputs = append(inputs, randomStream(rng))
	}
	failed, skipped := 0, 0
	for _, in := range inputs {
		s := play(randomSplit(rng, in), nil, false)
		var out []byte
		for i, c := range s.chunks {
			if s.kinds[i] == "output" {
				out = append(out, c...)
			}
		}
		if manyParams.Match(out) {
			skipped++ // vterm-dump crashes on a sequence of over 16 parameters.
			continue
		}
		dump, err := vtoracle.VtermDump(out)
		if err != nil {
			t.Fatal(err)
		}
		if p := vtermProblems(dump); len(p) > 0 {
			if failed++; failed <= 5 {
				t.Errorf("%q: filtered to %q, libvterm reads %q:\n\t%s", in, out, dump, strings.Join(p, "\n\t"))
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d streams disagree", failed, len(inputs))
	}
	t.Logf("%d streams read, %d left out (a sequence of over 16 parameters)", len(inputs)-skipped, skipped)
}

// manyParams matches a control sequence of over 16 parameters, which the
// filter passes (an SGR) but libvterm's vterm-dump cannot read.
var manyParams = regexp.MustCompile(`\x1b\[[<=>?]?(?:[0-9:]*;){16}`)
