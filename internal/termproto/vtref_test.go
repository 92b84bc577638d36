package termproto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The reference tokenizer: vt100.net's DEC parser written out as plainly
// as it is drawn, one unit (a byte, or a UTF-8 encoded C1 control) at a
// time, with the extensions the Tokenizer documents. The Tokenizer is
// checked against it: the same input gives the same events.

// A refEvent is one thing a tokenizer reports, in a form both give.
type refEvent struct {
	kind string // print, exec, ignore, dispatch, cancel, start, data, end
	data []byte // the bytes of print, ignore and data; the byte of exec
	seq  string // dispatch and start: the sequence's fields; end: the terminator
	s    Seq    // dispatch and start: the sequence (not compared: seq says it)
}

func (e refEvent) String() string {
	if e.kind == "dispatch" || e.kind == "start" {
		return e.kind + "(" + e.seq + ")"
	}
	if e.seq != "" {
		return e.kind + "(" + e.seq + ")"
	}
	return fmt.Sprintf("%s(%q)", e.kind, e.data)
}

// seqFields describes what a Seq says of a dispatched sequence or a
// string's start.
func seqFields(s *Seq) string {
	var b strings.Builder
	fmt.Fprintf(&b, "k%d c1=%v m=%q f=%q i=%q/%d", s.Kind, s.C1, s.Marker, s.Final, s.Inter[:min(s.NInter, maxInter)], s.NInter)
	fmt.Fprintf(&b, " p=%v/%d sub=%v ign=%v", s.Params[:min(s.NParams, MaxParams)], s.NParams, s.Sub, s.Ignored)
	return b.String()
}

// events appends e, merging runs of print, ignore and data.
func appendEvent(evs []refEvent, e refEvent) []refEvent {
	if n := len(evs); n > 0 && e.seq == "" && evs[n-1].kind == e.kind && (e.kind == "print" || e.kind == "ignore" || e.kind == "data") {
		evs[n-1].data = append(evs[n-1].data, e.data...)
		return evs
	}
	return append(evs, e)
}

// tokenizerEvents reads the chunks with a Tokenizer and returns its events.
func tokenizerEvents(z *Tokenizer, chunks [][]byte) []refEvent {
	var evs []refEvent
	for _, p := range chunks {
		for i := 0; i < len(p); {
			n, a := z.Next(p[i:])
			b := p[i : i+n]
			switch a {
			case ActText:
				evs = appendEvent(evs, refEvent{kind: "print", data: bytes.Clone(b)})
			case ActExec:
				evs = appendEvent(evs, refEvent{kind: "exec", data: bytes.Clone(b)})
			case ActIgnore:
				evs = appendEvent(evs, refEvent{kind: "ignore", data: bytes.Clone(b)})
			case ActDispatch:
				z.Seq.Parse()
				evs = appendEvent(evs, refEvent{kind: "dispatch", seq: seqFields(&z.Seq), s: z.Seq})
			case ActCancel:
				evs = appendEvent(evs, refEvent{kind: "cancel", seq: "-"})
			case ActStringStart:
				evs = appendEvent(evs, refEvent{kind: "start", seq: seqFields(&z.Seq), s: z.Seq})
			case ActStringData:
				evs = appendEvent(evs, refEvent{kind: "data", data: bytes.Clone(b)})
			case ActStringEnd:
				evs = appendEvent(evs, refEvent{kind: "end", seq: fmt.Sprint(z.Term)})
			case ActC1:
				kind := "c1"
				if z.InString() {
					kind = "c1data"
				}
				evs = appendEvent(evs, refEvent{kind: kind, data: bytes.Clone(b)})
			}
			i += n
		}
	}
	return evs
}

// A refUnit is what the reference reads at a time: an ASCII byte, a C1
// control (its code point), or any other byte.
type refUnit struct {
	c    byte
	c1   bool
	size int
}

// refUnits cuts in into units: UTF-8 is followed only to tell a C1
// control (C2 80-9F, or a byte 80-9F that continues no character) from a
// byte of a character.
func refUnits(in []byte, eightBit bool) []refUnit {
	var us []refUnit
	need := 0
	for i := 0; i < len(in); i++ {
		b := in[i]
		switch {
		case b < 0x80:
			need = 0
			us = append(us, refUnit{c: b, size: 1})
		case eightBit:
			us = append(us, refUnit{c: b, c1: b <= 0x9f, size: 1})
		case b == 0xc2 && i+1 < len(in) && in[i+1] >= 0x80 && in[i+1] <= 0x9f:
			us = append(us, refUnit{c: in[i+1], c1: true, size: 2})
			i++
			need = 0
		case b <= 0xbf:
			us = append(us, refUnit{c: b, c1: need == 0 && b <= 0x9f, size: 1})
			if need > 0 {
				need--
			}
		default:
			us = append(us, refUnit{c: b, size: 1})
			switch {
			case b >= 0xc2 && b <= 0xdf:
				need = 1
			case b >= 0xe0 && b <= 0xef:
				need = 2
			case b >= 0xf0 && b <= 0xf4:
				need = 3
			default:
				need = 0
			}
		}
	}
	return us
}

// The reference's states, named as on vt100.net.
const (
	rGround = iota
	rEscape
	rEscInter
	rCSIEntry
	rCSIParam
	rCSIInter
	rCSIIgnore
	rDCSEntry
	rDCSParam
	rDCSInter
	rDCSPass
	rOSC
	rSOS
)

// refTokenize reads in with the reference and returns its events.
func refTokenize(in []byte, eightBit bool) []refEvent {
	var evs []refEvent
	st := rGround
	var s Seq
	var cur, digits, inSub, any = 0, false, false, false
	emit := func(kind string, b []byte) { evs = appendEvent(evs, refEvent{kind: kind, data: bytes.Clone(b)}) }
	clear := func(kind SeqKind, c1 bool) {
		s = Seq{Kind: kind, C1: c1}
		cur, digits, inSub, any = 0, false, false, false
	}
	endMain := func() {
		v := -1
		if digits {
			v = cur
		}
		if s.NParams < MaxParams {
			s.Params[s.NParams] = v
		}
		s.NParams++
	}
	endParam := func() {
		if !inSub {
			endMain()
		}
		cur, digits, inSub = 0, false, false
	}
	param := func(c byte) {
		any = true
		switch {
		case c == ';':
			endParam()
		case c == ':':
			if !inSub {
				endMain()
			}
			inSub, s.Sub = true, true
		case !inSub:
			digits = true
			if cur <= (MaxParamValue-9)/10 {
				cur = cur*10 + int(c-'0')
			} else {
				cur = MaxParamValue
			}
		}
	}
	collect := func(c byte) {
		if s.NInter < maxInter {
			s.Inter[s.NInter] = c
		}
		s.NInter++
	}
	dispatch := func(final byte) {
		if any {
			endParam()
		}
		s.Final = final
		evs = appendEvent(evs, refEvent{kind: "dispatch", seq: seqFields(&s), s: s})
	}
	start := func() { evs = appendEvent(evs, refEvent{kind: "start", seq: seqFields(&s), s: s}) }
	end := func(t Terminator) { evs = appendEvent(evs, refEvent{kind: "end", seq: fmt.Sprint(t)}) }
	inString := func() bool { return st == rDCSPass || st == rOSC || st == rSOS }

	us := refUnits(in, eightBit)
	off := 0
	for k := 0; k < len(us); k++ {
		u := us[k]
		raw := in[off : off+u.size]
		off += u.size
		c := u.c
		if u.c1 && !eightBit { // No control in UTF-8: reported, or ignored inside a sequence.
			switch {
			case st == rGround:
				evs = appendEvent(evs, refEvent{kind: "c1", data: bytes.Clone(raw)})
			case inString():
				evs = appendEvent(evs, refEvent{kind: "c1data", data: bytes.Clone(raw)})
			default:
				s.Ignored = true
				emit("ignore", raw)
			}
			continue
		}
		// Strings end at BEL (OSC), ESC, CAN, SUB and every C1 control.
		if inString() {
			switch {
			case c == bel && st == rOSC && !u.c1:
				end(TermBEL)
				st = rGround
				continue
			case c == esc && !u.c1:
				if k+1 == len(us) {
					return evs // What it is, the next byte would say.
				}
				if !us[k+1].c1 && us[k+1].c == '\\' {
					end(TermST)
					st = rGround
					k++
					off++
					continue
				}
				end(TermCut)
				st = rGround // The ESC is read again below, from ground.
			case (c == can || c == sub) && !u.c1:
				end(TermCut)
				st = rGround
			case u.c1 && c == 0x9c:
				end(TermST)
				st = rGround
				continue
			case u.c1:
				end(TermCut)
				st = rGround
			case c < 0x80 || !u.c1:
				emit("data", raw)
				continue
			}
		}
		// Anywhere.
		if st != rGround {
			switch {
			case !u.c1 && (c == can || c == sub || c == esc):
				evs = appendEvent(evs, refEvent{kind: "cancel", seq: "-"})
				st = rGround
			case u.c1 && c == 0x9c:
				evs = appendEvent(evs, refEvent{kind: "cancel", seq: "-"})
				st = rGround
				continue
			case u.c1:
				evs = appendEvent(evs, refEvent{kind: "cancel", seq: "-"})
				st = rGround
			}
		}
		if st == rGround {
			switch {
			case c == esc && !u.c1:
				clear(SeqESC, false)
				st = rEscape
			case u.c1 && c == 0x9b:
				clear(SeqCSI, true)
				st = rCSIEntry
			case u.c1 && c == 0x90:
				clear(SeqDCS, true)
				st = rDCSEntry
			case u.c1 && c == 0x9d:
				clear(SeqOSC, true)
				st = rOSC
				start()
			case u.c1 && (c == 0x98 || c == 0x9e || c == 0x9f):
				clear(map[byte]SeqKind{0x98: SeqSOS, 0x9e: SeqPM, 0x9f: SeqAPC}[c], true)
				st = rSOS
				start()
			default:
				emit("print", raw)
			}
			continue
		}
		if !u.c1 && c >= 0x80 { // Any other non-ASCII byte inside a sequence.
			s.Ignored = true
			emit("ignore", raw)
			continue
		}
		if c == del {
			s.Ignored = true
			emit("ignore", raw)
			continue
		}
		if c < 0x20 {
			if st >= rDCSEntry && st <= rDCSInter {
				s.Ignored = true
				emit("ignore", raw)
			} else {
				emit("exec", raw)
			}
			continue
		}
		switch st {
		case rEscape:
			switch {
			case c < 0x30:
				collect(c)
				st = rEscInter
			case c == '[':
				s.Kind = SeqCSI
				st = rCSIEntry
			case c == 'P':
				s.Kind = SeqDCS
				st = rDCSEntry
			case c == ']':
				s.Kind, st = SeqOSC, rOSC
				start()
			case c == 'X' || c == '^' || c == '_':
				s.Kind, st = map[byte]SeqKind{'X': SeqSOS, '^': SeqPM, '_': SeqAPC}[c], rSOS
				start()
			default:
				dispatch(c)
				st = rGround
			}
		case rEscInter:
			if c < 0x30 {
				collect(c)
			} else {
				dispatch(c)
				st = rGround
			}
		case rCSIEntry, rCSIParam, rCSIInter, rDCSEntry, rDCSParam, rDCSInter:
			dcs := st >= rDCSEntry
			entry, inter := st == rCSIEntry || st == rDCSEntry, st == rCSIInter || st == rDCSInter
			malformed := func() {
				if dcs {
					s.Ignored = true
					st = rDCSPass
					start()
					return
				}
				st = rCSIIgnore
			}
			switch {
			case c >= 0x40:
				if any {
					endParam()
				}
				any = false
				s.Final = c
				if dcs {
					st = rDCSPass
					start()
				} else {
					evs = appendEvent(evs, refEvent{kind: "dispatch", seq: seqFields(&s), s: s})
					st = rGround
				}
			case c < 0x30:
				collect(c)
				st = map[bool]int{false: rCSIInter, true: rDCSInter}[dcs]
			case c >= 0x3c && entry:
				s.Marker = c
				st++
			case c >= 0x3c, inter, c == ':' && dcs:
				malformed()
			default:
				if entry {
					st++
				}
				param(c)
			}
		case rCSIIgnore:
			if c >= 0x40 {
				evs = appendEvent(evs, refEvent{kind: "cancel", seq: "-"})
				st = rGround
			}
		}
	}
	return evs
}

func (t Terminator) String() string {
	return [...]string{"none", "BEL", "ST", "cut"}[t]
}

// tokenizerCases are inputs the tests read with both.
var tokenizerCases = []string{
	"plain text\r\n",
	"\x1b[31mred\x1b[0m\x1b[38:2::1:2:3m",
	"\x1b[?1049;2004h\x1b[?20\a04l\x1b[?10\x7f49h",
	"\x1b[?10\x1849h\x1b[?20\x1a04l\x1b[?10\x1b[?25l",
	"\x1b[1?1049h\x1b[?1049?h\x1b[? 1049h\x1b[?20$04l",
	"\x1bc\x1b(B\x1b#8\x1b(%5\x1b\ax\x1b\x1b[A",
	"\x1b]0;title\x07\x1b]52;c;?\x1b\\\x1b]8;;x\x1b[?25l",
	"\x1bP$qm\x1b\\\x1bP1:2qdata\x1b\\\x1bPq\a\x1b\\",
	"\x1b_Gf=1;AA\x1b\\\x1bXsos\x1b\\\x1b^pm\u009c",
	"\u009b?2004l\x9b?1000h\u009d52;?\u009c\u0090$q\u009c\u0085\x85\u009c",
	"\x1b[?20\u00e904l\x1b[?20\xff04l\x1b[?20\xe2\x8204l",
	"\u2500\u251b\u276f\u26d4\xc2\xa0\xc2",
	"\x1b[" + strings.Repeat("1;", 40) + "99999999999999999999h",
	"\x1b]0;x\x1b", "\x1b[", "\x1b", "\x1bP", "\x1b]",
}

// Each case, read whole and at every read size, gives the reference's
// events.
func TestTokenizerReference(t *testing.T) {
	for _, in := range tokenizerCases {
		want := refTokenize([]byte(in), false)
		for n := 1; n <= len(in); n++ {
			var z Tokenizer
			got := tokenizerEvents(&z, splitKeepingLead([]byte(in), n))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%q, read size %d:\n got %v\nwant %v", in, n, got, want)
			}
		}
	}
}

// splitKeepingLead cuts in into chunks of about n bytes, none but the
// last ending in a C2: the Tokenizer reads one at the end of its input as
// a byte of a character (OutputFilter keeps it for the next call).
func splitKeepingLead(in []byte, n int) [][]byte {
	var chunks [][]byte
	for len(in) > 0 {
		c := min(n, len(in))
		for c < len(in) && in[c-1] == 0xc2 {
			c++
		}
		chunks = append(chunks, in[:c])
		in = in[c:]
	}
	return chunks
}

// FuzzTokenizer requires the reference's events from the Tokenizer, in
// UTF-8 and 8-bit, whatever the split of the input.
func FuzzTokenizer(f *testing.F) {
	for _, in := range tokenizerCases {
		f.Add([]byte(in), []byte{0}, false)
		f.Add([]byte(in), []byte{3, 1, 0, 7}, true)
	}
	f.Fuzz(func(t *testing.T, in, cuts []byte, eightBit bool) {
		want := refTokenize(in, eightBit)
		parts := chunks(bytes.Clone(in), cuts)
		if !eightBit {
			parts = splitKeepingLead(bytes.Join(parts, nil), max(1, len(in)/max(1, len(parts))))
		}
		z := Tokenizer{EightBit: eightBit}
		got := tokenizerEvents(&z, parts)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q (8-bit %v) in %d chunks:\n got %v\nwant %v", in, eightBit, len(parts), got, want)
		}
	})
}
