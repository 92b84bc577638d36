package termproto

// Tokenizer reads a program's output the way a terminal reads it: as the
// DEC/ECMA-48 state machine of vt100.net's "A parser for DEC's
// ANSI-compatible video terminals", which xterm, VTE, xterm.js, alacritty's
// vte crate, tmux and libvterm follow, with the extensions they share:
//
//   - a C0 control inside an escape or control sequence is executed where
//     it stands and the sequence goes on; DEL is ignored; CAN and SUB cancel
//     the sequence; ESC cancels it and starts another;
//   - ':' separates sub-parameters of a control sequence (ISO 8613-6), as
//     in "ESC [ 38:2::255:0:0 m", instead of making the sequence ignored;
//   - BEL ends an OSC string as ST does (xterm); CAN, SUB, ESC and (with
//     EightBit) C1 controls end every string;
//   - there is no length past which a sequence stops being one.
//
// Bytes of 0x80 and above are read as UTF-8 unless EightBit is set. The C1
// controls (U+0080 to U+009F, UTF-8 encoded as C2 80 to C2 9F) and a lone
// byte from 0x80 to 0x9F that is part of no character are no controls
// then, but terminals read them in different ways: VTE takes U+009B for
// CSI, xterm and kitty ignore it, xterm.js drops a lone byte and joins what
// is around it, an 8-bit terminal takes the byte for CSI. Outside
// sequences the tokenizer reports each such unit as ActC1, for the caller
// to make it harmless; inside one, it ignores it. With EightBit, every
// byte from 0x80 to 0x9F is a C1 control, which acts as its 7-bit form
// does in every state (0x9B as ESC [, 0x9D as ESC ], 0x9C as ST, ...), as
// in xterm in an 8-bit locale. Any other non-ASCII character inside an
// escape or control sequence is ignored there (alacritty, tmux), and
// reported as such, since terminals disagree on it too (xterm.js and kitty
// end the sequence).
//
// Next reports what the next bytes are, one Action at a time; the fields
// of Seq describe the sequence under way. Any split of the output across
// calls to Next gives the same actions, except that runs (ActText,
// ActHold, ActIgnore, ActStringData) may be cut where the input is. The
// zero value is ready to use, in the ground state. A Tokenizer does no I/O
// and is not safe for concurrent use.
type Tokenizer struct {
	// EightBit reads bytes 0x80 to 0x9F as C1 controls wherever they are,
	// as a terminal in an 8-bit locale does. It must not change after the
	// first call to Next.
	EightBit bool

	// Seq is the sequence under way, or the one an action has just ended:
	// valid from the action that starts it (ActHold from the ground state,
	// ActStringStart) to the next one that starts another.
	Seq Seq

	// Term is how the last control string ended: set by ActStringEnd.
	Term Terminator

	// Shift is the last shift control (SO, 0x0E, or SI, 0x0F) in the text
	// of the last ActText, or 0: the caller may clear it and look again.
	Shift byte

	st    vtState
	utf8  utf8State
	param paramState
}

// Action is what the bytes Next has read are.
type Action uint8

const (
	// ActText: text, which the terminal shows or executes (printable
	// characters, C0 controls, C1 controls that only act), outside any
	// sequence.
	ActText Action = iota
	// ActHold: bytes of an escape or control sequence, or of a control
	// string's header (DCS), still under way. From the ground state it
	// starts a sequence.
	ActHold
	// ActExec: one C0 control inside a sequence, executed by the terminal
	// where it stands; the sequence goes on.
	ActExec
	// ActIgnore: bytes inside a sequence that the terminal ignores (DEL,
	// non-ASCII characters, C0 controls in a DCS header); the sequence goes
	// on.
	ActIgnore
	// ActDispatch: the last byte of an escape or control sequence, which
	// the terminal acts on. Seq says what it is.
	ActDispatch
	// ActCancel: the sequence under way ends without effect. Any bytes
	// read (a control sequence's final byte after a malformed start, a C1
	// ST) belong to it; when none are, the byte that ended it (CAN, SUB,
	// ESC, a C1 control) is read next, from the ground state.
	ActCancel
	// ActStringStart: the last bytes of a control string's introducer
	// (OSC, SOS, PM, APC: ESC and its letter, or the C1 control; DCS: the
	// final byte of its header). Seq.Kind says which; for a DCS whose
	// header is malformed, Seq.Ignored is set and the byte read is the one
	// out of place: the terminal ignores the whole string.
	ActStringStart
	// ActStringData: the contents of a control string.
	ActStringData
	// ActStringEsc: an ESC inside a control string, at the end of the
	// input: the next byte says whether it ends the string as ST (ESC \,
	// then ActStringEnd reads the \) or starts a sequence (ActStringEnd
	// reads nothing, and the tokenizer is in that sequence, its ESC read).
	ActStringEsc
	// ActC1: a C1 control in UTF-8 output, or a lone byte from 0x80 to
	// 0x9F, in text or in a control string's contents (not with
	// EightBit): terminals read it in different ways.
	ActC1
	// ActStringEnd: the control string ends, as Term says. The bytes read,
	// if any, are its terminator: BEL, ESC \ (or its \ after ActStringEsc)
	// or the C1 ST. When none are, Term is TermCut and what ended it is
	// read next.
	ActStringEnd
)

var actionNames = [...]string{
	ActText: "text", ActHold: "hold", ActExec: "exec", ActIgnore: "ignore",
	ActDispatch: "dispatch", ActCancel: "cancel", ActStringStart: "string-start",
	ActStringData: "string-data", ActStringEsc: "string-esc", ActC1: "c1", ActStringEnd: "string-end",
}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "action?"
}

// SeqKind is the kind of a sequence.
type SeqKind uint8

const (
	SeqNone SeqKind = iota
	SeqESC          // ESC, intermediate bytes, a final byte
	SeqCSI          // control sequence: ESC [ (or C1 CSI), parameters, intermediates, a final byte
	SeqOSC          // operating system command: ESC ] (or C1 OSC), a string
	SeqDCS          // device control string: ESC P (or C1 DCS), a header like a CSI's, a string
	SeqSOS          // start of string, privacy message, application program command:
	SeqPM           // ESC X, ESC ^, ESC _ (or their C1 controls), a string that
	SeqAPC          // terminals ignore, or take as their own protocols (kitty's graphics)
)

// Terminator is how a control string ended.
type Terminator uint8

const (
	TermNone Terminator = iota
	TermBEL             // BEL, which ends an OSC (xterm)
	TermST              // ESC \ or the C1 ST
	TermCut             // CAN, SUB, ESC not followed by \, or another C1 control: the string is cut short
)

// Limits of what a Seq keeps. The sequence is read to its end whatever
// its length; these bound only what is remembered of it.
const (
	// MaxParams is how many parameters Seq.Params keeps: more than any
	// terminal acts on (xterm 30, VTE and alacritty 32 and the sequence is
	// dropped past that, tmux 24).
	MaxParams = 32
	// maxInter is how many intermediate bytes Seq.Inter keeps.
	maxInter = 2
	// MaxParamValue caps a parameter's value while it is read: no mode or
	// flag comes near it, and a run of digits cannot overflow.
	MaxParamValue = 1<<31 - 1
)

// Seq is what the Tokenizer has read of a sequence.
type Seq struct {
	Kind SeqKind
	// C1 reports that the sequence was introduced by a C1 control, not by
	// ESC.
	C1 bool
	// Marker is the private marker ('<', '=', '>' or '?') that starts the
	// parameters of a CSI or DCS, or 0.
	Marker byte
	// Inter holds the first intermediate bytes (0x20 to 0x2F); NInter
	// counts them all.
	Inter  [maxInter]byte
	NInter int
	// Final is the final byte of an ESC sequence, a CSI or a DCS header.
	Final byte
	// Params holds the first MaxParams parameters of a CSI or DCS: -1 for
	// one left out, else its value up to MaxParamValue (the main value of
	// one with sub-parameters). NParams counts them all. These and Sub are
	// set once Parse has been called.
	Params  [MaxParams]int
	NParams int
	// Sub reports that a parameter has sub-parameters (':').
	Sub bool
	// ParamLen counts the parameter bytes (digits, ';', ':').
	ParamLen int
	// Ignored reports bytes the terminal ignored inside the sequence
	// (ActIgnore): terminals disagree on what they mean.
	Ignored bool

	raw []byte // parameter bytes not yet parsed (see Parse)
}

// Param returns parameter i, or def when it is left out or absent.
func (s *Seq) Param(i, def int) int {
	if i >= s.NParams || i >= MaxParams || s.Params[i] < 0 {
		return def
	}
	return s.Params[i]
}

// Intermediate returns the intermediate byte when there is exactly one,
// or 0.
func (s *Seq) Intermediate() byte {
	if s.NInter != 1 {
		return 0
	}
	return s.Inter[0]
}

// Control characters that end or cancel a sequence, and DEL.
const (
	bel = 0x07 // ends an OSC
	can = 0x18 // cancels a sequence
	sub = 0x1a // cancels a sequence
	del = 0x7f // ignored inside a sequence
)

// vtState is the state of the DEC parser.
type vtState uint8

const (
	stGround vtState = iota
	stEsc
	stEscInter
	stCSIEntry
	stCSIParam
	stCSIInter
	stCSIIgnore
	stDCSEntry
	stDCSParam
	stDCSInter
	stDCSIgnore // the string of a DCS whose header is malformed
	stDCSPass   // the string of a DCS
	stOSC
	stSOS     // SOS, PM and APC strings
	stStrEsc  // ESC inside a string, at the end of the last input
	numStates // not a state
)

// Ground reports whether the tokenizer is between sequences.
func (z *Tokenizer) Ground() bool { return z.st == stGround }

// InString reports whether the tokenizer is inside a control string's
// contents.
func (z *Tokenizer) InString() bool {
	switch z.st {
	case stDCSPass, stDCSIgnore, stOSC, stSOS, stStrEsc:
		return true
	}
	return false
}

// utf8State follows UTF-8 decoding across calls, so that a C1 control can
// be told from a byte of a character.
type utf8State struct {
	need    uint8 // continuation bytes still expected
	afterC2 bool  // the last byte was the lead byte C2: a continuation 80-9F makes a C1 control
}

// paramState follows the parameter being read.
type paramState struct {
	cur    int  // its value so far
	digits bool // it has digits
	sub    bool // it is in a sub-parameter
	any    bool // a parameter byte came: the last parameter is to be ended
}

// Unit kinds, as decode reports them.
const (
	unitASCII = iota // an ASCII byte
	unitC1           // a C1 control (its code point)
	unitOther        // a byte of a non-ASCII character, or an invalid one
)

// decode reports what starts p: its kind, its code point (for ASCII and
// C1) and its size, without changing the UTF-8 state; commit does.
func (z *Tokenizer) decode(p []byte) (kind int, c byte, size int) {
	b := p[0]
	switch {
	case b < 0x80:
		return unitASCII, b, 1
	case z.EightBit:
		if b <= 0x9f {
			return unitC1, b, 1
		}
		return unitOther, b, 1
	case b <= 0xbf: // A continuation byte.
		if z.utf8.need > 0 {
			if z.utf8.afterC2 && b <= 0x9f {
				return unitC1, b, 1 // Its lead C2 was read before.
			}
			return unitOther, b, 1
		}
		if b <= 0x9f {
			return unitC1, b, 1 // A lone byte, as an 8-bit terminal reads it.
		}
		return unitOther, b, 1
	case b == 0xc2 && len(p) > 1 && p[1] >= 0x80 && p[1] <= 0x9f:
		return unitC1, p[1], 2
	}
	return unitOther, b, 1
}

// commit updates the UTF-8 state for the unit of kind and size at the
// start of p.
func (z *Tokenizer) commit(p []byte, kind, size int) {
	u := &z.utf8
	if kind == unitASCII || size == 2 || z.EightBit {
		*u = utf8State{}
		return
	}
	b := p[0]
	switch {
	case b <= 0xbf:
		if u.need > 0 {
			u.need--
		}
		u.afterC2 = false
	case b >= 0xc2 && b <= 0xdf:
		u.need, u.afterC2 = 1, b == 0xc2
	case b >= 0xe0 && b <= 0xef:
		u.need, u.afterC2 = 2, false
	case b >= 0xf0 && b <= 0xf4:
		u.need, u.afterC2 = 3, false
	default:
		*u = utf8State{} // C0, C1, F5-FF: never in UTF-8.
	}
}

// skipText records text p that the caller read instead of Next: in the
// ground state, with no ESC and no byte from 0x80 to 0x9F, and not ending
// in C2. Only the UTF-8 state changes: what the last character of p still
// needs.
func (z *Tokenizer) skipText(p []byte) {
	k := len(p) - 1
	for k >= 0 && p[k] >= 0x80 && p[k] <= 0xbf {
		k--
	}
	conts := len(p) - 1 - k
	if k < 0 { // Only continuation bytes.
		z.utf8 = utf8State{need: uint8(max(int(z.utf8.need)-conts, 0))}
		return
	}
	want := 0
	switch b := p[k]; {
	case b >= 0xc2 && b <= 0xdf:
		want = 1
	case b >= 0xe0 && b <= 0xef:
		want = 2
	case b >= 0xf0 && b <= 0xf4:
		want = 3
	}
	z.utf8 = utf8State{need: uint8(max(want-conts, 0))}
}

// Next reads from the start of p, which must not be empty, and returns how
// many bytes it read and what they are. It reads no bytes only for
// ActCancel and ActStringEnd, whose byte is then read again by the next
// call, in the state they leave.
func (z *Tokenizer) Next(p []byte) (int, Action) {
	switch z.st {
	case stGround:
		return z.ground(p)
	case stOSC, stDCSPass, stDCSIgnore, stSOS:
		return z.str(p)
	case stStrEsc:
		return z.strEsc(p)
	}
	kind, c, size := z.decode(p)
	switch {
	case kind == unitC1 && z.EightBit:
		return z.c1InSeq(c, size)
	case kind != unitASCII: // Another character, or a C1 control in UTF-8.
		z.commit(p, kind, size)
		z.Seq.Ignored = true
		return size, ActIgnore
	}
	z.utf8 = utf8State{}
	switch {
	case c == can || c == sub || c == esc:
		z.st = stGround
		return 0, ActCancel
	case c == del:
		z.Seq.Ignored = true
		return 1, ActIgnore
	case c < 0x20:
		if z.st >= stDCSEntry && z.st <= stDCSInter {
			z.Seq.Ignored = true
			return 1, ActIgnore // A DCS header ignores C0 controls.
		}
		return 1, ActExec
	}
	switch z.st {
	case stEsc:
		return z.escByte(c)
	case stEscInter:
		return z.escInterByte(c)
	case stCSIEntry, stCSIParam, stCSIInter, stDCSEntry, stDCSParam, stDCSInter:
		return z.headerBytes(p)
	case stCSIIgnore:
		if c >= 0x40 {
			z.st = stGround
			return 1, ActCancel
		}
		return 1, ActHold
	}
	panic("termproto: tokenizer in an unknown state")
}

// ground reads text up to the next sequence, or starts it.
func (z *Tokenizer) ground(p []byte) (int, Action) {
	i := 0
	for i < len(p) {
		b := p[i]
		if b < 0x80 {
			if b < 0x20 {
				if b == esc {
					break
				}
				if b == so || b == si {
					z.Shift = b
				}
			}
			i++
			continue
		}
		if i > 0 && p[i-1] < 0x80 {
			z.utf8 = utf8State{} // An ASCII byte ends any character under way.
		}
		if n := wholeChar(p[i:]); n > 0 && z.utf8.need == 0 && !z.EightBit {
			i += n // A character whole in p, with no C1 control in it.
			continue
		}
		kind, c, size := z.decode(p[i:])
		if kind == unitC1 && (startsSequence(c) || !z.EightBit) {
			break
		}
		z.commit(p[i:], kind, size)
		i += size
	}
	if i > 0 {
		if p[i-1] < 0x80 {
			z.utf8 = utf8State{}
		}
		return i, ActText
	}
	if p[0] == esc {
		z.utf8 = utf8State{}
		if n := z.wholeCSI(p); n > 0 {
			return n, ActDispatch
		}
		z.begin(SeqESC, false)
		z.st = stEsc
		return 1, ActHold
	}
	_, c, size := z.decode(p)
	z.utf8 = utf8State{}
	if !z.EightBit {
		return size, ActC1
	}
	return z.c1Start(c, size)
}

// wholeCSI reads a control sequence whole at the start of p, as Next
// would read it byte by byte, when p holds all of it and nothing in it
// but parameter, intermediate and final bytes in their places: most of
// what programs write (colours, cursor moves). It returns its length, or
// 0 to read p byte by byte.
func (z *Tokenizer) wholeCSI(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	i := 2
	for i < len(p) && p[i] >= '0' && p[i] <= '?' {
		if c := p[i]; c >= '<' && i > 2 {
			return 0 // A marker out of place: the slow path reads it so.
		}
		i++
	}
	j := i
	for j < len(p) && p[j] >= 0x20 && p[j] <= 0x2f {
		j++
	}
	if j == len(p) || p[j] < 0x40 || p[j] > 0x7e {
		return 0
	}
	z.begin(SeqCSI, false)
	s := &z.Seq
	k := 2
	if c := p[2]; c >= '<' && c <= '?' {
		s.Marker = c
		k = 3
	}
	if k < i {
		s.raw = p[k:i] // Parsed by Parse, if ever.
		s.ParamLen = i - k
	}
	for _, c := range p[i:j] {
		z.collect(c)
	}
	s.Final = p[j]
	return j + 1
}

// Parse reads the parameters of a control sequence that Next read whole
// into Params, NParams and Sub, once; they are left unread until a caller
// asks for them (most sequences are colours and cursor moves). It must be
// called before Next is called again.
func (s *Seq) Parse() {
	if s.raw == nil {
		return
	}
	cur, digits, sub := 0, false, false
	for _, c := range s.raw {
		switch {
		case c <= '9':
			if !sub {
				digits = true
				if cur <= (MaxParamValue-9)/10 {
					cur = cur*10 + int(c-'0')
				} else {
					cur = MaxParamValue
				}
			}
			continue
		case c == ':':
			s.Sub = true
			if sub {
				continue
			}
		}
		if !sub {
			s.addParam(cur, digits)
		}
		cur, digits, sub = 0, false, c == ':'
	}
	if !sub {
		s.addParam(cur, digits)
	}
	s.raw = nil
}

// addParam records a parameter's main value, or one left out.
func (s *Seq) addParam(v int, digits bool) {
	if !digits {
		v = -1
	}
	if s.NParams < MaxParams {
		s.Params[s.NParams] = v
	}
	s.NParams++
}

// wholeChar returns the length of the UTF-8 character at the start of p
// when p holds all of it and it is not a C1 control, or 0.
func wholeChar(p []byte) int {
	n := 0
	switch b := p[0]; {
	case b >= 0xc2 && b <= 0xdf:
		n = 2
		if b == 0xc2 && len(p) > 1 && p[1] <= 0x9f {
			return 0 // A C1 control.
		}
	case b >= 0xe0 && b <= 0xef:
		n = 3
	case b >= 0xf0 && b <= 0xf4:
		n = 4
	default:
		return 0
	}
	if len(p) < n {
		return 0
	}
	for _, c := range p[1:n] {
		if c < 0x80 || c > 0xbf {
			return 0
		}
	}
	return n
}

// startsSequence reports whether the C1 control c starts a sequence or a
// string; the others only act (or, ST, do nothing) in the ground state.
func startsSequence(c byte) bool {
	switch c {
	case 0x90, 0x98, 0x9b, 0x9d, 0x9e, 0x9f:
		return true
	}
	return false
}

// c1Start starts the sequence or string of the C1 control c, of size
// bytes, in the ground state.
func (z *Tokenizer) c1Start(c byte, size int) (int, Action) {
	switch c {
	case 0x9b:
		z.begin(SeqCSI, true)
		z.st = stCSIEntry
		return size, ActHold
	case 0x90:
		z.begin(SeqDCS, true)
		z.st = stDCSEntry
		return size, ActHold
	case 0x9d:
		z.begin(SeqOSC, true)
		z.st = stOSC
	case 0x98:
		z.begin(SeqSOS, true)
		z.st = stSOS
	case 0x9e:
		z.begin(SeqPM, true)
		z.st = stSOS
	case 0x9f:
		z.begin(SeqAPC, true)
		z.st = stSOS
	}
	return size, ActStringStart
}

// c1InSeq reads the C1 control c inside a sequence: ST ends it, read with
// it; any other ends it and is read again from the ground state.
func (z *Tokenizer) c1InSeq(c byte, size int) (int, Action) {
	z.st = stGround
	if c == 0x9c {
		z.utf8 = utf8State{}
		return size, ActCancel
	}
	return 0, ActCancel
}

// begin starts a sequence of kind.
func (z *Tokenizer) begin(kind SeqKind, c1 bool) {
	s := &z.Seq
	// Params past NParams are never read: they are left as they are.
	s.Kind, s.C1, s.Marker, s.NInter, s.Final, s.NParams, s.Sub, s.Ignored, s.raw = kind, c1, 0, 0, 0, 0, false, false, nil
	s.ParamLen = 0
	z.param = paramState{}
}

// escByte reads the ASCII byte c (0x20 to 0x7E) after ESC.
func (z *Tokenizer) escByte(c byte) (int, Action) {
	s := &z.Seq
	switch {
	case c < 0x30:
		z.collect(c)
		z.st = stEscInter
		return 1, ActHold
	case c == '[':
		s.Kind = SeqCSI
		z.st = stCSIEntry
		return 1, ActHold
	case c == 'P':
		s.Kind = SeqDCS
		z.st = stDCSEntry
		return 1, ActHold
	case c == ']':
		s.Kind, z.st = SeqOSC, stOSC
		return 1, ActStringStart
	case c == 'X':
		s.Kind, z.st = SeqSOS, stSOS
		return 1, ActStringStart
	case c == '^':
		s.Kind, z.st = SeqPM, stSOS
		return 1, ActStringStart
	case c == '_':
		s.Kind, z.st = SeqAPC, stSOS
		return 1, ActStringStart
	}
	s.Final = c
	z.st = stGround
	return 1, ActDispatch
}

// escInterByte reads the ASCII byte c (0x20 to 0x7E) after ESC and
// intermediate bytes.
func (z *Tokenizer) escInterByte(c byte) (int, Action) {
	if c < 0x30 {
		z.collect(c)
		return 1, ActHold
	}
	z.Seq.Final = c
	z.st = stGround
	return 1, ActDispatch
}

// collect records the intermediate byte c.
func (z *Tokenizer) collect(c byte) {
	s := &z.Seq
	if s.NInter < maxInter {
		s.Inter[s.NInter] = c
	}
	s.NInter++
}

// headerBytes reads the bytes of a CSI or DCS header from p, which starts
// with an ASCII byte from 0x20 to 0x7E: a run of parameter bytes at once.
func (z *Tokenizer) headerBytes(p []byte) (int, Action) {
	dcs := z.st >= stDCSEntry
	c := p[0]
	switch {
	case c >= 0x40: // The final byte.
		z.endParams()
		z.Seq.Final = c
		if dcs {
			z.st = stDCSPass
			return 1, ActStringStart
		}
		z.st = stGround
		return 1, ActDispatch
	case c < 0x30: // An intermediate byte.
		z.collect(c)
		z.st = stCSIInter
		if dcs {
			z.st = stDCSInter
		}
		return 1, ActHold
	case c >= 0x3c: // A private marker: first, or the sequence is malformed.
		if z.st == stCSIEntry || z.st == stDCSEntry {
			z.Seq.Marker = c
			z.st++ // To the parameter state.
			return 1, ActHold
		}
		return z.malformed(dcs)
	case z.st == stCSIInter || z.st == stDCSInter:
		return z.malformed(dcs) // A parameter after an intermediate byte.
	case c == ':' && dcs:
		return z.malformed(dcs)
	}
	if z.st == stCSIEntry || z.st == stDCSEntry {
		z.st++
	}
	n := 0
	for n < len(p) {
		c := p[n]
		if c < '0' || c > ';' {
			break
		}
		if c == ':' && dcs {
			break
		}
		z.paramByte(c)
		n++
	}
	return n, ActHold
}

// malformed goes to the state that reads a malformed CSI or DCS header to
// its end and ignores it.
func (z *Tokenizer) malformed(dcs bool) (int, Action) {
	if dcs {
		z.st = stDCSIgnore
		z.Seq.Ignored = true
		return 1, ActStringStart
	}
	z.st = stCSIIgnore
	return 1, ActHold
}

// paramByte reads a digit, ';' or ':' of the parameters.
func (z *Tokenizer) paramByte(c byte) {
	ps := &z.param
	ps.any = true
	z.Seq.ParamLen++
	switch c {
	case ';':
		z.endParam()
	case ':':
		if !ps.sub {
			z.endMain()
		}
		ps.sub = true
		z.Seq.Sub = true
	default:
		if !ps.sub {
			ps.digits = true
			if ps.cur <= (MaxParamValue-9)/10 {
				ps.cur = ps.cur*10 + int(c-'0')
			} else {
				ps.cur = MaxParamValue
			}
		}
	}
}

// endMain records the main value of the parameter being read.
func (z *Tokenizer) endMain() { z.Seq.addParam(z.param.cur, z.param.digits) }

// endParam ends the parameter being read.
func (z *Tokenizer) endParam() {
	if !z.param.sub {
		z.endMain()
	}
	z.param = paramState{any: true}
}

// endParams ends the last parameter at the final byte.
func (z *Tokenizer) endParams() {
	if z.param.any {
		z.endParam()
	}
}

// str reads a control string's contents up to what ends it.
func (z *Tokenizer) str(p []byte) (int, Action) {
	i := 0
	for i < len(p) {
		b := p[i]
		switch {
		case b == esc || b == can || b == sub || b == bel && z.st == stOSC:
			return z.strEnd(p, i)
		case b < 0x80:
			z.utf8 = utf8State{}
			i++
			continue
		}
		kind, _, size := z.decode(p[i:])
		switch {
		case kind == unitC1 && z.EightBit:
			return z.strEnd(p, i)
		case kind == unitC1 && i > 0:
			return i, ActStringData
		case kind == unitC1:
			z.utf8 = utf8State{}
			return size, ActC1
		}
		z.commit(p[i:], kind, size)
		i += size
	}
	return i, ActStringData
}

// strEnd reads what ends a string, at p[i]: data before it first.
func (z *Tokenizer) strEnd(p []byte, i int) (int, Action) {
	if i > 0 {
		return i, ActStringData
	}
	switch b := p[0]; {
	case b == bel:
		return z.endString(1, TermBEL)
	case b == esc && len(p) == 1:
		z.st = stStrEsc
		return 1, ActStringEsc
	case b == esc && p[1] == '\\':
		return z.endString(2, TermST)
	case b == esc, b == can, b == sub:
		return z.endString(0, TermCut)
	}
	if _, c, size := z.decode(p); c == 0x9c {
		z.utf8 = utf8State{}
		return z.endString(size, TermST)
	}
	return z.endString(0, TermCut)
}

// strEsc reads the byte after an ESC that ended the last input inside a
// string: \ makes ST; anything else cuts the string, and the ESC starts a
// sequence.
func (z *Tokenizer) strEsc(p []byte) (int, Action) {
	if p[0] == '\\' {
		return z.endString(1, TermST)
	}
	z.Term = TermCut
	z.begin(SeqESC, false)
	z.st = stEsc
	return 0, ActStringEnd
}

// endString ends the string with the n bytes of its terminator t.
func (z *Tokenizer) endString(n int, t Terminator) (int, Action) {
	if n > 0 {
		z.utf8 = utf8State{}
	}
	z.st = stGround
	z.Term = t
	return n, ActStringEnd
}
