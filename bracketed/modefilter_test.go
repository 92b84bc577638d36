package bracketed

import (
	"bytes"
	"strings"
	"testing"
)

var modeFilterTests = []struct {
	name    string
	in      string
	want    string
	enabled bool // Enabled() at the end
}{
	{name: "text", in: "hello, w\u00f6rld \u4e16\r\n", want: "hello, w\u00f6rld \u4e16\r\n"},
	{name: "set", in: "a\x1b[?2004hb", want: "ab", enabled: true},
	{name: "reset", in: "a\x1b[?2004lb", want: "ab"},
	{name: "set then reset", in: "\x1b[?2004h\x1b[?2004l", want: ""},
	{name: "reset then set", in: "\x1b[?2004l\x1b[?2004h", want: "", enabled: true},
	{name: "set alone", in: "\x1b[?2004h", want: "", enabled: true},
	{name: "combined first", in: "\x1b[?2004;1h", want: "\x1b[?1h", enabled: true},
	{name: "combined last", in: "\x1b[?1049;2004h", want: "\x1b[?1049h", enabled: true},
	{name: "combined middle", in: "\x1b[?1;2004;25l", want: "\x1b[?1;25l"},
	{name: "twice", in: "\x1b[?2004;2004h", want: "", enabled: true},
	{name: "leading zeros", in: "\x1b[?02004h", want: "", enabled: true},
	{name: "many zeros", in: "\x1b[?1;0000002004h", want: "\x1b[?1h", enabled: true},
	{name: "empty param kept", in: "\x1b[?;2004h", want: "\x1b[?h", enabled: true},
	{name: "empty params kept", in: "\x1b[?1;;2004;h", want: "\x1b[?1;;h", enabled: true},
	{name: "other private modes", in: "\x1b[?25l\x1b[?1049h\x1b[?1004h\x1b[?20040h\x1b[?204h", want: "\x1b[?25l\x1b[?1049h\x1b[?1004h\x1b[?20040h\x1b[?204h"},
	{name: "no params", in: "\x1b[?h\x1b[?l", want: "\x1b[?h\x1b[?l"},
	{name: "SGR", in: "\x1b[31mred\x1b[0m \x1b[1;38;5;208mx\x1b[m", want: "\x1b[31mred\x1b[0m \x1b[1;38;5;208mx\x1b[m"},
	{name: "DECRQM untouched", in: "\x1b[?2004$p", want: "\x1b[?2004$p"},
	{name: "not private", in: "\x1b[2004h\x1b[2004l", want: "\x1b[2004h\x1b[2004l"},
	{name: "other final byte", in: "\x1b[?2004s\x1b[?2004r\x1b[?2004n", want: "\x1b[?2004s\x1b[?2004r\x1b[?2004n"},
	{name: "intermediate", in: "\x1b[?2004 h\x1b[?>2004h\x1b[>?2004h", want: "\x1b[?2004 h\x1b[?>2004h\x1b[>?2004h"},
	{name: "sub-parameter", in: "\x1b[?2004:1h", want: "\x1b[?2004:1h"},
	{name: "mode in text", in: "2004h ?2004h [?2004h", want: "2004h ?2004h [?2004h"},
	{name: "RIS", in: "a\x1bcb", want: "a\x1bc\x1b[?2004hb"},
	{name: "RIS resets the mode", in: "\x1b[?2004h\x1bc", want: "\x1bc\x1b[?2004h"},
	{name: "set after RIS", in: "\x1bc\x1b[?2004h", want: "\x1bc\x1b[?2004h", enabled: true},
	{name: "not RIS", in: "\x1b(c\x1b#c\x1b[c\x1b[?c", want: "\x1b(c\x1b#c\x1b[c\x1b[?c"},
	{name: "ESC ESC", in: "\x1b\x1b[?2004h\x1b\x1bc", want: "\x1b\x1b\x1bc\x1b[?2004h"},
	{name: "aborted by ESC", in: "\x1b[?20\x1b[?2004h", want: "\x1b[?20", enabled: true},
	{name: "OSC title", in: "\x1b]0;\x1b[?2004l\x07", want: "\x1b]0;\x07"},
	{name: "lone ESC then text", in: "\x1bx", want: "\x1bx"},
	{name: "cut off then Flush", in: "a\x1b[?2004", want: "a\x1b[?2004"},
	{name: "ESC at the end", in: "a\x1b", want: "a\x1b"},
	{name: "ESC [ at the end", in: "a\x1b[", want: "a\x1b["},
	{
		name:    "longest recognised",
		in:      "\x1b[?" + strings.Repeat("0", 56) + "2004h",
		want:    "",
		enabled: true,
	},
	{
		name: "too long: passed as is",
		in:   "\x1b[?" + strings.Repeat("0", 57) + "2004h",
		want: "\x1b[?" + strings.Repeat("0", 57) + "2004h",
	},
	{
		name: "too long params then a real one",
		in:   "\x1b[?" + strings.Repeat("1;", 40) + "2004h\x1b[?2004h",
		want: "\x1b[?" + strings.Repeat("1;", 40) + "2004h",
		// The long sequence is passed as is; only the short one counts.
		enabled: true,
	},
	{
		name: "long but recognised",
		in:   "\x1b[?" + strings.Repeat("1;", 28) + "2004l",
		want: "\x1b[?" + strings.Repeat("1;", 27) + "1l",
	},
	{
		name: "vim",
		in:   "\x1b[?1049h\x1b[22;0;0t\x1b[?1h\x1b=\x1b[H\x1b[2J\x1b[?2004h\x1b[?25htext\x1b[?2004l\x1b[?1049l",
		want: "\x1b[?1049h\x1b[22;0;0t\x1b[?1h\x1b=\x1b[H\x1b[2J\x1b[?25htext\x1b[?1049l",
	},
}

// filterChunks writes in to a new ModeFilter in chunks of n bytes, then
// flushes, and returns the concatenated output and the filter.
func filterChunks(in []byte, n int) ([]byte, *ModeFilter) {
	var f ModeFilter
	var out []byte
	for len(in) > 0 {
		c := min(n, len(in))
		out = append(out, f.Write(in[:c])...)
		in = in[c:]
	}
	return append(out, f.Flush()...), &f
}

func TestModeFilter(t *testing.T) {
	for _, tt := range modeFilterTests {
		for n := 1; n <= len(tt.in); n++ {
			got, f := filterChunks([]byte(tt.in), n)
			if string(got) != tt.want {
				t.Errorf("%s: filter %q, read size %d:\n got %q\nwant %q", tt.name, tt.in, n, got, tt.want)
			}
			if f.Enabled() != tt.enabled {
				t.Errorf("%s: filter %q, read size %d: Enabled() = %v, want %v", tt.name, tt.in, n, f.Enabled(), tt.enabled)
			}
			if f.Pending() {
				t.Errorf("%s: filter %q, read size %d: Pending() after Flush", tt.name, tt.in, n)
			}
		}
	}
}

// TestModeFilterPending checks which chunk ends are held.
func TestModeFilterPending(t *testing.T) {
	tests := []struct {
		in   string
		out  string // what Write passes on
		held string // what Flush returns; Pending() is true when it is not empty
	}{
		{"a\x1b", "a", "\x1b"},
		{"a\x1b[", "a", "\x1b["},
		{"a\x1b[?", "a", "\x1b[?"},
		{"a\x1b[?1;2004", "a", "\x1b[?1;2004"},
		{"a\x1b[?1;2004h", "a\x1b[?1h", ""},
		{"a\x1b[1", "a\x1b[1", ""},
		{"a\x1b]", "a\x1b]", ""},
		{"a\x1b[?2004$", "a\x1b[?2004$", ""},
		{"\x1b[?" + strings.Repeat("1", 60), "", "\x1b[?" + strings.Repeat("1", 60)},
		{"\x1b[?" + strings.Repeat("1", 61), "\x1b[?" + strings.Repeat("1", 61), ""},
	}
	for _, tt := range tests {
		var f ModeFilter
		if got := f.Write([]byte(tt.in)); string(got) != tt.out {
			t.Errorf("Write(%q) = %q, want %q", tt.in, got, tt.out)
		}
		if got, want := f.Pending(), tt.held != ""; got != want {
			t.Errorf("Write(%q): Pending() = %v, want %v", tt.in, got, want)
		}
		if got := string(f.Flush()); got != tt.held {
			t.Errorf("Write(%q): Flush() = %q, want %q", tt.in, got, tt.held)
		}
		if f.Pending() {
			t.Errorf("Write(%q): Pending() after Flush", tt.in)
		}
	}
}

// TestModeFilterTracking checks Enabled after each chunk of a session.
func TestModeFilterTracking(t *testing.T) {
	var f ModeFilter
	steps := []struct {
		in      string
		enabled bool
	}{
		{"prompt$ ", false},
		{"\x1b[?20", false}, // held, not yet applied
		{"04h", true},
		{"\x1b[?1049;2004l", false},
		{"\x1b[?2004$p", false},
		{"\x1b[?2004h", true},
		{"\x1b[2004l", true},
		{"\x1bc", false},
	}
	for _, s := range steps {
		f.Write([]byte(s.in))
		if got := f.Enabled(); got != s.enabled {
			t.Errorf("after %q: Enabled() = %v, want %v", s.in, got, s.enabled)
		}
	}
}

// TestModeFilterAliasing checks the documented aliasing: the result is p
// itself when nothing changes.
func TestModeFilterAliasing(t *testing.T) {
	for _, in := range []string{"plain text", "\x1b[31mred\x1b[0m", "\x1b[?25h"} {
		var f ModeFilter
		p := []byte(in)
		if got := f.Write(p); len(got) != len(p) || &got[0] != &p[0] {
			t.Errorf("Write(%q) did not return its argument", in)
		}
	}
}

// TestModeFilterAllocs guards the output path: text and unchanged sequences
// cost no allocation, nor does removing a mode once the buffer has grown.
func TestModeFilterAllocs(t *testing.T) {
	var f ModeFilter
	tests := []struct {
		name string
		in   []byte
	}{
		{"text", []byte("hello, world\r\n")},
		{"colored", []byte("\x1b[1;31merror\x1b[0m: x\r\n")},
		{"mode set", []byte("a\x1b[?1049;2004hb")},
		{"RIS", []byte("a\x1bcb")},
		{"held across writes", []byte("a\x1b[?20")},
	}
	for _, tt := range tests {
		f.Write(tt.in) // grow the buffer
		if got := testing.AllocsPerRun(1000, func() { f.Write(tt.in) }); got != 0 {
			t.Errorf("%s: %v allocations per Write(%q), want 0", tt.name, got, tt.in)
		}
	}
	f.Flush()
}

// TestModeFilterResultValid checks that a result survives until the next call
// only, as documented, and that the internal buffer does not leak into p.
func TestModeFilterResultValid(t *testing.T) {
	var f ModeFilter
	p := []byte("x\x1b[?2004hy")
	got := bytes.Clone(f.Write(p))
	if string(got) != "xy" || string(p) != "x\x1b[?2004hy" {
		t.Errorf("Write(%q) = %q and changed its argument to %q", "x\x1b[?2004hy", got, p)
	}
}

// TestModeFilterEnabledConcurrent reads Enabled while another goroutine
// writes, for the race detector.
func TestModeFilterEnabledConcurrent(t *testing.T) {
	var f ModeFilter
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			f.Write([]byte("\x1b[?2004h"))
			f.Write([]byte("\x1b[?2004l"))
		}
		f.Write([]byte("\x1b[?2004h"))
	}()
	for {
		select {
		case <-done:
			if !f.Enabled() {
				t.Errorf("Enabled() = false after \\x1b[?2004h")
			}
			return
		default:
			_ = f.Enabled()
		}
	}
}
