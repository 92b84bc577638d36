package termproto

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

// same, as a case's out, means the output is the input unchanged.
const same = "\x00same"

// reassert is what the filter writes after anything that may have turned
// bracketed paste off at the terminal.
const reassert = PasteOn

// outputTests are the filter's cases: what the child writes, what reaches
// the terminal, the child's bracketed paste mode at the end, the resets
// and restores the filter then gives, and the clipboard requests dropped.
var outputTests = []struct {
	name    string
	in      string
	out     string
	enabled bool
	reset   string
	restore string
	dropped int
}{
	{name: "text", in: "hello, w\u00f6rld \u4e16 \u2500\u276f\r\n", out: same},
	{name: "SGR", in: "\x1b[31mred\x1b[0m \x1b[1;38;5;208mx\x1b[m\x1b[38:2::1:2:3m", out: same, reset: sgrOff},
	{name: "SGR back to default", in: "\x1b[1;31m\x1b[0m\x1b[4m\x1b[1;0m", out: same},

	// Bracketed paste: the child's changes never reach the terminal.
	{name: "2004 set", in: "a\x1b[?2004hb", out: "ab", enabled: true},
	{name: "2004 reset", in: "a\x1b[?2004lb", out: "ab"},
	{name: "2004 set then reset", in: "\x1b[?2004h\x1b[?2004l", out: ""},
	{name: "2004 reset then set", in: "\x1b[?2004l\x1b[?2004h", out: "", enabled: true},
	{name: "2004 combined first", in: "\x1b[?2004;1h", out: "\x1b[?1h", enabled: true, reset: "\x1b[?1l", restore: "\x1b[?1h"},
	{name: "2004 combined last", in: "\x1b[?1049;2004h", out: "\x1b[?1049h", enabled: true, reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "2004 combined middle", in: "\x1b[?1;2004;25l", out: "\x1b[?1;25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "2004 twice", in: "\x1b[?2004;2004h", out: "", enabled: true},
	{name: "2004 leading zeros", in: "\x1b[?02004h\x1b[?1;0000002004l", out: "\x1b[?1l"},
	{name: "2004 as the main value of a sub-parameter", in: "\x1b[?2004:1h", out: "", enabled: true},
	{name: "2004 only as a sub-parameter", in: "\x1b[?1:2004h", out: "\x1b[?1h", reset: "\x1b[?1l", restore: "\x1b[?1h"},
	{name: "2004 with empty parameters", in: "\x1b[?;2004h\x1b[?1;;2004;l", out: "\x1b[?1l", enabled: false},
	// An ANSI mode of 32 or more is dropped: kitty reads 64128 as DEC 2004.
	{name: "2004 in other modes", in: "\x1b[?20040h\x1b[?204h\x1b[2004h\x1b[2004l\x1b[64128l", out: "\x1b[?20040h\x1b[?204h"},
	{name: "no parameters", in: "\x1b[?h\x1b[?l\x1b[h", out: "\x1b[h"},
	{name: "2004 query", in: "\x1b[?2004$p", out: same},
	{name: "2004 saved and restored", in: "\x1b[?2004h\x1b[?2004s\x1b[?2004l\x1b[?2004r", out: reassert, enabled: true},
	{name: "XTRESTORE of another mode", in: "\x1b[?1000s\x1b[?1000r", out: "\x1b[?1000s\x1b[?1000r" + reassert},
	{name: "XTSAVE without modes", in: "\x1b[?s\x1b[?r", out: reassert + reassert},
	// kitty reads past the intermediate byte, and takes another marker for none.
	{name: "2004 with an intermediate", in: "\x1b[?2004 h\x1b[?2004$l\x1b[?2004;-l\x1b[>64128l", out: strings.Repeat(reassert, 4)},
	{name: "DECSTR with a marker", in: "\x1b[?!p", out: "\x1b[?!p" + reassert}, // kitty resets then.
	{name: "2004 in text", in: "2004h ?2004h [?2004h", out: same},
	{name: "RIS", in: "a\x1bcb", out: "a\x1bc" + reassert + "b"},
	{name: "RIS resets 2004", in: "\x1b[?2004h\x1bc", out: "\x1bc" + reassert},
	{name: "2004 set after RIS", in: "\x1bc\x1b[?2004h", out: "\x1bc" + reassert, enabled: true},
	{name: "not RIS", in: "\x1b(c\x1b#c\x1b[c\x1b[?c", out: same, reset: "\x1b(B"},
	{name: "DECSTR", in: "\x1b[?2004h\x1b[?1h\x1b[?1000h\x1b[!p", out: "\x1b[?1h\x1b[?1000h\x1b[!p" + reassert, enabled: true,
		reset: "\x1b[?1000l\x1b[?1l", restore: "\x1b[?1000h\x1b[?1h"},
	{name: "DECSCL", in: "a\x1b[62;1\"pb", out: "a" + reassert + "b"},
	{name: "vim", in: "\x1b[?1049h\x1b[22;0;0t\x1b[?1h\x1b=\x1b[H\x1b[2J\x1b[?2004h\x1b[?25htext\x1b[?2004l\x1b[?1l\x1b>\x1b[?1049l",
		out: "\x1b[?1049h\x1b[22;0;0t\x1b[?1h\x1b=\x1b[H\x1b[2J\x1b[?25htext\x1b[?1l\x1b>\x1b[?1049l"},

	// Read as terminals read: a C0 control inside a sequence is executed
	// and the sequence goes on; it passes before the sequence.
	{name: "BEL inside 2004", in: "\x1b[?20\a04l", out: "\a"},
	{name: "C0 inside", in: "\x1b[?10\r\n49h", out: "\r\n\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "C0 after CSI", in: "\x1b[\b?2004l", out: "\b"},
	{name: "C0 after ESC", in: "\x1b\a[?2004l\x1b\r=", out: "\a\r\x1b=", reset: keypadOff, restore: keypadOn},
	{name: "C0 among intermediates", in: "\x1b[5 \vq", out: "\v\x1b[5 q", reset: cursorStyleOff, restore: "\x1b[5 q"},
	{name: "DEL inside", in: "\x1b[?20\x7f04l\x1b[?10\x7f49h", out: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "CAN cancels", in: "\x1b[?10\x1849h\x1b[?20\x1a04l", out: "\x1849h\x1a04l"},
	{name: "ESC restarts", in: "\x1b[?10\x1b[?25l\x1b[?20\x1b[?2004l", out: "\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "ESC ESC", in: "\x1b\x1b[?2004h\x1b\x1bc", out: "\x1bc" + reassert},
	{name: "not ASCII inside", in: "\x1b[?20\u00e904l\x1b[?10\u4e1649h", out: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "invalid UTF-8 inside", in: "\x1b[?20\xff04l\x1b[?20\xe2\x8204l", out: ""},
	{name: "marker out of place", in: "\x1b[1?1049h\x1b[?1049?h\x1b[?2004?l\x1b[??2004l", out: ""},
	{name: "parameter after an intermediate", in: "\x1b[? 1049h\x1b[?20$04l", out: ""},
	{name: "csi_ignore then text", in: "\x1b[1?2004lx", out: "x"},
	{name: "many parameters", in: "\x1b[?" + strings.Repeat("1;", 20) + "2004l",
		out: "\x1b[?" + strings.Repeat("1;", 15) + "1l\x1b[?1;1;1;1l"},
	// tmux discards a sequence of over 62 parameter bytes.
	{name: "many parameter bytes", in: "\x1b[?" + strings.Repeat("1000;", 16) + "2004l", out: "\x1b[?" + strings.Repeat("1000;", 11) + "1000l\x1b[?1000;1000;1000;1000l"},
	{name: "too many digits", in: "\x1b[?" + strings.Repeat("0", 12) + "20045l\x1b[?" + strings.Repeat("0", 70) + "1000l", out: "\x1b[?20045l\x1b[?1000l"},
	{name: "too many parameters", in: "\x1b[?" + strings.Repeat("1;", 40) + "2004l\x1b[?2004h", out: reassert, enabled: true},
	{name: "a parameter no mode has", in: "\x1b[?99999999999999999999l\x1b[?4294969300l\x1b[?70000;25l", out: "\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "leading zeros of other modes", in: "\x1b[?01049h", out: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "long but read", in: "\x1b[?" + strings.Repeat("0", 200) + "2004l", out: ""},
	{name: "too long", in: "\x1b[?" + strings.Repeat("0", maxSeq) + "1049h", out: reassert},
	{name: "longest parameters kept", in: "\x1b[" + strings.Repeat("0", maxParamBytes) + "m", out: same},
	{name: "too long parameters", in: "\x1b[" + strings.Repeat("0", maxParamBytes+1) + "m", out: reassert},

	// In UTF-8 output a C1 control, encoded or a lone byte, is made
	// harmless: VTE takes U+009B for CSI, an 8-bit terminal the byte, and
	// the others ignore both, or drop the byte.
	{name: "C1 CSI", in: "\u009b?2004l\u009b?1049h", out: "\uFFFD?2004l\uFFFD?1049h"},
	{name: "C1 CSI, a lone byte", in: "\x9b?2004h\x9b?1000h\x9b2J", out: "\uFFFD?2004h\uFFFD?1000h\uFFFD2J"},
	{name: "C1 CSI inside a CSI", in: "\x1b[?1\u009b?2004l", out: ""},
	{name: "C1 ST inside a sequence", in: "\x1b[?10\u009c49h", out: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "C1 that acts, inside a sequence", in: "\x1b[?20\u008504l", out: ""},
	{name: "C1 controls in text", in: "a\u0085b\u009cc\x85d", out: "a\uFFFDb\uFFFDc\uFFFDd"},
	{name: "legacy 8-bit text", in: "P\x9e\xedli\x9a\r\nnext\x1b[31m", out: "P\uFFFD\xedli\uFFFD\r\nnext\x1b[31m", reset: sgrOff},
	{name: "UTF-8 continuation bytes are not C1", in: "\u2500\u251b\u276f\u26d4", out: same},
	{name: "C1 OSC read", in: "\u009d52;c;?\u009cx\x9d52;c;?\ay", out: "\uFFFD52;c;?\uFFFDx\uFFFD52;c;?\ay"},
	{name: "C1 in an OSC", in: "\x1b]0;t\u009cx\x1b\\\x1b]52;c\u009c;?\a", out: "\x1b]0;t\uFFFDx\x1b\\", dropped: 1},

	// Sequences that change how the terminal reads or answers are dropped.
	{name: "S8C1T", in: "a\x1b Gb\x1b Fc", out: "ab\x1b Fc"},
	{name: "ANSI conformance", in: "\x1b L\x1b M\x1b N", out: ""},
	{name: "leave UTF-8", in: "\x1b%@\x1b%G", out: "\x1b%G"},
	{name: "an introducer after an intermediate", in: "\x1b [!p\x1b#]x", out: "!px"},
	{name: "VT52 mode", in: "\x1b[?2l\x1b[?2;25l\x1b[?2h", out: "\x1b[?25l\x1b[?2h", reset: "\x1b[?25h", restore: "\x1b[?25l"},

	// The modes followed.
	{name: "alternate screen", in: "\x1b[?1049h", out: same, reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "alternate screen left", in: "\x1b[?1049hvim\x1b[?1049l", out: same},
	{name: "alternate screen 47", in: "\x1b[?47h", out: same, reset: "\x1b[?47l", restore: "\x1b[?47h"},
	{name: "alternate screen 1047 left by 47", in: "\x1b[?1047h\x1b[?47l", out: same},
	{name: "alternate screen twice", in: "\x1b[?47h\x1b[?1049h", out: same, reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "combined", in: "\x1b[?1049;1000;1006h", out: same,
		reset: "\x1b[?1049l\x1b[?1000l\x1b[?1006l", restore: "\x1b[?1049h\x1b[?1000h\x1b[?1006h"},
	{name: "combined reset", in: "\x1b[?1000h\x1b[?1002h\x1b[?1000;1002l", out: same},
	{name: "every mouse mode", in: "\x1b[?9h\x1b[?1001h\x1b[?1002h\x1b[?1003h\x1b[?1005h\x1b[?1015h\x1b[?1016h", out: same,
		reset:   "\x1b[?9l\x1b[?1001l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1015l\x1b[?1016l",
		restore: "\x1b[?9h\x1b[?1001h\x1b[?1002h\x1b[?1003h\x1b[?1005h\x1b[?1015h\x1b[?1016h"},
	{name: "focus", in: "\x1b[?1004h", out: same, reset: "\x1b[?1004l", restore: "\x1b[?1004h"},
	{name: "reports", in: "\x1b[?2031h\x1b[?2048h", out: same, reset: "\x1b[?2031l\x1b[?2048l", restore: "\x1b[?2031h\x1b[?2048h"},
	{name: "kitty clipboard mode", in: "\x1b[?5522h", out: ""},
	{name: "key encodings", in: "\x1b[?9001h\x1b[?7727h\x1b[?1051h\x1b[?1061h", out: same,
		reset: "\x1b[?9001l\x1b[?7727l\x1b[?1051l\x1b[?1061l", restore: "\x1b[?9001h\x1b[?7727h\x1b[?1051h\x1b[?1061h"},
	{name: "cursor hidden", in: "\x1b[?25l", out: same, reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "cursor hidden then shown", in: "\x1b[?25l\x1b[?25h", out: same},
	{name: "cursor blinking", in: "\x1b[?12h", out: same, reset: "\x1b[?12l", restore: "\x1b[?12h"},
	{name: "cursor keys", in: "\x1b[?1h", out: same, reset: "\x1b[?1l", restore: "\x1b[?1h"},
	{name: "keypad", in: "\x1b=", out: same, reset: keypadOff, restore: keypadOn},
	{name: "keypad back", in: "\x1b=\x1b>", out: same},
	{name: "keypad DECNKM", in: "\x1b[?66h", out: same, reset: "\x1b[?66l", restore: "\x1b[?66h"},
	{name: "origin, margins, columns", in: "\x1b[?6h\x1b[?69h\x1b[?3h\x1b[?45h", out: same,
		reset: "\x1b[?3l\x1b[?6l\x1b[?69l\x1b[?45l", restore: "\x1b[?3h\x1b[?6h\x1b[?69h\x1b[?45h"},
	{name: "no autowrap", in: "\x1b[?7l", out: same, reset: "\x1b[?7h", restore: "\x1b[?7l"},
	{name: "synchronized output", in: "\x1b[?2026h", out: same, reset: syncOff},
	{name: "synchronized output ended", in: "\x1b[?2026hframe\x1b[?2026l", out: same},
	{name: "insert and newline modes", in: "\x1b[4h\x1b[20h", out: same, reset: "\x1b[4l\x1b[20l", restore: "\x1b[4h\x1b[20h"},
	{name: "keyboard locked, local echo", in: "\x1b[2;12;4h\x1b[12l\x1b[4l", out: same, reset: "\x1b[2l\x1b[12h", restore: "\x1b[2h\x1b[12l"},
	{name: "scroll margins", in: "\x1b[2;10r", out: same, reset: marginsOff},
	{name: "scroll margins back", in: "\x1b[2;10r\x1b[r", out: same},
	{name: "character sets", in: "\x1b(0lqk", out: same, reset: "\x1b(B"},
	{name: "character sets back", in: "\x1b(0lqk\x1b(B", out: same},
	{name: "character set G1", in: "\x1b)0\x0e", out: same, reset: "\x1b)B\x0f"},
	{name: "shifts", in: "a\x0eb\x0fc\x1b*0\x1bn\x1b[?10\x0e49h", out: "a\x0eb\x0fc\x1b*0\x1bn\x0e\x1b[?1049h",
		reset: "\x1b[?1049l\x1b*B\x0f", restore: "\x1b[?1049h"},
	{name: "shifted back", in: "\x0e\x0f", out: same},
	{name: "ASCII designated", in: "\x1b(B", out: same},

	// The kitty keyboard protocol, as kitty keeps its stacks.
	{name: "kitty push", in: "\x1b[>1u", out: same, reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty push without flags", in: "\x1b[>u", out: same, reset: "\x1b[<1u", restore: "\x1b[>0u"},
	{name: "kitty push, push, pop", in: "\x1b[>1u\x1b[>3u\x1b[<u", out: same, reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty push, push, pop 2", in: "\x1b[>1u\x1b[>3u\x1b[<2u", out: same},
	{name: "kitty pops more than pushed", in: "\x1b[>1u\x1b[<5u", out: same},
	{name: "kitty pop 0", in: "\x1b[>1u\x1b[<0u", out: same, reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty set without push", in: "\x1b[=5;1u", out: same, reset: "\x1b[<1u", restore: "\x1b[=5;1u"},
	{name: "kitty set, how left out", in: "\x1b[=5u\x1b[=4;3u", out: same, reset: "\x1b[<1u", restore: "\x1b[=1;1u"},
	{name: "kitty set back to 0", in: "\x1b[=5u\x1b[=0u", out: same},
	{name: "kitty set, then pop on empty", in: "\x1b[=5u\x1b[<u", out: same},
	{name: "kitty set on a push", in: "\x1b[>1u\x1b[=8;2u", out: same, reset: "\x1b[<1u", restore: "\x1b[>9u"},
	{name: "kitty set, how unknown", in: "\x1b[>1u\x1b[=8;4u", out: same, reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{
		// The base set with = stays when the pushes over it are popped.
		name: "kitty base under a push", in: "\x1b[=15;1u\x1b[>3u\x1b[<1u", out: same,
		reset: "\x1b[<1u", restore: "\x1b[=15;1u",
	},
	{name: "kitty base popped", in: "\x1b[=15;1u\x1b[<5u", out: same},
	{name: "kitty query", in: "\x1b[?u", out: same},
	{name: "kitty stacks per screen", in: "\x1b[>1u\x1b[?1049h\x1b[>15u", out: same,
		reset: "\x1b[<1u\x1b[?1049l\x1b[<1u", restore: "\x1b[>1u\x1b[?1049h\x1b[>15u"},
	{name: "kitty stack of the alternate screen only", in: "\x1b[?1049h\x1b[>1u", out: same,
		reset: "\x1b[<1u\x1b[?1049l", restore: "\x1b[?1049h\x1b[>1u"},
	{name: "kitty pop on the alternate screen", in: "\x1b[>1u\x1b[?1049h\x1b[<u", out: same,
		reset: "\x1b[?1049l\x1b[<1u", restore: "\x1b[>1u\x1b[?1049h"},
	{
		// The next full-screen program would find the flags there.
		name: "kitty stack of the alternate screen left there", in: "\x1b[?1049h\x1b[>1u\x1b[?1049l", out: same,
		reset:   syncOn + "\x1b[?1049h\x1b[<1u\x1b[?1049l" + syncOff,
		restore: syncOn + "\x1b[?1049h\x1b[>1u\x1b[?1049l" + syncOff,
	},
	{name: "kitty stack deeper than kitty's", in: strings.Repeat("\x1b[>1u", 4) + strings.Repeat("\x1b[>2u", 16), out: same,
		reset: "\x1b[<20u", restore: "\x1b[=2;1u" + strings.Repeat("\x1b[>2u", 7)},
	{name: "kitty pops all, then sets", in: strings.Repeat("\x1b[>2u", 20) + "\x1b[<17u\x1b[=4;2u", out: same,
		reset: "\x1b[<3u", restore: "\x1b[=4;1u"},
	// Forms kitty ignores, or reads otherwise, reach no terminal.
	{name: "kitty push with a sub-parameter", in: "\x1b[>1:2u", out: ""},
	{name: "kitty huge values", in: "\x1b[>99999999999999999999u\x1b[<99999999999999999999u", out: ""},
	{name: "kitty pops kitty ignores", in: "\x1b[>1u\x1b[<;u\x1b[<1;1u\x1b[<1:1u", out: "\x1b[>1u", reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty pop of 16 digits", in: "\x1b[>1u\x1b[<00000000000000001u", out: "\x1b[>1u\x1b[<1u"},
	{name: "kitty set kitty ignores", in: "\x1b[=1u\x1b[=0;1;0u", out: "\x1b[=1u", reset: "\x1b[<1u", restore: "\x1b[=1;1u"},
	{name: "modifyOtherKeys", in: "\x1b[>4;2m", out: same, reset: otherKeysOff, restore: "\x1b[>4;2m"},
	{name: "modifyOtherKeys back", in: "\x1b[>4;2m\x1b[>4m", out: same},
	{name: "modifyOtherKeys 0", in: "\x1b[>4;1m\x1b[>4;0m", out: same},
	{name: "modifyOtherKeys disabled", in: "\x1b[>4;2m\x1b[>4n", out: same},
	{name: "key modifiers all reset", in: "\x1b[>4;2m\x1b[>m", out: same},
	{name: "other key modifier option", in: "\x1b[>1;2m", out: same},
	{name: "cursor style", in: "\x1b[5 q", out: same, reset: cursorStyleOff, restore: "\x1b[5 q"},
	{name: "cursor style left out", in: "\x1b[5 q\x1b[ q", out: same, reset: cursorStyleOff, restore: "\x1b[1 q"},
	{name: "cursor style 0", in: "\x1b[5 q\x1b[0 q", out: same},
	{name: "cursor style, two intermediates", in: "\x1b[5  q", out: same},
	{name: "RIS resets modes", in: "\x1b[?1049h\x1b[?1000h\x1b=\x1b[>1u\x1b[5 q\x1b[>4;2m\x1b[4h\x1b(0\x1bc",
		out:   "\x1b[?1049h\x1b[?1000h\x1b=\x1b[>1u\x1b[5 q\x1b[>4;2m\x1b[4h\x1b(0\x1bc" + reassert,
		reset: "\x1b[?1049l", restore: "\x1b[?1049h"}, // tmux's RIS keeps the alternate screen.
	{
		// Some terminals (xterm.js) leave the cursor hidden, and LNM.
		name: "RIS keeps", in: "\x1b[?25l\x1b[20h\x1bc", out: "\x1b[?25l\x1b[20h\x1bc" + reassert,
		reset: "\x1b[?25h\x1b[20l", restore: "\x1b[?25l\x1b[20h",
	},
	{name: "after RIS", in: "\x1bc\x1b[?25l", out: "\x1bc" + reassert + "\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "intermediate", in: "\x1b[?1049 h", out: reassert},
	{name: "not private", in: "\x1b[1049h\x1b[25l", out: "\x1b[25l"},
	{name: "ESC sequences with intermediates", in: "\x1b#8\x1b(%5", out: same, reset: "\x1b(B"},
	{name: "lone ESC then text", in: "\x1bx", out: same},
	{name: "ESC at the end", in: "a\x1b", out: "a"},
	{name: "CSI at the end", in: "a\x1b[?10", out: "a"},

	// Strings pass, unchanged and not read into; ESC ends them.
	{name: "OSC title", in: "\x1b]0;title\x07\x1b]2;t\x1b\\", out: same},
	{name: "OSC hyperlink", in: "\x1b]8;;http://example.com/\x1b\\link\x1b]8;;\x1b\\", out: same},
	{name: "OSC 5", in: "\x1b]5;x\x07\x1b]55;x\x07\x1b]552;x\x07\x1b]55222;x\x07\x1b]520;?\x07", out: same},
	{name: "OSC without number", in: "\x1b];?\x07\x1b]\x07\x1b]x52;c;?\x07", out: same},
	{name: "OSC cut by an ESC", in: "\x1b]0;title\x1b[?25l", out: "\x1b]0;title\x1b\\\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "OSC cut by a mode reset", in: "\x1b]0;x\x1b[?2004lb\x1b\\", out: "\x1b]0;x\x1b\\b\x1b\\"},
	{name: "OSC number cut by an ESC", in: "\x1b]5\x1b[?25l", out: "\x1b]5\x1b\\\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "DCS", in: "\x1bP$qm\x1b\\", out: same},
	{name: "DCS tmux passthrough", in: "\x1bPtmux;\x1b\x1b[?25l\x1b\\", out: "\x1bPtmux;\x1b\\\x1b[?25l\x1b\\", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "DCS passthrough of a 2004 reset", in: "\x1bPtmux;\x1b\x1b[?2004l\x1b\\", out: "\x1bPtmux;\x1b\\\x1b\\"},
	{name: "DCS malformed", in: "a\x1bP1:2qdata\x1b\\b", out: "ab"},
	{name: "DCS with BEL", in: "\x1bPq\a\x1b[?2004l\x1b\\", out: "\x1bPq\a\x1b\\\x1b\\"},
	{name: "APC", in: "\x1b_Gf=100;AAAA\x1b\\", out: same},
	{name: "OSC at the end", in: "a\x1b]0", out: "a"},
	{name: "OSC open at the end", in: "a\x1b]0;tit", out: "a\x1b]0;tit\x1b\\"},

	// Clipboard writes pass.
	{name: "OSC 52 write", in: "\x1b]52;c;aGVsbG8=\x07", out: same},
	{name: "OSC 52 write with ST", in: "\x1b]52;c;aGVsbG8=\x1b\\", out: same},
	{name: "OSC 52 write, question mark later", in: "\x1b]52;c;a?\x07", out: "\x1b]52;c;a\x07"},
	{name: "OSC 52 clear", in: "\x1b]52;c;\x07\x1b]52;c;!\x07", out: same},
	{name: "OSC 52 without data", in: "\x1b]52;c\x07\x1b]52;c\x1b\\\x1b]52\x07\x1b]52\x1b\\", out: same},
	{name: "OSC 5522 write", in: "\x1b]5522;type=write\x07\x1b]5522;type=wdata:mime=dGV4dA==;aGk=\x1b\\\x1b]5522;type=wdata\x07", out: same},
	{name: "OSC 5522 not quite read", in: "\x1b]5522;type=readx;a\x07\x1b]5522;xtype=read;a\x07\x1b]5522;type=rea;a\x07", out: same},
	{name: "OSC 5522 read in the payload", in: "\x1b]5522;type=write;type=read\x07", out: same},

	// Clipboard reads are dropped, up to their end.
	{name: "OSC 52 read", in: "a\x1b]52;c;?\x07b", out: "ab", dropped: 1},
	{name: "OSC 52 read with ST", in: "a\x1b]52;c;?\x1b\\b", out: "ab", dropped: 1},
	{name: "OSC 52 read, empty selection", in: "\x1b]52;;?\x07", out: "", dropped: 1},
	{name: "OSC 52 read, short form", in: "\x1b]52;?\x07", out: "", dropped: 1},
	{name: "OSC 52 read, ? in the selection", in: "\x1b]52;c?;x\x07", out: "", dropped: 1},
	{name: "OSC 52 read, leading zeros", in: "\x1b]0052;c;?\x07", out: "", dropped: 1},
	{name: "OSC 52 read, C0 and DEL in the number", in: "\x1b]5\r2;c;?\x07\x1b]5\x7f2;c;?\x07", out: "", dropped: 2},
	{name: "OSC 52 read, C0 before the data", in: "\x1b]52;c;\n?\x07", out: "", dropped: 1},
	{name: "OSC 52 read as kitty reads 52x", in: "\x1b]52x;?\x07", out: "", dropped: 1},
	{name: "OSC 52 read as kitty reads six digits", in: "\x1b]000052;?\x07\x1b]000520;?\x07", out: "", dropped: 2},
	{name: "OSC 52 read, then data", in: "\x1b]52;c;?junk\x07x", out: "x", dropped: 1},
	{name: "OSC 52 read ended by CAN", in: "\x1b]52;c;?abc\x18x", out: "\x18x", dropped: 1},
	{name: "OSC 52 read ended by ESC", in: "\x1b]52;c;?\x1b[?25l", out: "\x1b[?25l", dropped: 1, reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "OSC 52 read ended by ESC ESC", in: "\x1b]52;c;?\x1b\x1b\\", out: "\x1b\\", dropped: 1},
	{name: "OSC 52 read, then a mode", in: "\x1b]52;c;?\x07\x1b[?1049h", out: "\x1b[?1049h", dropped: 1, reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "two reads", in: "\x1b]52;c;?\x07\x1b]52;p;?\x1b\\", out: "", dropped: 2},
	{name: "ESC ESC read", in: "\x1b\x1b]52;c;?\x07", out: "", dropped: 1},
	{name: "read in tmux passthrough", in: "\x1bPtmux;\x1b\x1b]52;c;?\x07\x1b\\", out: "\x1bPtmux;\x1b\\\x1b\\", dropped: 1},
	{name: "OSC 5522 read", in: "a\x1b]5522;type=read;dGV4dC9wbGFpbg==\x1b\\b", out: "ab", dropped: 1},
	{name: "OSC 5522 read among fields", in: "\x1b]5522;id=x1:type=read:loc=primary;Lg==\x07", out: "", dropped: 1},
	{name: "OSC 5522 read without payload", in: "\x1b]5522;type=read\x07\x1b]5522;type=read\x1b\\", out: "", dropped: 2},
	{name: "OSC 5522 read, C0 in the metadata", in: "\x1b]5522;type=re\nad;x\x07", out: "", dropped: 1},
	{name: "OSC 5522 read as kitty reads six digits", in: "\x1b]055221:type=read;x\x07", out: "", dropped: 1},

	// Clipboard requests cut short are dropped too.
	{name: "OSC 52 cut by ESC", in: "\x1b]52;c\x1b[?25l", out: "\x1b[?25l", dropped: 1, reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "OSC 52 number cut by ESC", in: "\x1b]52\x1b]52;c;?\x07x", out: "x", dropped: 2},
	{name: "OSC 52 data cut by ESC", in: "\x1b]52;c;\x1bx", out: "\x1bx", dropped: 1},
	{name: "OSC 52 cut by CAN", in: "\x1b]52;c\x18x\x1b]52\x1ay\x1b]52;c;\x18z", out: "\x18x\x1ay\x18z", dropped: 3},
	{name: "OSC 5522 cut by ESC", in: "\x1b]5522;type=write\x1bx", out: "\x1bx", dropped: 1},
	{name: "OSC 5522 cut by SUB", in: "\x1b]5522;type=wr\x1ax", out: "\x1ax", dropped: 1},
	{name: "OSC 52 with a C1 inside", in: "\x1b]52;c;\u0085?x", out: "", dropped: 1},
	{name: "OSC 52 cut by the end", in: "a\x1b]52;c", out: "a", dropped: 1},
	{name: "OSC 5522 cut by the end", in: "a\x1b]5522", out: "a", dropped: 1},
	{name: "OSC 52 ESC at the end", in: "a\x1b]52;c\x1b", out: "a", dropped: 1},
	{name: "too long a selection", in: "\x1b]52;" + strings.Repeat("c", 600) + ";aGk=\x07x", out: "x", dropped: 1},
	{name: "too long a number", in: "\x1b]" + strings.Repeat("0", 600) + "52;c;?\x07x", out: "x", dropped: 1},
	{name: "longest header held", in: "\x1b]52;" + strings.Repeat("c", maxClipHeader-6) + ";aGk=\x07", out: same},
	{name: "longest header, and one more", in: "\x1b]52;" + strings.Repeat("c", maxClipHeader-5) + ";aGk=\x07", out: "", dropped: 1},
}

// filterChunks writes in to a new OutputFilter in chunks of n bytes, then
// closes it, and returns the output and the filter.
func filterChunks(in []byte, n int, allow bool) ([]byte, *OutputFilter) {
	f := &OutputFilter{AllowClipboardRead: allow}
	var out []byte
	for len(in) > 0 {
		c := min(n, len(in))
		out = append(out, f.Write(in[:c])...)
		in = in[c:]
	}
	return append(out, f.Close()...), f
}

func TestOutputFilter(t *testing.T) {
	for _, tt := range outputTests {
		want := tt.out
		if want == same {
			want = tt.in
		}
		for n := 1; n <= len(tt.in); n++ {
			got, f := filterChunks([]byte(tt.in), n, false)
			if string(got) != want {
				t.Errorf("%s: %q, read size %d: output\n got %q\nwant %q", tt.name, tt.in, n, got, want)
			}
			checkFilter(t, tt.name, tt.in, n, f, tt.enabled, tt.reset, tt.restore, tt.dropped)
		}
	}
}

// With clipboard reads allowed, the output of a case that drops none is
// the same, and so are the modes.
func TestOutputFilterAllowClipboardRead(t *testing.T) {
	for _, tt := range outputTests {
		if tt.dropped > 0 {
			continue
		}
		want := tt.out
		if want == same {
			want = tt.in
		}
		for n := 1; n <= len(tt.in); n++ {
			got, f := filterChunks([]byte(tt.in), n, true)
			if string(got) != want {
				t.Errorf("%s: %q, read size %d, reads allowed: output\n got %q\nwant %q", tt.name, tt.in, n, got, want)
			}
			checkFilter(t, tt.name, tt.in, n, f, tt.enabled, tt.reset, tt.restore, 0)
		}
	}
}

func checkFilter(t *testing.T, name, in string, n int, f *OutputFilter, enabled bool, reset, restore string, dropped int) {
	t.Helper()
	if got := f.Enabled(); got != enabled {
		t.Errorf("%s: %q, read size %d: Enabled() = %v, want %v", name, in, n, got, enabled)
	}
	if got := string(f.AppendReset(nil)); got != reset {
		t.Errorf("%s: %q, read size %d: AppendReset\n got %q\nwant %q", name, in, n, got, reset)
	}
	if got := string(f.AppendRestore(nil)); got != restore {
		t.Errorf("%s: %q, read size %d: AppendRestore\n got %q\nwant %q", name, in, n, got, restore)
	}
	if got := f.Dropped(); got != dropped {
		t.Errorf("%s: %q, read size %d: Dropped() = %d, want %d", name, in, n, got, dropped)
	}
	if f.Pending() {
		t.Errorf("%s: %q, read size %d: Pending() after Close", name, in, n)
	}
}

// TestOutputFilterEightBit reads the output as an 8-bit terminal does:
// every byte from 0x80 to 0x9F is a C1 control, wherever it stands.
func TestOutputFilterEightBit(t *testing.T) {
	tests := []struct{ in, out string }{
		{"\xc4\x9b?2004l", "\xc4"},     // In UTF-8, "ě" and text.
		{"\xe2\x9d52;c;?\ax", "\xe2x"}, // "❯" starts a clipboard read.
		{"\x9b?1049h", "\x1b[?1049h"},  // Passes in its 7-bit form, and is followed.
		{"\x1b[?20\xe904l", ""},        // A byte from 0xA0 up inside is ignored.
	}
	for _, tt := range tests {
		for n := 1; n <= len(tt.in); n++ {
			f := &OutputFilter{EightBit: true}
			var got []byte
			for in := []byte(tt.in); len(in) > 0; {
				c := min(n, len(in))
				got = append(got, f.Write(in[:c])...)
				in = in[c:]
			}
			got = append(got, f.Close()...)
			if string(got) != tt.out {
				t.Errorf("%q, read size %d, 8-bit: output %q, want %q", tt.in, n, got, tt.out)
			}
		}
	}
	var f OutputFilter
	if got := f.Write([]byte("\xc4\x9b?2004l")); string(got) != "\xc4\x9b?2004l" {
		t.Errorf("UTF-8: %q changed to %q", "\xc4\x9b?2004l", got)
	}
}

// TestOutputFilterAcrossWrites follows a session's modes chunk by chunk.
func TestOutputFilterAcrossWrites(t *testing.T) {
	var f OutputFilter
	steps := []struct {
		in, out, reset string
	}{
		{"prompt$ ", "prompt$ ", ""},
		{"\x1b[?10", "", ""},
		{"49h", "\x1b[?1049h", "\x1b[?1049l"},
		{"\x1b[>1u", "\x1b[>1u", "\x1b[<1u\x1b[?1049l"},
		{"\x1b[?1000;1006h\x1b[?25l", "\x1b[?1000;1006h\x1b[?25l", "\x1b[<1u\x1b[?1049l\x1b[?1000l\x1b[?1006l\x1b[?25h"},
		{"\x1b]0;ti", "\x1b]0;ti", "\x1b\\\x1b[<1u\x1b[?1049l\x1b[?1000l\x1b[?1006l\x1b[?25h"},
		{"tle\x07", "", "\x1b[<1u\x1b[?1049l\x1b[?1000l\x1b[?1006l\x1b[?25h"}, // Ended at the reset: the rest is dropped.
		{"\x1b[<u\x1b[?1000;1006l\x1b[?25h\x1b[?1049l", "\x1b[<u\x1b[?1000;1006l\x1b[?25h\x1b[?1049l", ""},
	}
	for _, s := range steps {
		if got := f.Write([]byte(s.in)); string(got) != s.out {
			t.Errorf("Write(%q) = %q, want %q", s.in, got, s.out)
		}
		if got := string(f.AppendReset(nil)); got != s.reset {
			t.Errorf("after %q: AppendReset = %q, want %q", s.in, got, s.reset)
		}
	}
}

// TestOutputFilterAliasing checks the documented aliasing: the result is p
// itself when nothing changes.
func TestOutputFilterAliasing(t *testing.T) {
	for _, in := range []string{"plain text", "t\u00e9xt", "\x1b[31mred\x1b[0m", "\x1b[?1049h\x1b[?25l", "\x1b]0;title\x07", "\x1b]52;c;aGk=\x07"} {
		var f OutputFilter
		p := []byte(in)
		if got := f.Write(p); len(got) != len(p) || &got[0] != &p[0] {
			t.Errorf("Write(%q) did not return its argument", in)
		}
	}
}

// TestOutputFilterAllocs guards the output path: text, sequences, a
// dropped read and a header held across Writes cost no allocation once the
// buffers have grown.
func TestOutputFilterAllocs(t *testing.T) {
	var f OutputFilter
	for _, in := range [][]string{
		{"hello, world\r\n"},
		{"\x1b[1;31merror\x1b[0m: x\r\n\x1b[?25l\x1b[?25h"},
		{"\x1b[>1u\x1b[<u\x1b[?1049h\x1b[?1049l\x1b[?2004h\x1b[?1;2004l"},
		{"a\x1b]52;c;?\x07b"},
		{"a\x1b]52;c", ";aGk=\x07"},
		{"a\x1b]52;c", ";?", "\x07b"},
		{"\x1b[?10", "49h\x1b[?10\r49l"},
	} {
		chunks := make([][]byte, len(in))
		for i, p := range in {
			chunks[i] = []byte(p)
		}
		write := func() {
			for _, p := range chunks {
				f.Write(p)
			}
		}
		write() // grow the buffers
		if got := testing.AllocsPerRun(1000, write); got != 0 {
			t.Errorf("%v allocations per Write of %q, want 0", got, in)
		}
	}
}

// TestOutputFilterResultValid checks that the internal buffer does not
// leak into p.
func TestOutputFilterResultValid(t *testing.T) {
	var f OutputFilter
	p := []byte("x\x1b]52;c;?\x07y\x1b[?2004h")
	got := bytes.Clone(f.Write(p))
	if string(got) != "xy" || string(p) != "x\x1b]52;c;?\x07y\x1b[?2004h" {
		t.Errorf("Write = %q and changed its argument to %q", got, p)
	}
}

// Enabled is read by the input side while the output side writes.
func TestOutputFilterEnabledConcurrent(t *testing.T) {
	var f OutputFilter
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 1000 {
			f.Write([]byte("\x1b[?2004h"))
			f.Write([]byte("\x1b[?2004l"))
		}
	})
	for range 1000 {
		_ = f.Enabled()
	}
	wg.Wait()
}

// TestAppendFullReset checks the reset for a terminal in an unknown state,
// and that it undoes everything a filter can reset.
func TestAppendFullReset(t *testing.T) {
	full := AppendFullReset(nil)
	var everything strings.Builder
	for _, tt := range outputTests {
		everything.WriteString(tt.in)
		everything.WriteString("\x18") // Ends what a case left open.
	}
	var f OutputFilter
	f.Write([]byte(everything.String()))
	f.Write(full)
	if got := f.AppendReset(nil); len(got) > 0 {
		t.Errorf("after AppendFullReset, AppendReset = %q, want nothing", got)
	}
	if !bytes.HasSuffix(full, []byte("\x1b[?2004l\x1b[?2026l")) {
		t.Errorf("AppendFullReset = %q: want bracketed paste and synchronized output reset last", full)
	}
}

// After AppendReset's sequences, a filter has nothing left to reset; after
// AppendRestore's, it restores the same again.
func TestOutputFilterResetAndRestoreRoundTrip(t *testing.T) {
	for _, tt := range outputTests {
		var f OutputFilter
		f.Write([]byte(tt.in))
		f.Write([]byte("\x18"))
		reset, restore := f.AppendReset(nil), f.AppendRestore(nil)
		after := OutputFilter{modes: f.modes}
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

// decIndex is decModes' index of each mode, and of no other number.
func TestDecIndex(t *testing.T) {
	for i, d := range decModes {
		if got := decIndex(d.n); got != i {
			t.Errorf("decIndex(%d) = %d, want %d", d.n, got, i)
		}
	}
	for _, n := range []int{0, 2, 4, 47, 1007, 1049, 2004, 2005, 1054, 1062, 99999} {
		if got := decIndex(n); got != -1 {
			t.Errorf("decIndex(%d) = %d, want -1", n, got)
		}
	}
}

// The reset puts the cursor's blinking back as the terminal answered for
// it before the child ran: xterm's DECSCUSR 0 is a blinking block.
func TestOutputFilterCursorBlink(t *testing.T) {
	tests := []struct {
		in     string
		answer byte
		reset  string
	}{
		{"\x1b[5 q", ModeUnanswered, cursorStyleOff},
		{"\x1b[5 q", ModeReset, cursorStyleOff + "\x1b[?12l"},
		{"\x1b[5 q", ModeSet, cursorStyleOff + "\x1b[?12h"},
		{"\x1b[?12h", ModeUnanswered, "\x1b[?12l"},
		{"\x1b[?12h\x1b[3 q", ModeReset, cursorStyleOff + "\x1b[?12l"},
		{"\x1b[?12h\x1b[3 q", ModePermanentSet, cursorStyleOff + "\x1b[?12h"},
		{"\x1b[?1049h", ModeSet, "\x1b[?1049l"}, // The cursor untouched: nothing.
	}
	for _, tt := range tests {
		var f OutputFilter
		f.SetCursorBlink(tt.answer)
		f.Write([]byte(tt.in))
		if got := string(f.AppendReset(nil)); got != tt.reset {
			t.Errorf("%q, answer %q: AppendReset = %q, want %q", tt.in, tt.answer, got, tt.reset)
		}
	}
}

// The child's mode 5522 (kitty's paste events) never reaches the
// terminal, in any sequence (set, reset, save, restore, combined with
// other modes) and at any split, and no reset is owed for it: the mode is
// pbwrap's, whether image paste is on or off.
func TestOutputFilterTakesClipMode(t *testing.T) {
	for _, tt := range []struct{ in, out string }{
		{"a\x1b[?5522hb", "ab"},
		{"\x1b[?5522l", ""},
		{"\x1b[?1049;5522;2004h", "\x1b[?1049h"},
		{"\x1b[?25;5522l", "\x1b[?25l"},
		{"\x1b[?05522h", ""},
		{"\x1b[?5522;5522h\x1b[?5522s\x1b[?5522r", "\x1b[?2004h"},
		{"\x1b[?1;5522;1000h", "\x1b[?1;1000h"},
	} {
		for n := 1; n <= len(tt.in); n++ {
			f := &OutputFilter{}
			var out []byte
			for rest := tt.in; len(rest) > 0; rest = rest[min(n, len(rest)):] {
				out = append(out, f.Write([]byte(rest[:min(n, len(rest))]))...)
			}
			out = append(out, f.Close()...)
			if string(out) != tt.out {
				t.Errorf("%q, writes of %d: %q, want %q", tt.in, n, out, tt.out)
			}
			if reset := string(f.AppendReset(nil)); strings.Contains(reset, "5522") {
				t.Errorf("%q: reset %q", tt.in, reset)
			}
		}
	}
}

// With ClipMode on, paste events are set again wherever bracketed paste
// is, after what may have reset the terminal: kitty's RIS and DECSTR turn
// them off.
func TestOutputFilterClipModeAfterReset(t *testing.T) {
	for _, on := range []bool{false, true} {
		f := &OutputFilter{ClipMode: func() bool { return on }}
		out := string(f.Write([]byte("a\x1bcb\x1b[!pc")))
		want := "a\x1bc\x1b[?2004hb\x1b[!p\x1b[?2004hc"
		if on {
			want = "a\x1bc\x1b[?2004h\x1b[?5522hb\x1b[!p\x1b[?2004h\x1b[?5522hc"
		}
		if out != want {
			t.Errorf("on %v: %q, want %q", on, out, want)
		}
	}
}
