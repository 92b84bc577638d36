package termproto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// filterSplit writes the chunks to a new OutputFilter, then closes it, and
// returns the concatenated output and the filter.
func filterSplit(parts [][]byte, allow, eightBit bool) ([]byte, *OutputFilter) {
	f := &OutputFilter{AllowClipboardRead: allow, EightBit: eightBit}
	var out []byte
	for _, c := range parts {
		out = append(out, f.Write(c)...)
	}
	return append(out, f.Close()...), f
}

// sameModes reports whether two filters would reset and restore the same.
func sameModes(a, b *OutputFilter) bool {
	return bytes.Equal(a.AppendReset(nil), b.AppendReset(nil)) && bytes.Equal(a.AppendRestore(nil), b.AppendRestore(nil)) &&
		a.Enabled() == b.Enabled()
}

// shown is the text a terminal shows or executes outside sequences, as
// the reference reads it: with execs, the C0 controls it executes inside
// them.
func shown(in []byte, eightBit bool, execs bool) []byte {
	var b []byte
	for _, e := range refTokenize(in, eightBit) {
		switch {
		case e.kind == "print" || execs && e.kind == "exec":
			b = append(b, e.data...)
		case e.kind == "c1" && execs:
			b = append(b, replacement...) // Made harmless.
		}
	}
	return b
}

// checkOutput checks what a terminal reads in the filter's output out,
// as the reference reads it: every sequence whole, none that it would
// cancel or read bytes of differently; no bracketed paste reset, and no
// reset of the terminal not followed by bracketed paste set again; none
// of the sequences the filter drops; no clipboard read unless allowed.
func checkOutput(t *testing.T, in, out []byte, allow, eightBit bool) {
	t.Helper()
	evs := refTokenize(out, eightBit)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("filter %q (8-bit %v, reads allowed %v) = %q: %s", in, eightBit, allow, out, fmt.Sprintf(format, args...))
	}
	var clip *clipHeader
	verdict := clipUndecided
	for k, e := range evs {
		switch e.kind {
		case "cancel", "ignore", "c1", "c1data":
			fail("the terminal reads %v in it", e)
		case "exec":
			fail("a control inside a sequence: %v", e)
		case "dispatch":
			s := &e.s
			mode := s.Kind == SeqCSI && s.Marker == '?' && s.NInter == 0
			if mode && (s.Final == 'l' || s.Final == 'h' || s.Final == 'r' || s.Final == 's') {
				if s.ParamLen > maxParamBytes || s.NParams > maxModeParams || s.Sub {
					fail("a mode sequence terminals read differently: %v", e)
				}
				for _, n := range s.Params[:min(s.NParams, MaxParams)] {
					if n == 2004 && (s.Final == 'l' || s.Final == 'r') || n == 2 && s.Final == 'l' || n > maxModeNumber {
						fail("a mode pbwrap keeps: %v", e)
					}
				}
			}
			resets := s.Kind == SeqESC && s.NInter == 0 && s.Final == 'c' ||
				s.Kind == SeqCSI && s.Marker == 0 && s.Intermediate() == '!' && s.Final == 'p' ||
				mode && s.Final == 'r'
			if resets {
				var next *Seq
				if k+1 < len(evs) && evs[k+1].kind == "dispatch" {
					next = &evs[k+1].s
				}
				if next == nil || next.Kind != SeqCSI || next.Marker != '?' || next.NParams != 1 || next.Params[0] != 2004 || next.Final != 'h' {
					fail("a reset not followed by bracketed paste on: %v", e)
				}
			}
			if s.Kind == SeqESC && s.NInter == 1 && (s.Inter[0] == ' ' && s.Final == 'G' || s.Inter[0] == '%' && s.Final == '@') ||
				s.Kind == SeqCSI && s.Marker == 0 && s.Intermediate() == '"' && s.Final == 'p' {
				fail("a sequence that changes how the terminal reads: %v", e)
			}
		case "start":
			clip = nil
			if e.s.Kind == SeqOSC {
				clip = &clipHeader{}
				verdict = clipUndecided
			}
		case "data":
			for _, c := range e.data {
				if clip != nil && verdict == clipUndecided {
					verdict = clip.feed(c)
				}
			}
		case "end":
			if clip != nil && verdict == clipUndecided {
				verdict = clip.end(map[string]Terminator{"BEL": TermBEL, "ST": TermST, "cut": TermCut}[e.seq])
			}
			if clip != nil && verdict == clipRead && !allow {
				fail("a clipboard read reaches the terminal")
			}
			clip = nil
		}
	}
}

// FuzzOutputFilter requires, whatever the output and its split across
// Writes: the output, modes and drops of a one-shot Write; the text the
// terminal shows and the controls it executes, all of them, in order;
// output that every terminal reads alike and that changes nothing pbwrap
// keeps (checkOutput); with clipboard reads allowed, the same modes.
func FuzzOutputFilter(f *testing.F) {
	for _, tt := range outputTests {
		f.Add([]byte(tt.in), []byte{0}, false)
		f.Add([]byte(tt.in), []byte{2, 0, 5}, false)
	}
	for _, in := range tokenizerCases {
		f.Add([]byte(in), []byte{1}, true)
	}
	// Longer than what is held: split over many Writes.
	f.Add([]byte("\x1bP"+strings.Repeat("1;", 310)+"qX\x1b\\"), []byte{15, 3}, false)
	f.Add([]byte("\x1b]52;"+strings.Repeat("c", 600)+";?\a"), []byte{15, 0, 7}, false)
	f.Add([]byte("\x1b[?"+strings.Repeat("1000;", 40)+"1000l"), []byte{15}, false)
	f.Fuzz(func(t *testing.T, in, cuts []byte, eightBit bool) {
		one, f1 := filterSplit([][]byte{bytes.Clone(in)}, false, eightBit)
		many, fn := filterSplit(chunks(bytes.Clone(in), cuts), false, eightBit)
		if !bytes.Equal(many, one) || !sameModes(fn, f1) || fn.Dropped() != f1.Dropped() {
			t.Errorf("filter %q in chunks %v:\n got %q, reset %q, restore %q, %d dropped\nwant %q, reset %q, restore %q, %d dropped (one-shot)",
				in, cuts, many, fn.AppendReset(nil), fn.AppendRestore(nil), fn.Dropped(),
				one, f1.AppendReset(nil), f1.AppendRestore(nil), f1.Dropped())
		}
		if got, want := shown(one, eightBit, false), shown(in, eightBit, true); !bytes.Equal(got, want) {
			t.Errorf("filter %q = %q: the terminal shows %q, want %q", in, one, got, want)
		}
		checkOutput(t, in, one, false, eightBit)
		allowed, fa := filterSplit(chunks(bytes.Clone(in), cuts), true, eightBit)
		if !sameModes(fa, f1) || fa.Dropped() != 0 {
			t.Errorf("filter %q, reads allowed: reset %q, restore %q, %d dropped; want reset %q, restore %q, none dropped",
				in, fa.AppendReset(nil), fa.AppendRestore(nil), fa.Dropped(), f1.AppendReset(nil), f1.AppendRestore(nil))
		}
		checkOutput(t, in, allowed, true, eightBit)
	})
}

// outputTokens are whole pieces of output, each with what the filter
// passes on of it.
var outputTokens = []struct{ in, out string }{
	{"plain text\r\n", "plain text\r\n"},
	{"\x1b[?1049h", "\x1b[?1049h"},
	{"\x1b[?1049l", "\x1b[?1049l"},
	{"\x1b[?1000;1006h", "\x1b[?1000;1006h"},
	{"\x1b[?2004h", ""},
	{"\x1b[?2004l", ""},
	{"\x1b[?25;2004l", "\x1b[?25l"},
	{"\x1b[>1u", "\x1b[>1u"},
	{"\x1b[<u", "\x1b[<u"},
	{"\x1b=", "\x1b="},
	{"\x1b[5 q", "\x1b[5 q"},
	{"\x1bc", "\x1bc\x1b[?2004h"},
	{"\x1b]0;title\x07", "\x1b]0;title\x07"},
	{"\x1b]8;;http://x/\x1b\\", "\x1b]8;;http://x/\x1b\\"},
	{"\x1b]52;c;aGk=\x07", "\x1b]52;c;aGk=\x07"},
	{"\x1b]52;c;aGk=\x1b\\", "\x1b]52;c;aGk=\x1b\\"},
	{"\x1b]5522;type=write;aGk=\x07", "\x1b]5522;type=write;aGk=\x07"},
	{"\x1b]52;c;?\x07", ""},
	{"\x1b]52;;?\x1b\\", ""},
	{"\x1b]0052;p;?\x07", ""},
	{"\x1b]5522;type=read;Lg==\x1b\\", ""},
	{"\u009b?2004l", "\uFFFD?2004l"},
	{"\x1b[?20\a04l", "\a"},
	{"caf\u00e9 \u2500\u276f", "caf\u00e9 \u2500\u276f"},
}

// FuzzOutputFilterTokens builds output from whole pieces and requires
// exactly what each piece passes on, and the reads dropped, whatever the
// chunking.
func FuzzOutputFilterTokens(f *testing.F) {
	f.Add([]byte{0, 17, 1, 20, 11}, []byte{1})
	f.Add([]byte{18, 18, 9, 21, 13, 22}, []byte{3, 7})
	f.Fuzz(func(t *testing.T, picks, cuts []byte) {
		var in, want []byte
		reads := 0
		for _, p := range picks {
			tok := outputTokens[int(p)%len(outputTokens)]
			in = append(in, tok.in...)
			want = append(want, tok.out...)
			if strings.Contains(tok.in, ";?") || strings.Contains(tok.in, "type=read") {
				reads++
			}
		}
		got, flt := filterSplit(chunks(bytes.Clone(in), cuts), false, false)
		if !bytes.Equal(got, want) || flt.Dropped() != reads {
			t.Errorf("filter %q in chunks %v:\n got %q, %d dropped\nwant %q, %d dropped", in, cuts, got, flt.Dropped(), want, reads)
		}
	})
}
