package termproto

import (
	"strings"
	"testing"
)

// filterAll writes the parts to a new OutputFilter in turn, then closes
// it.
func filterAll(eightBit bool, parts ...string) (string, *OutputFilter) {
	f := &OutputFilter{EightBit: eightBit}
	var out []byte
	for _, p := range parts {
		out = append(out, f.Write([]byte(p))...)
	}
	return string(append(out, f.Close()...)), f
}

// What one terminal or another reads otherwise than most, as a review of
// their sources found it: none of it may turn bracketed paste off, leave a
// mode on that the filter takes for off, or read the clipboard.
func TestTerminalsReadOtherwise(t *testing.T) {
	tests := []struct {
		name, in, out, reset string
	}{
		// kitty: SM/RM read past an intermediate byte; a '-' after ';'.
		{"kitty, an intermediate", "\x1b[?2004$l\x1b[?2004;-l", reassert + reassert, ""},
		// kitty: an ANSI mode (any marker but ?) is DEC mode n/32.
		{"kitty, ANSI 64128", "\x1b[64128l\x1b[>64128l\x1b[32000h\x1b[33568h", reassert, ""},
		// kitty reads 16 digits of a number: 2004, where the filter read 20045.
		{"kitty, 16 digits", "\x1b[?" + strings.Repeat("0", 12) + "20045l", "\x1b[?20045l", ""},
		// kitty: a soft reset for !p whatever the marker.
		{"kitty, DECSTR with a marker", "\x1b[?!p", "\x1b[?!p" + reassert, ""},
		// kitty pops 0 for an empty first parameter, ignores more than one.
		{"kitty, pops it ignores", "\x1b[>1u\x1b[<;u\x1b[<1;1u\x1b[<1:1u", "\x1b[>1u", "\x1b[<1u"},
		{"kitty, a pop of 16 digits", "\x1b[>1u\x1b[<00000000000000001u", "\x1b[>1u\x1b[<1u", ""},
		{"kitty, a set with 3 parameters", "\x1b[=1u\x1b[=0;1;0u", "\x1b[=1u", "\x1b[<1u"},
		// kitty reads a string on through CAN and SUB.
		{"kitty, a string cut by CAN", "\x1b[?1000h\x1b]0;x\x18", "\x1b[?1000h\x1b]0;x\x1b\\\x18", "\x1b[?1000l"},
		// tmux discards a sequence of 63 parameter bytes or more.
		{"tmux, 70 zeros", "\x1b[?1000h\x1b[?" + strings.Repeat("0", 70) + "1000l", "\x1b[?1000h\x1b[?1000l", ""},
		{"tmux, 79 parameter bytes", "\x1b[?1000h\x1b[?" + strings.Repeat("1000;", 15) + "1000l",
			"\x1b[?1000h\x1b[?" + strings.Repeat("1000;", 11) + "1000l\x1b[?1000;1000;1000;1000l", ""},
		// foot adds the OSC number up in an unsigned int: 52 wrapped round.
		{"foot, OSC 4294967348", "\x1b]4294967348;c;?\x1b\\", "", ""},
		// kitty cuts a long OSC 52 in parts: a "?" could start one.
		{"kitty, a long OSC 52", "\x1b]52;c;QUJD?\a", "\x1b]52;c;QUJD\a", ""},
	}
	for _, tt := range tests {
		out, f := filterAll(false, tt.in)
		if out != tt.out {
			t.Errorf("%s: %q passes as %q, want %q", tt.name, tt.in, out, tt.out)
		}
		if got := string(f.AppendReset(nil)); got != tt.reset {
			t.Errorf("%s: %q: AppendReset = %q, want %q", tt.name, tt.in, got, tt.reset)
		}
	}
}

// Found by a review: the output of these depended on how they were split.
func TestTerminalsSplit(t *testing.T) {
	for _, tc := range []struct {
		eightBit bool
		parts    []string
	}{
		{true, []string{"\x9d1\x1b", "0"}}, // A C1 OSC cut by ESC at the end of a Write.
		{false, []string{"\x1bP" + strings.Repeat("1;", 150), strings.Repeat("1;", 150), strings.Repeat("1;", 10) + "qX\x1b\\"}},
	} {
		one, _ := filterAll(tc.eightBit, strings.Join(tc.parts, ""))
		many, _ := filterAll(tc.eightBit, tc.parts...)
		if one != many {
			t.Errorf("%.60q: one Write gives %q, split %q", tc.parts, one, many)
		}
	}
	if out, _ := filterAll(false, "\x1bP"+strings.Repeat("1;", 310)+"qX\x1b\\"); out != "" {
		t.Errorf("a DCS header over maxSeq passes as %.60q, want nothing", out)
	}
}
