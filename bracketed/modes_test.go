package bracketed

import (
	"bytes"
	"strings"
	"testing"
)

// modeTests are the tracker's cases: what the child writes, and the resets
// and restores the tracker then gives. The output is the input unchanged,
// unless the case drops clipboard requests: then it is out.
var modeTests = []struct {
	name    string
	in      string
	reset   string
	restore string
	dropped int    // clipboard requests dropped
	out     string // the output, when dropped > 0
}{
	{name: "text", in: "hello, w\u00f6rld \u4e16\r\n"},
	{name: "SGR", in: "\x1b[31mred\x1b[0m \x1b[1;38;5;208mx\x1b[m\x1b[4;2m"},
	{name: "alternate screen", in: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "alternate screen left", in: "\x1b[?1049hvim\x1b[?1049l"},
	{name: "alternate screen 47", in: "\x1b[?47h", reset: "\x1b[?47l", restore: "\x1b[?47h"},
	{name: "alternate screen 1047 left by 47", in: "\x1b[?1047h\x1b[?47l"},
	{name: "alternate screen twice", in: "\x1b[?47h\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{
		name:    "combined",
		in:      "\x1b[?1049;1000;1006h",
		reset:   "\x1b[?1049l\x1b[?1000l\x1b[?1006l",
		restore: "\x1b[?1049h\x1b[?1000h\x1b[?1006h",
	},
	{name: "combined with 2004", in: "\x1b[?2004;1004h", reset: "\x1b[?1004l", restore: "\x1b[?1004h"},
	{name: "combined reset", in: "\x1b[?1000h\x1b[?1002h\x1b[?1000;1002l"},
	{
		name:    "every mouse mode",
		in:      "\x1b[?9h\x1b[?1001h\x1b[?1002h\x1b[?1003h\x1b[?1005h\x1b[?1015h\x1b[?1016h",
		reset:   "\x1b[?9l\x1b[?1001l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1015l\x1b[?1016l",
		restore: "\x1b[?9h\x1b[?1001h\x1b[?1002h\x1b[?1003h\x1b[?1005h\x1b[?1015h\x1b[?1016h",
	},
	{name: "focus", in: "\x1b[?1004h", reset: "\x1b[?1004l", restore: "\x1b[?1004h"},
	{name: "cursor hidden", in: "\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "cursor hidden then shown", in: "\x1b[?25l\x1b[?25h"},
	{name: "cursor shown", in: "\x1b[?25h"},
	{name: "cursor keys", in: "\x1b[?1h", reset: "\x1b[?1l", restore: "\x1b[?1h"},
	{name: "keypad", in: "\x1b=", reset: "\x1b>", restore: "\x1b="},
	{name: "keypad back", in: "\x1b=\x1b>"},
	{name: "keypad DECNKM", in: "\x1b[?66h", reset: "\x1b[?66l", restore: "\x1b[?66h"},
	{name: "no autowrap", in: "\x1b[?7l", reset: "\x1b[?7h", restore: "\x1b[?7l"},
	{name: "synchronized output", in: "\x1b[?2026h", reset: "\x1b[?2026l"},
	{name: "synchronized output ended", in: "\x1b[?2026hframe\x1b[?2026l"},
	{name: "kitty push", in: "\x1b[>1u", reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty push without flags", in: "\x1b[>u", reset: "\x1b[<1u", restore: "\x1b[>0u"},
	{name: "kitty push, push, pop", in: "\x1b[>1u\x1b[>3u\x1b[<u", reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty push, push, pop 2", in: "\x1b[>1u\x1b[>3u\x1b[<2u"},
	{name: "kitty pops more than pushed", in: "\x1b[>1u\x1b[<5u"},
	{name: "kitty pop 0", in: "\x1b[>1u\x1b[<0u", reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty set without push", in: "\x1b[=5;1u", reset: "\x1b[=0;1u", restore: "\x1b[=5;1u"},
	{name: "kitty set, how left out", in: "\x1b[=5u\x1b[=4;3u", reset: "\x1b[=0;1u", restore: "\x1b[=1;1u"},
	{name: "kitty set back to 0", in: "\x1b[=5u\x1b[=0u"},
	{name: "kitty set, then pop on empty", in: "\x1b[=5u\x1b[<u"},
	{name: "kitty set on a push", in: "\x1b[>1u\x1b[=8;2u", reset: "\x1b[<1u", restore: "\x1b[>9u"},
	{name: "kitty set, how unknown", in: "\x1b[>1u\x1b[=8;4u", reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty query", in: "\x1b[?u"},
	{
		name:    "kitty stacks per screen",
		in:      "\x1b[>1u\x1b[?1049h\x1b[>15u",
		reset:   "\x1b[<1u\x1b[?1049l\x1b[<1u",
		restore: "\x1b[>1u\x1b[?1049h\x1b[>15u",
	},
	{name: "kitty stack of the alternate screen only", in: "\x1b[?1049h\x1b[>1u", reset: "\x1b[<1u\x1b[?1049l", restore: "\x1b[?1049h\x1b[>1u"},
	{name: "kitty pop on the alternate screen", in: "\x1b[>1u\x1b[?1049h\x1b[<u", reset: "\x1b[?1049l\x1b[<1u", restore: "\x1b[>1u\x1b[?1049h"},
	{
		// Only entering it could reach the stack of a screen not shown.
		name: "kitty stack of the alternate screen left there",
		in:   "\x1b[?1049h\x1b[>1u\x1b[?1049l",
	},
	{
		name:    "kitty stack deeper than kept",
		in:      strings.Repeat("\x1b[>1u", 4) + strings.Repeat("\x1b[>2u", 16),
		reset:   "\x1b[<20u",
		restore: strings.Repeat("\x1b[>2u", 16),
	},
	{
		name:    "kitty pops below what is kept",
		in:      strings.Repeat("\x1b[>1u", 4) + strings.Repeat("\x1b[>2u", 16) + "\x1b[<17u\x1b[=4;2u",
		reset:   "\x1b[<3u",
		restore: "",
	},
	{name: "modifyOtherKeys", in: "\x1b[>4;2m", reset: "\x1b[>4m", restore: "\x1b[>4;2m"},
	{name: "modifyOtherKeys back", in: "\x1b[>4;2m\x1b[>4m"},
	{name: "modifyOtherKeys 0", in: "\x1b[>4;1m\x1b[>4;0m"},
	{name: "modifyOtherKeys disabled", in: "\x1b[>4;2m\x1b[>4n"},
	{name: "key modifiers all reset", in: "\x1b[>4;2m\x1b[>m"},
	{name: "other key modifier option", in: "\x1b[>1;2m"},
	{name: "cursor style", in: "\x1b[5 q", reset: "\x1b[0 q", restore: "\x1b[5 q"},
	{name: "cursor style default", in: "\x1b[5 q\x1b[ q"},
	{name: "cursor style 0", in: "\x1b[5 q\x1b[0 q"},
	{name: "cursor style, two intermediates", in: "\x1b[5  q"},
	{name: "RIS", in: "\x1b[?1049h\x1b[?1000h\x1b=\x1b[>1u\x1b[5 q\x1b[>4;2m\x1bc"},
	{name: "after RIS", in: "\x1bc\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "DECRQM", in: "\x1b[?1049$p"},
	{name: "intermediate", in: "\x1b[?1049 h"},
	{name: "not private", in: "\x1b[1049h\x1b[25l"},
	{name: "marker out of place", in: "\x1b[1?1049h\x1b[?1049?h"},
	{name: "digit after an intermediate", in: "\x1b[? 1049h"},
	{name: "sub-parameter", in: "\x1b[?1049:1h\x1b[<1:2u\x1b[=1:2u"},
	{
		// A push counts whatever its flags: popping one more than the terminal
		// pushed only resets flags that are already reset.
		name: "kitty push with a sub-parameter", in: "\x1b[>1:2u", reset: "\x1b[<1u", restore: "\x1b[>0u",
	},
	{name: "leading zeros", in: "\x1b[?01049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "empty parameters", in: "\x1b[?;1049;h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "huge parameter", in: "\x1b[?99999999999999999999h\x1b[>99999999999999999999u\x1b[<99999999999999999999u"},
	{name: "C0 inside", in: "\x1b[?10\r\n49h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "CAN cancels", in: "\x1b[?10\x1849h\x1b[?10\x1a49h"},
	{name: "ESC restarts", in: "\x1b[?10\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "not ASCII cancels", in: "\x1b[?10\xc3\xa949h"},
	{name: "mode in text", in: "?1049h [?1049h 2004h"},
	{name: "ESC sequences with intermediates", in: "\x1b(B\x1b#8\x1b(0x\x1b)=x"},
	{name: "ESC and a C0 then a final", in: "\x1b\r=", reset: "\x1b>", restore: "\x1b="},
	{name: "lone ESC then text", in: "\x1bx"},
	{name: "ESC at the end", in: "a\x1b"},
	{name: "CSI at the end", in: "a\x1b[?10"},

	// Strings pass, unchanged and not read into.
	{name: "OSC title", in: "\x1b]0;title\x07\x1b]2;t\x1b\\"},
	{name: "OSC hyperlink", in: "\x1b]8;;http://example.com/\x1b\\link\x1b]8;;\x1b\\"},
	{name: "OSC 5", in: "\x1b]5;x\x07\x1b]55;x\x07\x1b]552;x\x07\x1b]55222;x\x07\x1b]520;?\x07"},
	{name: "OSC without number", in: "\x1b];?\x07\x1b]\x07\x1b]x52;c;?\x07"},
	{name: "OSC cut by an ESC", in: "\x1b]0;title\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "OSC number cut by an ESC", in: "\x1b]5\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "DCS", in: "\x1bP$qm\x1b\\\x1bPtmux;\x1b\x1b[?25l\x1b\\", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "APC", in: "\x1b_Gf=100;AAAA\x1b\\"},
	{name: "OSC at the end", in: "a\x1b]0"},

	// Clipboard writes pass.
	{name: "OSC 52 write", in: "\x1b]52;c;aGVsbG8=\x07"},
	{name: "OSC 52 write with ST", in: "\x1b]52;c;aGVsbG8=\x1b\\"},
	{name: "OSC 52 write, question mark later", in: "\x1b]52;c;a?\x07"},
	{name: "OSC 52 clear", in: "\x1b]52;c;\x07\x1b]52;c;!\x07"},
	{name: "OSC 52 without data", in: "\x1b]52;c\x07\x1b]52;c\x1b\\\x1b]52\x07\x1b]52\x1b\\"},
	{name: "OSC 5522 write", in: "\x1b]5522;type=write\x07\x1b]5522;type=wdata:mime=dGV4dA==;aGk=\x1b\\\x1b]5522;type=wdata\x07"},
	{name: "OSC 5522 not quite read", in: "\x1b]5522;type=readx;a\x07\x1b]5522;xtype=read;a\x07\x1b]5522;type=rea;a\x07"},
	{name: "OSC 5522 read in the payload", in: "\x1b]5522;type=write;type=read\x07"},

	// Clipboard reads are dropped, up to their end.
	{name: "OSC 52 read", in: "a\x1b]52;c;?\x07b", dropped: 1, out: "ab"},
	{name: "OSC 52 read with ST", in: "a\x1b]52;c;?\x1b\\b", dropped: 1, out: "ab"},
	{name: "OSC 52 read, empty selection", in: "\x1b]52;;?\x07", dropped: 1},
	{name: "OSC 52 read, short form", in: "\x1b]52;?\x07", dropped: 1},
	{name: "OSC 52 read, ? in the selection", in: "\x1b]52;c?;x\x07", dropped: 1},
	{name: "OSC 52 read, leading zeros", in: "\x1b]0052;c;?\x07", dropped: 1},
	{name: "OSC 52 read, C0 and DEL in the number", in: "\x1b]5\r2;c;?\x07\x1b]5\x7f2;c;?\x07", dropped: 2},
	{name: "OSC 52 read, C0 before the data", in: "\x1b]52;c;\n?\x07", dropped: 1},
	{name: "OSC 52 read as kitty reads 52x", in: "\x1b]52x;?\x07", dropped: 1},
	{name: "OSC 52 read as kitty reads six digits", in: "\x1b]000052;?\x07\x1b]000520;?\x07", dropped: 2},
	{name: "OSC 52 read, then data", in: "\x1b]52;c;?junk\x07x", dropped: 1, out: "x"},
	{name: "OSC 52 read ended by CAN", in: "\x1b]52;c;?abc\x18x", dropped: 1, out: "x"},
	{name: "OSC 52 read ended by ESC", in: "\x1b]52;c;?\x1b[?25l", dropped: 1, out: "\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "OSC 52 read ended by ESC ESC", in: "\x1b]52;c;?\x1b\x1b\\", dropped: 1, out: "\x1b\x1b\\"},
	{name: "OSC 52 read, then a mode", in: "\x1b]52;c;?\x07\x1b[?1049h", dropped: 1, out: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "two reads", in: "\x1b]52;c;?\x07\x1b]52;p;?\x1b\\", dropped: 2},
	{name: "ESC ESC read", in: "\x1b\x1b]52;c;?\x07", dropped: 1, out: "\x1b"},
	{name: "read in tmux passthrough", in: "\x1bPtmux;\x1b\x1b]52;c;?\x07\x1b\\", dropped: 1, out: "\x1bPtmux;\x1b\x1b\\"},
	{name: "OSC 5522 read", in: "a\x1b]5522;type=read;dGV4dC9wbGFpbg==\x1b\\b", dropped: 1, out: "ab"},
	{name: "OSC 5522 read among fields", in: "\x1b]5522;id=x1:type=read:loc=primary;Lg==\x07", dropped: 1},
	{name: "OSC 5522 read without payload", in: "\x1b]5522;type=read\x07\x1b]5522;type=read\x1b\\", dropped: 2},
	{name: "OSC 5522 read, C0 in the metadata", in: "\x1b]5522;type=re\nad;x\x07", dropped: 1},
	{name: "OSC 5522 read as kitty reads six digits", in: "\x1b]055221:type=read;x\x07", dropped: 1},

	// Clipboard requests cut short are dropped too.
	{name: "OSC 52 cut by ESC", in: "\x1b]52;c\x1b[?25l", dropped: 1, out: "\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "OSC 52 number cut by ESC", in: "\x1b]52\x1b]52;c;?\x07x", dropped: 2, out: "x"},
	{name: "OSC 52 data cut by ESC", in: "\x1b]52;c;\x1bx", dropped: 1, out: "\x1bx"},
	{name: "OSC 52 cut by CAN", in: "\x1b]52;c\x18x\x1b]52\x1ay\x1b]52;c;\x18z", dropped: 3, out: "xyz"},
	{name: "OSC 5522 cut by ESC", in: "\x1b]5522;type=write\x1bx", dropped: 1, out: "\x1bx"},
	{name: "OSC 5522 cut by SUB", in: "\x1b]5522;type=wr\x1ax", dropped: 1, out: "x"},
	{name: "OSC 52 cut by the end", in: "a\x1b]52;c", dropped: 1, out: "a"},
	{name: "OSC 5522 cut by the end", in: "a\x1b]5522", dropped: 1, out: "a"},
	{name: "OSC 52 ESC at the end", in: "a\x1b]52;c\x1b", dropped: 1, out: "a"},
	{name: "too long a selection", in: "\x1b]52;" + strings.Repeat("c", 600) + ";aGk=\x07x", dropped: 1, out: "x"},
	{name: "too long a number", in: "\x1b]" + strings.Repeat("0", 600) + "52;c;?\x07x", dropped: 1, out: "x"},
	{name: "longest header held", in: "\x1b]52;" + strings.Repeat("c", maxClipHeader-6) + ";aGk=\x07"},
	{name: "longest header, and one more", in: "\x1b]52;" + strings.Repeat("c", maxClipHeader-5) + ";aGk=\x07", dropped: 1},
}

// trackChunks writes in to a new ModeTracker in chunks of n bytes, then
// flushes, and returns the output and the tracker.
func trackChunks(in []byte, n int, allow bool) ([]byte, *ModeTracker) {
	t := &ModeTracker{AllowClipboardRead: allow}
	var out []byte
	for len(in) > 0 {
		c := min(n, len(in))
		out = append(out, t.Write(in[:c])...)
		in = in[c:]
	}
	return append(out, t.Flush()...), t
}

func TestModeTracker(t *testing.T) {
	for _, tt := range modeTests {
		want := tt.in
		if tt.dropped > 0 {
			want = tt.out
		}
		for n := 1; n <= len(tt.in); n++ {
			got, tr := trackChunks([]byte(tt.in), n, false)
			if string(got) != want {
				t.Errorf("%s: %q, read size %d: output\n got %q\nwant %q", tt.name, tt.in, n, got, want)
			}
			checkTracker(t, tt.name, tt.in, n, tr, tt.reset, tt.restore, tt.dropped)
		}
	}
}

// With clipboard reads allowed the output is the input, and the modes are
// the same.
func TestModeTrackerAllowClipboardRead(t *testing.T) {
	for _, tt := range modeTests {
		for n := 1; n <= len(tt.in); n++ {
			got, tr := trackChunks([]byte(tt.in), n, true)
			if string(got) != tt.in {
				t.Errorf("%s: %q, read size %d, reads allowed: output %q, want it unchanged", tt.name, tt.in, n, got)
			}
			checkTracker(t, tt.name, tt.in, n, tr, tt.reset, tt.restore, 0)
		}
	}
}

func checkTracker(t *testing.T, name, in string, n int, tr *ModeTracker, reset, restore string, dropped int) {
	t.Helper()
	if got := string(tr.AppendReset(nil)); got != reset {
		t.Errorf("%s: %q, read size %d: AppendReset\n got %q\nwant %q", name, in, n, got, reset)
	}
	if got := string(tr.AppendRestore(nil)); got != restore {
		t.Errorf("%s: %q, read size %d: AppendRestore\n got %q\nwant %q", name, in, n, got, restore)
	}
	if got := tr.Dropped(); got != dropped {
		t.Errorf("%s: %q, read size %d: Dropped() = %d, want %d", name, in, n, got, dropped)
	}
	if tr.Pending() {
		t.Errorf("%s: %q, read size %d: Pending() after Flush", name, in, n)
	}
}

// TestModeTrackerHolds checks what a Write holds back, and what Flush does
// with it.
func TestModeTrackerHolds(t *testing.T) {
	tests := []struct {
		in    string
		out   string // what Write passes on
		flush string // what Flush returns
	}{
		{"a\x1b", "a", "\x1b"},
		{"a\x1b[", "a\x1b[", ""},
		{"a\x1b]", "a", "\x1b]"},
		{"a\x1b]0", "a", "\x1b]0"},
		{"a\x1b]0;", "a\x1b]0;", ""},
		{"a\x1b]5", "a", "\x1b]5"},
		{"a\x1b]52", "a", ""},
		{"a\x1b]52;c;", "a", ""},
		{"a\x1b]52;c;a", "a\x1b]52;c;a", ""},
		{"a\x1b]52;c;?", "a", ""},
		{"a\x1b]5522;type=", "a", ""},
	}
	for _, tt := range tests {
		var tr ModeTracker
		if got := tr.Write([]byte(tt.in)); string(got) != tt.out {
			t.Errorf("Write(%q) = %q, want %q", tt.in, got, tt.out)
		}
		if got := string(tr.Flush()); got != tt.flush {
			t.Errorf("Write(%q): Flush() = %q, want %q", tt.in, got, tt.flush)
		}
	}
}

// TestModeTrackerAcrossWrites follows a session's modes chunk by chunk.
func TestModeTrackerAcrossWrites(t *testing.T) {
	var tr ModeTracker
	steps := []struct {
		in, reset string
	}{
		{"prompt$ ", ""},
		{"\x1b[?10", ""},
		{"49h", "\x1b[?1049l"},
		{"\x1b[>1u", "\x1b[<1u\x1b[?1049l"},
		{"\x1b[?1000;1006h\x1b[?25l", "\x1b[<1u\x1b[?1049l\x1b[?1000l\x1b[?1006l\x1b[?25h"},
		{"\x1b[<u\x1b[?1000;1006l\x1b[?25h\x1b[?1049l", ""},
	}
	for _, s := range steps {
		tr.Write([]byte(s.in))
		if got := string(tr.AppendReset(nil)); got != s.reset {
			t.Errorf("after %q: AppendReset = %q, want %q", s.in, got, s.reset)
		}
	}
}

// TestModeTrackerAliasing checks the documented aliasing: the result is p
// itself when nothing is dropped or held.
func TestModeTrackerAliasing(t *testing.T) {
	for _, in := range []string{"plain text", "\x1b[31mred\x1b[0m", "\x1b[?1049h\x1b[?25l", "\x1b]0;title\x07", "\x1b]52;c;aGk=\x07"} {
		var tr ModeTracker
		p := []byte(in)
		if got := tr.Write(p); len(got) != len(p) || &got[0] != &p[0] {
			t.Errorf("Write(%q) did not return its argument", in)
		}
	}
}

// TestModeTrackerAllocs guards the output path: text, sequences, a dropped
// read and a header held across Writes cost no allocation once the buffers
// have grown.
func TestModeTrackerAllocs(t *testing.T) {
	var tr ModeTracker
	for _, in := range [][]string{
		{"hello, world\r\n"},
		{"\x1b[1;31merror\x1b[0m: x\r\n\x1b[?25l\x1b[?25h"},
		{"\x1b[>1u\x1b[<u\x1b[?1049h\x1b[?1049l"},
		{"a\x1b]52;c;?\x07b"},
		{"a\x1b]52;c", ";aGk=\x07"},
		{"a\x1b]52;c", ";?", "\x07b"},
	} {
		chunks := make([][]byte, len(in))
		for i, p := range in {
			chunks[i] = []byte(p)
		}
		write := func() {
			for _, p := range chunks {
				tr.Write(p)
			}
		}
		write() // grow the buffers
		if got := testing.AllocsPerRun(1000, write); got != 0 {
			t.Errorf("%v allocations per Write of %q, want 0", got, in)
		}
	}
}

// TestModeTrackerResultValid checks that the internal buffer does not leak
// into p.
func TestModeTrackerResultValid(t *testing.T) {
	var tr ModeTracker
	p := []byte("x\x1b]52;c;?\x07y")
	got := bytes.Clone(tr.Write(p))
	if string(got) != "xy" || string(p) != "x\x1b]52;c;?\x07y" {
		t.Errorf("Write = %q and changed its argument to %q", got, p)
	}
}

// TestAppendFullReset checks the reset for a terminal in an unknown state,
// and that it undoes everything a tracker can reset.
func TestAppendFullReset(t *testing.T) {
	const want = "\x1b[<256u\x1b[?1047l\x1b[<256u" +
		"\x1b[?9l\x1b[?1000l\x1b[?1001l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l" +
		"\x1b[?1004l\x1b[?1l\x1b[?66l\x1b[?7h\x1b[?25h\x1b>\x1b[>4m\x1b[0 q\x1b[?2026l"
	full := AppendFullReset(nil)
	if string(full) != want {
		t.Errorf("AppendFullReset\n got %q\nwant %q", full, want)
	}
	var everything strings.Builder
	for _, tt := range modeTests {
		everything.WriteString(tt.in)
	}
	var tr ModeTracker
	tr.Write([]byte(everything.String()))
	tr.Write(full)
	if got := tr.AppendReset(nil); len(got) > 0 {
		t.Errorf("after AppendFullReset, AppendReset = %q, want nothing", got)
	}
}

// After AppendReset's sequences, a tracker has nothing left to reset; after
// AppendRestore's, it restores the same again.
func TestModeTrackerResetAndRestoreRoundTrip(t *testing.T) {
	for _, tt := range modeTests {
		if strings.Contains(tt.name, "left there") {
			continue // Documented: that stack is out of reach.
		}
		var tr ModeTracker
		tr.Write([]byte(tt.in))
		tr.Flush()
		reset, restore := tr.AppendReset(nil), tr.AppendRestore(nil)
		var after ModeTracker
		after.modes = tr.modes
		after.Write(reset)
		if got := after.AppendReset(nil); len(got) > 0 {
			t.Errorf("%s: after its reset %q, AppendReset = %q, want nothing", tt.name, reset, got)
		}
		after.Write(restore)
		if got := after.AppendRestore(nil); !bytes.Equal(got, restore) {
			t.Errorf("%s: after its restore %q, AppendRestore = %q, want the same", tt.name, restore, got)
		}
	}
}
