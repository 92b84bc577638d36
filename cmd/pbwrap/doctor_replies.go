package main

import "strings"

// terminalQuestion is what doctor asks the terminal: DECRQM for mode 2004
// (bracketed paste), then primary device attributes (DA1), which every
// terminal answers, and answers after any DECRQM answer.
const terminalQuestion = "\x1b[?2004$p\x1b[c"

// maxCSI bounds the parameter and intermediate bytes kept of one control
// sequence. The longest DA1 answers list a few dozen attributes (xterm's
// is 33 bytes); a longer sequence is neither answer and is skipped.
const maxCSI = 128

const (
	asciiESC = 0x1b
	asciiCAN = 0x18 // cancels a sequence (ECMA-48)
	asciiSUB = 0x1a // cancels a sequence (ECMA-48)
)

// A replyScanner picks the terminal's answers to terminalQuestion out of
// what is read from the terminal, which may also hold keys the user typed
// and reports such as focus events, in any chunks: its state lives in the
// struct, so feeding the input at once or in pieces gives the same
// result. It has no clock and does no I/O: the caller decides when to
// stop waiting. The zero value is ready to use.
type replyScanner struct {
	state    scanState
	seq      []byte // parameter and intermediate bytes of the sequence being read
	overlong bool   // seq went past maxCSI: the sequence is no answer

	// mode is the DECRQM answer for mode 2004: "1" set, "2" reset, "3"
	// permanently set, "0" not recognized, "4" permanently reset; "" until
	// the terminal answers.
	mode string
	// da1 reports whether the DA1 answer has been read: the terminal has
	// nothing more to say.
	da1 bool
}

type scanState uint8

const (
	scanGround scanState = iota // outside any escape sequence
	scanEsc                     // after ESC
	scanCSI                     // after ESC [
)

// feed scans p and returns how many of its bytes it used: all of them,
// unless the DA1 answer ends within p, in which case it stops right after
// it, and the rest is not the terminal's answer but what the user typed
// next. Once the DA1 answer is in, feed uses nothing.
func (s *replyScanner) feed(p []byte) int {
	for i, b := range p {
		if s.da1 {
			return i
		}
		s.step(b)
	}
	return len(p)
}

// step scans one byte.
func (s *replyScanner) step(b byte) {
	switch s.state {
	case scanGround:
		if b == asciiESC {
			s.state = scanEsc
		}
	case scanEsc:
		switch b {
		case '[':
			s.state, s.seq, s.overlong = scanCSI, s.seq[:0], false
		case asciiESC: // A lone Esc key, then a sequence.
		default:
			s.state = scanGround
		}
	case scanCSI:
		s.csiByte(b)
	}
}

// csiByte scans one byte of a control sequence, as ECMA-48 has them:
// parameter and intermediate bytes, then a final byte.
func (s *replyScanner) csiByte(b byte) {
	switch {
	case b >= 0x20 && b <= 0x3f:
		if len(s.seq) == maxCSI {
			s.overlong = true
			return
		}
		s.seq = append(s.seq, b)
	case b >= 0x40 && b <= 0x7e:
		s.state = scanGround
		if !s.overlong {
			s.finish(string(s.seq), b)
		}
	case b == asciiESC:
		s.state = scanEsc
	case b == asciiCAN || b == asciiSUB || b >= 0x80:
		s.state = scanGround
	default:
		// Other C0 controls (a Ctrl key typed meanwhile) and DEL act
		// on their own and leave the sequence going (ECMA-48).
	}
}

// finish records the control sequence with parameters params and final
// byte final if it is one of the answers.
func (s *replyScanner) finish(params string, final byte) {
	switch final {
	case 'y': // DECRPM: CSI ? 2004 ; Ps $ y
		if ps, ok := strings.CutPrefix(params, "?2004;"); ok && len(ps) == 2 && ps[0] >= '0' && ps[0] <= '4' && ps[1] == '$' {
			s.mode = ps[:1]
		}
	case 'c': // DA1: CSI ? Ps ; ... c
		if ps, ok := strings.CutPrefix(params, "?"); ok && ps != "" && strings.Trim(ps, "0123456789;") == "" {
			s.da1 = true
		}
	}
}
