package bracketed

import (
	"bytes"
	"regexp"
	"testing"
)

// trackSplit writes the chunks to a new ModeTracker, then flushes, and
// returns the concatenated output and the tracker.
func trackSplit(parts [][]byte, allow bool) ([]byte, *ModeTracker) {
	t := &ModeTracker{AllowClipboardRead: allow}
	var out []byte
	for _, c := range parts {
		out = append(out, t.Write(c)...)
	}
	return append(out, t.Flush()...), t
}

// sameModes reports whether two trackers would reset and restore the
// same.
func sameModes(a, b *ModeTracker) bool {
	return bytes.Equal(a.AppendReset(nil), b.AppendReset(nil)) && bytes.Equal(a.AppendRestore(nil), b.AppendRestore(nil))
}

// isSubsequence reports whether sub is s with some bytes left out.
func isSubsequence(sub, s []byte) bool {
	for _, c := range s {
		if len(sub) > 0 && sub[0] == c {
			sub = sub[1:]
		}
	}
	return len(sub) == 0
}

// FuzzModeTrackerChunking requires that any split of the output gives the
// output, modes and drops of a one-shot Write and Flush; that with
// clipboard reads allowed the output is the input and the modes are the
// same; and that otherwise the output is the input with bytes left out,
// only when a request was dropped, and only from an OSC on.
func FuzzModeTrackerChunking(f *testing.F) {
	for _, tt := range modeTests {
		f.Add([]byte(tt.in), []byte{0})
		f.Add([]byte(tt.in), []byte{2, 0, 5})
	}
	f.Fuzz(func(t *testing.T, in, cuts []byte) {
		one, t1 := trackSplit([][]byte{bytes.Clone(in)}, false)
		many, tn := trackSplit(chunks(bytes.Clone(in), cuts), false)
		if !bytes.Equal(many, one) || !sameModes(tn, t1) || tn.Dropped() != t1.Dropped() {
			t.Errorf("track %q in chunks %v:\n got %q, reset %q, restore %q, %d dropped\nwant %q, reset %q, restore %q, %d dropped (one-shot)",
				in, cuts, many, tn.AppendReset(nil), tn.AppendRestore(nil), tn.Dropped(),
				one, t1.AppendReset(nil), t1.AppendRestore(nil), t1.Dropped())
		}
		allowed, ta := trackSplit(chunks(bytes.Clone(in), cuts), true)
		if !bytes.Equal(allowed, in) || !sameModes(ta, t1) || ta.Dropped() != 0 {
			t.Errorf("track %q in chunks %v, reads allowed: got %q, reset %q, restore %q, %d dropped; want the input, reset %q, restore %q, none dropped",
				in, cuts, allowed, ta.AppendReset(nil), ta.AppendRestore(nil), ta.Dropped(), t1.AppendReset(nil), t1.AppendRestore(nil))
		}
		checkDrops(t, in, one, t1.Dropped())
	})
}

// oscStart matches the start of an OSC as a terminal reads it: ESC, the
// C0 controls and DEL it skips after the ESC, then ].
var oscStart = regexp.MustCompile(`\x1b[\x00-\x17\x19\x1c-\x1f\x7f]*\]`)

// checkDrops checks that out is in with bytes left out, only when requests
// were dropped, at most one per OSC, and only from the first OSC on.
func checkDrops(t *testing.T, in, out []byte, dropped int) {
	t.Helper()
	switch {
	case dropped == 0 && !bytes.Equal(out, in):
		t.Errorf("track %q: output %q with nothing dropped, want the input", in, out)
	case dropped > len(oscStart.FindAllIndex(in, -1)):
		t.Errorf("track %q: %d dropped, more than there are OSCs", in, dropped)
	case !isSubsequence(out, in):
		t.Errorf("track %q: output %q is not the input with bytes left out", in, out)
	case dropped > 0:
		osc := oscStart.FindIndex(in)[0]
		if !bytes.Equal(out[:min(osc, len(out))], in[:osc]) {
			t.Errorf("track %q: output %q changed before the first OSC", in, out)
		}
	}
}

// trackTokens are whole pieces of output, each with what the tracker
// passes on of it.
var trackTokens = []struct{ in, out string }{
	{"plain text\r\n", "plain text\r\n"},
	{"\x1b[?1049h", "\x1b[?1049h"},
	{"\x1b[?1049l", "\x1b[?1049l"},
	{"\x1b[?1000;1006h", "\x1b[?1000;1006h"},
	{"\x1b[>1u", "\x1b[>1u"},
	{"\x1b[<u", "\x1b[<u"},
	{"\x1b=", "\x1b="},
	{"\x1b[5 q", "\x1b[5 q"},
	{"\x1bc", "\x1bc"},
	{"\x1b]0;title\x07", "\x1b]0;title\x07"},
	{"\x1b]8;;http://x/\x1b\\", "\x1b]8;;http://x/\x1b\\"},
	{"\x1b]52;c;aGk=\x07", "\x1b]52;c;aGk=\x07"},
	{"\x1b]52;c;aGk=\x1b\\", "\x1b]52;c;aGk=\x1b\\"},
	{"\x1b]5522;type=write;aGk=\x07", "\x1b]5522;type=write;aGk=\x07"},
	{"\x1b]52;c;?\x07", ""},
	{"\x1b]52;;?\x1b\\", ""},
	{"\x1b]0052;p;?\x07", ""},
	{"\x1b]5522;type=read;Lg==\x1b\\", ""},
}

// FuzzModeTrackerTokens builds output from whole pieces, reads among
// them, and requires exactly the reads dropped, whatever the chunking.
func FuzzModeTrackerTokens(f *testing.F) {
	f.Add([]byte{0, 14, 1, 17, 11}, []byte{1})
	f.Add([]byte{15, 15, 9, 16, 13}, []byte{3, 7})
	f.Fuzz(func(t *testing.T, picks, cuts []byte) {
		var in, want []byte
		reads := 0
		for _, p := range picks {
			tok := trackTokens[int(p)%len(trackTokens)]
			in = append(in, tok.in...)
			want = append(want, tok.out...)
			if tok.out == "" {
				reads++
			}
		}
		got, tr := trackSplit(chunks(bytes.Clone(in), cuts), false)
		if !bytes.Equal(got, want) || tr.Dropped() != reads {
			t.Errorf("track %q in chunks %v:\n got %q, %d dropped\nwant %q, %d dropped", in, cuts, got, tr.Dropped(), want, reads)
		}
	})
}
