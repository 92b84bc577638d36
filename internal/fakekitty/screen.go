package fakekitty

import (
	"bytes"
	"strconv"
)

// MaxString is the longest control string kitty reads: past 256 KiB
// without its terminator it gives the string up and reads on as text
// (MAX_ESCAPE_CODE_LENGTH in kitty/vt-parser.c), OSC 52 aside.
const MaxString = 256 << 10

// A Screen reads what a program writes to kitty as kitty's parser does,
// as far as image paste goes: whether paste events (DEC private mode
// 5522) are on (set and reset, and off after RIS and DECSTR, as
// kitty/screen.c resets its modes), and the OSC 5522 packets kitty gets. As kitty's parser
// does, it ends a control string (OSC, DCS, APC, PM, SOS) only at ST or
// BEL, or past MaxString; CAN, SUB and an ESC that is not ST are part of
// the string. So a request written inside a string the program left open
// is no request, and a mode set there sets nothing. The zero value is a
// new terminal, with paste events off.
type Screen struct {
	PasteEvents bool     // mode 5522
	Packets     []string // the OSC 5522 packets read, their contents after "5522;"

	state  uint8
	buf    []byte // the sequence or string under way
	strLen int
}

const (
	sGround uint8 = iota
	sEsc
	sCSI
	sString
	sStringEsc
)

// Write reads p.
func (s *Screen) Write(p []byte) {
	for _, c := range p {
		switch s.state {
		case sGround:
			if c == 0x1b {
				s.state = sEsc
			}
		case sEsc:
			switch c {
			case '[':
				s.state, s.buf = sCSI, s.buf[:0]
			case ']', 'P', '_', '^', 'X':
				s.state, s.buf, s.strLen = sString, append(s.buf[:0], c), 0
			case 0x1b:
			case 'c': // RIS
				s.PasteEvents = false
				s.state = sGround
			default:
				s.state = sGround
			}
		case sCSI:
			switch {
			case c >= 0x40 && c <= 0x7e:
				s.csi(c)
				s.state = sGround
			case c == 0x1b:
				s.state = sEsc
			case c >= 0x20:
				s.buf = append(s.buf, c)
			}
		case sString, sStringEsc:
			s.strLen++
			switch {
			case c == 0x07, s.state == sStringEsc && c == '\\':
				s.dispatch()
				s.state = sGround
				continue
			case s.strLen > MaxString:
				s.state = sGround // Given up; what follows is text.
				continue
			}
			if s.state == sStringEsc {
				s.buf = append(s.buf, 0x1b)
				s.state = sString
			}
			if c == 0x1b {
				s.state = sStringEsc
				continue
			}
			s.buf = append(s.buf, c)
		}
	}
}

// csi acts on a control sequence with final byte c: mode 5522, and
// DECSTR, which turns it off as RIS does (screen_soft_reset).
func (s *Screen) csi(c byte) {
	if c == 'p' && bytes.HasSuffix(s.buf, []byte("!")) {
		s.PasteEvents = false
		return
	}
	if (c != 'h' && c != 'l') || len(s.buf) == 0 || s.buf[0] != '?' {
		return
	}
	for _, f := range bytes.Split(s.buf[1:], []byte{';'}) {
		if n, err := strconv.Atoi(string(f)); err == nil && n == 5522 {
			s.PasteEvents = c == 'h'
		}
	}
}

// dispatch acts on a control string: only OSC 5522.
func (s *Screen) dispatch() {
	if rest, ok := bytes.CutPrefix(s.buf, []byte("]5522;")); ok {
		s.Packets = append(s.Packets, string(rest))
	}
}

// InString reports whether the program's output stands inside a control
// string: what comes next is part of it.
func (s *Screen) InString() bool { return s.state == sString || s.state == sStringEsc }
