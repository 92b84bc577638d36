package termproto

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"sync/atomic"
)

// OutputFilter filters a program's output on its way to the terminal: the
// program is the child pbwrap runs, and pbwrap keeps bracketed paste (DEC
// private mode 2004) on at the terminal for as long as it runs. It reads
// the output with a Tokenizer, as the terminal does, and
//
//   - hides the child's own mode 2004 changes, so that nothing the child
//     writes turns the terminal's mode off, and follows them (Enabled): a
//     DEC private mode set, reset, save or restore loses its 2004
//     parameter, and after anything that may have reset the terminal
//     (RIS, DECSTR, XTRESTORE) or a mode sequence it drops, the mode is
//     set again at once, and so are paste events when pbwrap has them on
//     (ClipMode);
//   - takes kitty's clipboard paste events (DEC private mode 5522), which
//     are pbwrap's too, out of every mode sequence the child writes, so
//     that the child can never turn them on (see keptDEC);
//   - follows the other modes the child sets, so that the owner of the
//     terminal can undo exactly those the child left on (AppendReset) and
//     set them again (AppendRestore);
//   - drops the child's requests to read the clipboard (OSC 52 and OSC
//     5522 reads: see clipHeader), unless AllowClipboardRead is set.
//
// The modes it follows: the DEC private modes of decModes and the
// alternate screen (47, 1047, 1049); the ANSI modes of ansiModes (KAM,
// IRM, SRM, LNM); the keypad (ESC = and ESC >); the kitty keyboard
// protocol's stacks, one per screen, as kitty keeps them (CSI > u, CSI <
// u, CSI = u); xterm's modifyOtherKeys (CSI > 4 ; n m); the cursor style
// (DECSCUSR) and blinking; scroll margins (DECSTBM); character attributes
// (SGR); character sets (designations and shifts); the colours OSC 4, 10,
// 11 and 12 set. XTSAVE and XTRESTORE are followed for the DEC modes.
//
// Terminals read some output differently (xterm.js drops invalid UTF-8
// and joins what is around it; kitty reads an intermediate byte past in a
// mode sequence, 16 digits of a number at most, a string on through CAN
// and ESC; tmux discards a sequence with over 62 parameter bytes; VTE
// takes U+009B for CSI). What the filter passes is read alike by all of
// them, as the Tokenizer reads it:
//
//   - a sequence the tokenizer reads as cancelled or malformed is dropped;
//   - a sequence with bytes inside that terminals read differently
//     (non-ASCII, DEL) passes without them; a C0 control inside one passes
//     before it, which is where terminals execute it anyway;
//   - a sequence the filter follows passes in its plain form (numbers
//     without leading zeros, no empty or sub-parameters, no number over
//     65535, at most 62 parameter bytes and 16 parameters: a mode sequence
//     is cut in as many as that takes), or not at all when it has no such form (more
//     parameters than it takes, intermediate bytes or another marker on a
//     mode sequence); so does any sequence with over 62 parameter bytes,
//     or of over maxSeq bytes;
//   - in UTF-8 output, a C1 control (U+0080 to U+009F) or a lone byte from
//     0x80 to 0x9F becomes U+FFFD; with EightBit, where every terminal
//     reads them as controls, a sequence or string a C1 control starts, and
//     the C1 ST, pass in their 7-bit forms;
//   - a control string cut short (CAN, SUB, ESC and not ST) is ended with
//     ST where it was cut; an OSC 52 that sets the clipboard passes without
//     "?", which is no base64 and which kitty could read as a request;
//   - sequences that change how the terminal reads or answers are dropped:
//     S8C1T (ESC SP G), which makes it send paste markers as 8-bit C1
//     controls; the ANSI conformance levels (ESC SP L, M, N) and DECSCL;
//     ESC % @, which leaves UTF-8; DECANM reset (CSI ? 2 l), VT52 mode; and
//     xterm's 2005 and 2006 set, which change what a paste delivers.
//
// What the tokenizer holds (an unfinished sequence, the start of an OSC
// not yet known to read the clipboard) is held until it is known, however
// long that takes: the terminal would not show a part of it anyway. At the
// end of the output (Close), an unfinished sequence is dropped and a
// control string still open is ended, so that the terminal reads what
// follows as it should.
//
// Any split of the output across Writes gives the same output and the same
// modes as one Write of the whole. The zero value is ready to use. Write,
// Close, AppendReset and AppendRestore must not be called concurrently;
// Enabled and SetCursorBlink may be called from any goroutine. An
// OutputFilter must not be copied after first use.
type OutputFilter struct {
	// AllowClipboardRead lets clipboard reads through. EightBit reads the
	// output as a terminal in an 8-bit locale does (see Tokenizer). Neither
	// may change after the first Write.
	AllowClipboardRead bool
	EightBit           bool
	// ClipMode, if set, reports whether pbwrap has kitty's paste events
	// (mode 5522) on at the terminal: wherever bracketed paste is set
	// again after what may have reset the terminal, so are they (kitty's
	// RIS and DECSTR turn them off). It is called from Write's goroutine.
	ClipMode func() bool
	z        Tokenizer
	started  bool
	modes    termModes
	enabled  atomic.Bool  // the child's mode 2004
	blink    atomic.Int32 // the terminal's answer for mode 12 (see SetCursorBlink)
	saved    bool         // ... as saved with XTSAVE
	dropped  int

	// The sequence held: the bytes of it that are out of the output (from
	// earlier Writes, or moved out of this one), and from, the index in
	// this Write where its bytes still in the output start. over marks one
	// longer than maxSeq, of which no more is kept.
	holding bool
	held    []byte
	from    int
	over    bool
	// pendEsc marks an ESC inside a control string at the end of the last
	// Write (ActStringEsc): held until the next byte says what it is.
	pendEsc bool
	// lead marks a C2 at the end of the last Write, kept out of it: with
	// the next byte it may be a C1 control.
	lead    bool
	leadBuf []byte
	// need is how many more bytes the terminal expects of the UTF-8
	// character the output passed so far ends in (see Boundary).
	need  int
	str   strMode
	clip  clipHeader
	strC1 bool // the string was introduced by a C1 control
	str52 bool // the string is an OSC 52 that passes

	buf, scratch []byte
}

// strMode is what an OutputFilter does with the control string under way.
type strMode uint8

const (
	strPass   strMode = iota // it passes
	strDrop                  // it is dropped: a clipboard read, a malformed DCS, or one cut at a reset
	strHeader                // the start of an OSC is held until clipHeader decides
)

// maxSeq bounds the bytes of a sequence an OutputFilter holds. Real ones
// are far shorter (an SGR with two true colours is under 40 bytes).
const maxSeq = 512

// maxModeNumber is above every mode number: a parameter above it names no
// mode, and a terminal that wraps large values round could read it as one.
const maxModeNumber = 65535

// lone is a C2 alone, as Close reads one kept from the last Write.
var lone = [1]byte{0xc2}

// stringTerminator is ST, which ends a control string in every terminal.
const stringTerminator = "\x1b\\"

// Write filters p and returns what to pass on. The result may alias p when
// nothing changes and may alias an internal buffer otherwise; it is valid
// until the next call. Text with no ESC and no byte from 0x80 up, outside
// any sequence, is returned as is at no cost.
func (f *OutputFilter) Write(p []byte) []byte { return f.write(p, false) }

// write filters p; at the end of the output (last), a C2 that ends it is
// read as it is.
func (f *OutputFilter) write(p []byte, last bool) []byte {
	if !f.started {
		f.started = true
		f.z.EightBit = f.EightBit
	}
	if len(p) == 0 {
		return p
	}
	if f.Idle() && plainText(p) {
		f.z.skipText(p)
		f.passed(p)
		return p
	}
	// A C2 that ends the input may start a C1 control with the next byte:
	// it is kept for the next Write, so that the tokenizer sees both.
	if f.lead {
		f.leadBuf = append(append(f.leadBuf[:0], 0xc2), p...)
		p, f.lead = f.leadBuf, false
	}
	if !f.EightBit && !last && p[len(p)-1] == 0xc2 {
		p, f.lead = p[:len(p)-1], true
		if len(p) == 0 {
			return p
		}
	}
	o := output{src: p, buf: f.buf[:0]}
	f.from = 0
	for i := 0; i < len(p); {
		if f.z.st == stGround && !f.holding && !f.pendEsc {
			// Text, and sequences read whole: what most output is, handled
			// here without the round of act.
			n, a := f.z.ground(p[i:])
			j := i + n
			switch {
			case a == ActText:
				if f.z.Shift != 0 {
					f.modes.shift(f.z.Shift)
					f.z.Shift = 0
				}
			case a == ActDispatch && n <= maxSeq:
				f.dispatchWhole(&o, i, j)
			default:
				f.act(&o, a, i, j)
			}
			i = j
			continue
		}
		n, a := f.z.Next(p[i:])
		j := i + n
		f.act(&o, a, i, j)
		i = j
	}
	if f.holding {
		f.move(&o, len(p))
	}
	f.buf = o.buf[:0]
	out := o.result(len(p))
	f.passed(out)
	return out
}

// passed follows where the output the filter passes, p, leaves the
// terminal's UTF-8 decoding: in the middle of a character, or not (see
// Boundary). Only the last four bytes matter, unless p is shorter.
func (f *OutputFilter) passed(p []byte) {
	if f.EightBit || len(p) == 0 {
		return
	}
	f.need = utf8Need(f.need, p)
}

// utf8Need returns how many more bytes a UTF-8 character under way needs
// after p, when need were needed before it: the last byte of p that does
// not continue a character (0x80 to 0xBF) starts one of some length, or
// ends any (ASCII, a control, a byte no character starts with).
func utf8Need(need int, p []byte) int {
	for i := len(p) - 1; i >= max(0, len(p)-4); i-- {
		c := p[i]
		if c&0xc0 == 0x80 {
			continue
		}
		var size int
		switch {
		case c >= 0xc2 && c <= 0xdf:
			size = 2
		case c >= 0xe0 && c <= 0xef:
			size = 3
		case c >= 0xf0 && c <= 0xf4:
			size = 4
		default:
			return 0
		}
		return max(0, size-(len(p)-i))
	}
	if len(p) < 4 && len(p) < need {
		return need - len(p) // Continuation bytes only, of a character begun before.
	}
	return 0
}

// Boundary reports whether bytes written to the terminal now, before what
// the filter passes next, are read by the terminal as text and sequences
// of their own: the output passed so far stands in no control string
// passed in part (kitty reads one on until ST or BEL, whatever comes, and
// would take them for the string's contents), and not in the middle of a
// UTF-8 character (libvterm takes the ESC after a character cut short for
// part of it). A sequence the filter holds back has not reached the
// terminal: it is no obstacle.
func (f *OutputFilter) Boundary() bool { return !f.passingString() && f.need == 0 }

// passingString reports whether the output stands in a control string
// that has passed in part.
func (f *OutputFilter) passingString() bool {
	return f.z.InString() && f.str == strPass && !f.holding
}

// AppendBoundary appends to dst what brings the terminal to a boundary
// (see Boundary) now, ending what the child left unfinished: ST for a
// control string, whose rest is then dropped as it comes (every terminal
// ends a string at ST), or NUL after a character cut short (which every
// terminal ignores, and which ends the character in libvterm). At a
// boundary it appends nothing.
func (f *OutputFilter) AppendBoundary(dst []byte) []byte {
	switch {
	case f.passingString():
		dst = f.endString(dst)
	case f.need > 0:
		dst = append(dst, 0)
	}
	f.need = 0
	return dst
}

// Idle reports whether the filter is between sequences with nothing held:
// then a chunk of plain text (no ESC, no shift control, no byte from 0x80
// to 0x9F, and not ending in C2) passes as is. The filter must still be
// given it, to follow the characters it ends in.
func (f *OutputFilter) Idle() bool { return f.z.Ground() && !f.holding && !f.pendEsc && !f.lead }

// Pending reports whether bytes are held.
func (f *OutputFilter) Pending() bool { return f.holding || f.pendEsc || f.lead }

// Enabled reports whether the child has mode 2004 on: it set it last, and
// neither reset it nor reset the terminal since. Safe for concurrent use.
func (f *OutputFilter) Enabled() bool { return f.enabled.Load() }

// Dropped reports how many clipboard requests have been dropped.
func (f *OutputFilter) Dropped() int { return f.dropped }

// Close ends the output and returns what the terminal needs to read what
// follows as it should: a control string still open is ended (ST); an
// unfinished sequence is dropped. The result is valid until the next call.
func (f *OutputFilter) Close() []byte {
	var out []byte
	if f.lead {
		f.lead = false
		out = append(out, f.write(lone[:], true)...)
	}
	if f.holding && f.str == strHeader && f.clip.kind() != clipNone && !f.AllowClipboardRead {
		f.dropped++ // A clipboard request cut short.
	}
	out = f.endString(out)
	f.holding, f.held, f.pendEsc, f.over = false, f.held[:0], false, false
	f.z = Tokenizer{EightBit: f.EightBit}
	f.str = strPass
	return out
}

// AppendReset appends to dst what undoes, at the terminal, the modes the
// child has on, and nothing for a child that left them as they were:
// first what brings the terminal to a boundary (AppendBoundary: the ST
// that ends a control string the child left open, whose rest is dropped
// as it comes, or a NUL after a character it cut short), then the kitty keyboard stack of the screen
// shown emptied, the alternate screen left, the main screen's stack
// emptied and, if the alternate screen's stack was left with entries, that
// screen entered and left to empty it; then the other modes back to their
// defaults; last a synchronized update is ended, so that the terminal shows
// the result at once. Bracketed paste is not among them: it is pbwrap's.
func (f *OutputFilter) AppendReset(dst []byte) []byte {
	dst = f.AppendBoundary(dst)
	return f.modes.appendReset(dst, byte(f.blink.Load()))
}

// SetCursorBlink records what the terminal answered, before the child
// ran, for mode 12, a blinking cursor (Replies.Blink): the reset puts it
// back when the child changed the cursor. Safe for concurrent use.
func (f *OutputFilter) SetCursorBlink(answer byte) { f.blink.Store(int32(answer)) }

// AppendRestore appends to dst the sequences that set the modes the child
// has on again, after AppendReset's were written (on fg): the kitty stack
// of the main screen, the alternate screen and its stack, then the other
// modes. A synchronized update is not begun again: it is a moment of the
// child's drawing, not a mode, and the child redraws anyway; nor are the
// margins, attributes and character sets, which it sets as it draws.
func (f *OutputFilter) AppendRestore(dst []byte) []byte { return f.modes.appendRestore(dst) }

// endString appends the ST that ends a control string passed in part, and
// drops the rest of it.
func (f *OutputFilter) endString(dst []byte) []byte {
	if f.z.InString() && f.str == strPass && !f.holding {
		dst = append(dst, stringTerminator...)
		f.str = strDrop
	}
	return dst
}

// act handles the action a of the tokenizer over p[i:j].
func (f *OutputFilter) act(o *output, a Action, i, j int) {
	switch a {
	case ActText:
		if f.z.Shift != 0 {
			f.modes.shift(f.z.Shift)
			f.z.Shift = 0
		}
	case ActHold:
		f.hold(i)
	case ActExec:
		f.modes.shift(o.src[i])
		f.move(o, i)
		f.from = j // The control stays in the output, before the sequence.
	case ActIgnore:
		f.move(o, i)
		o.replace(i, j, nil)
		f.from = j
	case ActDispatch:
		f.hold(i)
		f.dispatch(o, j)
	case ActCancel:
		if f.holding {
			o.replace(f.from, j, nil)
			f.release()
		}
	case ActStringStart:
		f.hold(i)
		f.stringStart(o, j)
	case ActStringData:
		f.stringData(o, i, j)
	case ActStringEsc:
		if f.holding {
			f.move(o, i)
			f.from = j
		}
		o.replace(i, j, nil)
		f.pendEsc = true
	case ActStringEnd:
		f.stringEnd(o, i, j)
	case ActC1:
		f.c1(o, i, j)
	}
}

// hold starts holding a sequence at i, unless one is held already.
func (f *OutputFilter) hold(i int) {
	if !f.holding {
		f.holding, f.from, f.held, f.over = true, i, f.held[:0], false
	}
}

// release ends holding.
func (f *OutputFilter) release() {
	f.holding, f.held, f.over = false, f.held[:0], false
}

// move takes the held sequence's bytes from f.from up to i out of the
// output, and keeps them (up to maxSeq bytes).
func (f *OutputFilter) move(o *output, i int) {
	if i <= f.from {
		return
	}
	if room := maxSeq - len(f.held); room < i-f.from {
		f.over = true
		f.held = append(f.held, o.src[f.from:f.from+max(room, 0)]...)
	} else {
		f.held = append(f.held, o.src[f.from:i]...)
	}
	o.replace(f.from, i, nil)
	f.from = i
}

// passHeld passes the held sequence (or string start), which ends at j, as
// it is, but for a C1 introducer (c1), written in its 7-bit form.
func (f *OutputFilter) passHeld(o *output, j int, c1 bool) {
	switch {
	case c1:
		// In its 7-bit form, which every terminal reads: most ignore C1
		// controls, and then read what follows as text, or as the string
		// they are in.
		f.held = append(f.held, o.src[f.from:j]...)
		f.held = append(f.held[:0], append([]byte{esc, f.held[0] - 0x40}, f.held[1:]...)...)
		o.replace(f.from, j, f.held)
	case len(f.held) > 0:
		f.held = append(f.held, o.src[f.from:j]...)
		o.replace(f.from, j, f.held)
	}
	f.release()
}

// seqLen is the length of the held sequence up to j.
func (f *OutputFilter) seqLen(j int) int { return len(f.held) + j - f.from }

// A verdict is what becomes of a sequence.
type verdict struct {
	drop bool // it reaches nothing
	// form is the only form in which it may pass, when it has one: its
	// bytes pass when they are that form, else form passes in their place.
	form  []byte
	after string // what is written after it
}

// The common verdicts: a sequence passes as it came; reaches nothing;
// reaches nothing, and bracketed paste is set again after it, since some
// terminal would have read it as a change of mode; or passes, and may have
// reset the terminal.
var (
	pass      = verdict{}
	drop      = verdict{drop: true}
	dropReset = verdict{drop: true, after: PasteOn}
	reset     = verdict{after: PasteOn}
)

// after is what is written after a sequence whose verdict says a: with
// bracketed paste set again, paste events too if pbwrap has them on.
func (f *OutputFilter) after(a string) []byte {
	if a == PasteOn && f.ClipMode != nil && f.ClipMode() {
		return []byte(PasteOn + enableClip)
	}
	return []byte(a)
}

// enableClip is what turns kitty's paste events on at the terminal.
const enableClip = "\x1b[?5522h"

// dispatch acts on the sequence the tokenizer has just ended at j, held
// from f.from (and f.held).
func (f *OutputFilter) dispatch(o *output, j int) {
	if f.over || f.seqLen(j) > maxSeq {
		o.replace(f.from, j, nil)
		f.release()
		o.replace(j, j, []byte(PasteOn))
		return
	}
	v := f.decide(&f.z.Seq)
	switch {
	case v.drop:
		o.replace(f.from, j, nil)
		f.release()
	case v.form != nil:
		f.held = append(f.held, o.src[f.from:j]...)
		if !bytes.Equal(f.held, v.form) {
			o.replace(f.from, j, v.form)
		} else if len(f.held) > j-f.from {
			o.replace(f.from, j, f.held)
		}
		f.release()
	default:
		f.passHeld(o, j, f.z.Seq.C1)
	}
	if v.after != "" {
		o.replace(j, j, f.after(v.after))
	}
}

// dispatchWhole acts on a sequence the tokenizer read whole at p[i:j],
// with nothing held: most of them.
func (f *OutputFilter) dispatchWhole(o *output, i, j int) {
	v := f.decide(&f.z.Seq)
	switch {
	case v.drop:
		o.replace(i, j, nil)
	case v.form != nil && !bytes.Equal(o.src[i:j], v.form):
		o.replace(i, j, v.form)
	}
	if v.after != "" {
		o.replace(j, j, f.after(v.after))
	}
}

// decide acts on the sequence s, and says what becomes of it.
func (f *OutputFilter) decide(s *Seq) verdict {
	switch s.Kind {
	case SeqESC:
		return f.escape(s)
	case SeqCSI:
		v := f.control(s)
		if !v.drop && v.form == nil && s.ParamLen > maxParamBytes {
			return dropReset // tmux drops it; others act on it.
		}
		return v
	}
	return pass
}

// maxParamBytes is the most parameter bytes a control sequence has that
// the filter passes: tmux discards one with more (its buffer is 64 bytes),
// where other terminals act on it.
const maxParamBytes = 62

// maxModeParams is the most parameters a mode sequence the filter writes
// has: DEC's terminals read 16, and libvterm keeps 16 (its vterm-dump
// crashes on more).
const maxModeParams = 16

// escape acts on an ESC sequence.
func (f *OutputFilter) escape(s *Seq) verdict {
	m := &f.modes
	switch s.NInter {
	case 0:
		switch s.Final {
		case 'c': // RIS
			m.ris()
			f.enabled.Store(false)
			return reset
		case '=':
			m.keypad = true
		case '>':
			m.keypad = false
		case 'n': // LS2
			m.gl = 2
		case 'o': // LS3
			m.gl = 3
		}
		return pass
	}
	if strings.IndexByte("[]PX^_", s.Final) >= 0 {
		// Not a sequence, but libvterm reads ESC SP [ as a control sequence
		// introducer with an intermediate byte: its "!p" could be DECSTR.
		return drop
	}
	switch c := s.Inter[0]; {
	case s.NInter == 1 && c == ' ' && strings.IndexByte("GLMN", s.Final) >= 0:
		return drop // S8C1T, ANSI conformance levels.
	case s.NInter == 1 && c == '%' && s.Final == '@':
		return drop // Leave UTF-8.
	case c >= '(' && c <= '/' && c != ',':
		m.designate(c, s.Final, s.NInter > 1)
	}
	return pass
}

// control acts on a control sequence.
func (f *OutputFilter) control(s *Seq) verdict {
	m := &f.modes
	if s.Final == 'm' && s.Marker == 0 && s.NInter == 0 {
		m.sgr = sgrSet(s) // The most common: read from its bytes.
		return pass
	}
	s.Parse()
	inter := s.Intermediate()
	switch {
	case s.Final == 'p' && inter == '!':
		// DECSTR, with any marker in kitty, resets some modes, 2004 among
		// them, in kitty, VTE and xterm.js, others in xterm, and nothing in
		// tmux and alacritty, which ignore it: the modes stay followed as
		// they were.
		return reset
	case s.Final == 'p' && inter == '"':
		return dropReset // DECSCL: a soft reset, and it may select 8-bit controls.
	case s.Final == modeSet || s.Final == modeReset || s.Marker == '?' && (s.Final == 's' || s.Final == 'r'):
		switch {
		case s.NInter > 0 || s.Marker != 0 && s.Marker != '?' || s.NParams > MaxParams:
			// kitty reads an intermediate byte past, and takes any other
			// marker for none, whose mode 64128 is its DEC mode 2004.
			return dropReset
		case s.Marker == '?':
			return f.decModes(s)
		}
		return f.ansiModes(s)
	}
	if s.NParams > MaxParams {
		return pass // Nothing the filter follows.
	}
	switch {
	case s.Marker == 0 && s.NInter == 0 && s.Final == 'r':
		v := f.canonical(s, 2)
		if !v.drop {
			m.setMargins(s.NParams > 0 && (s.Param(0, 1) > 1 || s.NParams > 1))
		}
		return v
	case s.Marker == 0 && inter == ' ' && s.Final == 'q':
		v := f.canonical(s, 1)
		if !v.drop {
			m.cursorStyle = s.Param(0, 1) // Left out: 1, a blinking block (xterm, xterm.js).
		}
		return v
	case s.NInter > 0 || s.Marker == 0 || s.Marker == '?':
		return pass
	}
	// Marker < = >: kitty's keyboard protocol, xterm's key modifiers. kitty
	// ignores one with more parameters than it takes, and reads 16 digits
	// of a number at most: such a form reaches no terminal, so that what
	// the filter follows is what they do.
	k := &m.kitty[m.screen()]
	switch {
	case s.Marker == '>' && s.Final == 'u':
		v := f.canonical(s, 1)
		if !v.drop {
			k.push(s.Param(0, 0))
		}
		return v
	case s.Marker == '<' && s.Final == 'u':
		v := f.canonical(s, 1)
		if !v.drop {
			k.pop(s.Param(0, 1))
		}
		return v
	case s.Marker == '=' && s.Final == 'u':
		v := f.canonical(s, 2)
		if !v.drop {
			k.set(s.Param(0, 0), s.Param(1, 1))
		}
		return v
	case s.Marker == '>' && s.Final == 'm':
		v := f.canonical(s, 2)
		if !v.drop {
			m.modifyOtherKeys(s)
		}
		return v
	case s.Marker == '>' && s.Final == 'n':
		v := f.canonical(s, 1)
		if !v.drop && (s.NParams == 0 || s.Param(0, -1) == 4) {
			m.otherKeys = 0
		}
		return v
	}
	return pass
}

// canonical is the verdict on a sequence the filter follows, which takes
// at most n parameters: it passes only in its plain form (numbers without
// leading zeros, nothing left out that was not), and not at all with more
// parameters, sub-parameters or a number no terminal reads alike.
func (f *OutputFilter) canonical(s *Seq, n int) verdict {
	if s.NParams > n || s.Sub {
		return drop
	}
	b := append(f.scratch[:0], esc, '[')
	if s.Marker != 0 {
		b = append(b, s.Marker)
	}
	for i := range s.NParams {
		if i > 0 {
			b = append(b, ';')
		}
		switch v := s.Params[i]; {
		case v > maxModeNumber:
			return drop
		case v >= 0:
			b = strconv.AppendInt(b, int64(v), 10)
		}
	}
	b = append(b, s.Inter[:min(s.NInter, maxInter)]...)
	f.scratch = append(b, s.Final)
	return verdict{form: f.scratch}
}

// sgrSet reports whether the SGR s leaves character attributes set: its
// last parameter is not 0 (a 0, or one left out, resets everything before
// it), or it has sub-parameters (colours), or more parameters than some
// terminals read (xterm merges the rest into its thirtieth).
func sgrSet(s *Seq) bool {
	raw := s.raw
	if raw == nil { // Read byte by byte, or with no parameters.
		return s.NParams > 0 && (s.Params[min(s.NParams, MaxParams)-1] > 0 || s.Sub || s.NParams > 30)
	}
	set, fields := false, 1
	for _, c := range raw {
		switch {
		case c == ';':
			set = false
			fields++
		case c == ':':
			return true
		case c != '0':
			set = true
		}
	}
	return set || fields > 30
}

// decModes acts on a DEC private mode set, reset, save or restore: the
// modes pbwrap keeps are taken out, and it passes in its plain form.
func (f *OutputFilter) decModes(s *Seq) verdict {
	final := s.Final
	if s.NParams == 0 && (final == 's' || final == 'r') {
		return dropReset // Which modes it saves or restores differs.
	}
	kept := keptDEC
	for _, n := range s.Params[:s.NParams] {
		if !kept(n, final) {
			if n == 2004 {
				f.paste(final)
			}
			continue
		}
		m := &f.modes
		switch final {
		case modeSet, modeReset:
			m.setDEC(n, final == modeSet)
		case 's':
			m.save(n)
		case 'r':
			m.restore(n)
		}
	}
	v := verdict{form: f.rewrite("\x1b[?", s, kept)}
	if final == 'r' {
		v.after = PasteOn
	}
	if len(v.form) == 0 {
		v.drop = true
	}
	return v
}

// keptDEC reports whether the DEC mode n stays in a sequence ended by
// final: not bracketed paste nor kitty's clipboard paste events (5522),
// which are pbwrap's, nor the modes that change what a paste delivers
// (xterm's 2005 and 2006), nor VT52 mode, nor a number no mode has. With
// paste events on, the terminal sends a paste event in place of every
// paste, and only pbwrap answers them (the child's reads are dropped):
// a child that turned them on would lose every paste, and see the
// events' one-time passwords.
func keptDEC(n int, final byte) bool {
	switch {
	case n < 0 || n > maxModeNumber, n == 2004, n == clipMode:
		return false
	case n == 2 && final == modeReset:
		return false
	case (n == 2005 || n == 2006) && final != modeReset:
		return false
	}
	return true
}

// clipMode is kitty's DEC private mode for clipboard paste events.
const clipMode = 5522

// keptANSI reports whether the ANSI mode n stays in a sequence: kitty
// keeps its DEC modes as their number times 32, which an ANSI mode of 32
// or more can name (64128 is 2004), and no ANSI mode is that large.
func keptANSI(n int, _ byte) bool { return n >= 0 && n < 32 }

// paste records the child's bracketed paste mode changed by a sequence
// ended by final.
func (f *OutputFilter) paste(final byte) {
	switch final {
	case modeSet, modeReset:
		f.enabled.Store(final == modeSet)
	case 's':
		f.saved = f.enabled.Load()
	case 'r':
		f.enabled.Store(f.saved)
	}
}

// ansiModes acts on an ANSI mode set or reset.
func (f *OutputFilter) ansiModes(s *Seq) verdict {
	for _, n := range s.Params[:s.NParams] {
		if keptANSI(n, s.Final) {
			f.modes.setANSI(n, s.Final == modeSet)
		}
	}
	if s.NParams == 0 {
		return pass
	}
	form := f.rewrite("\x1b[", s, keptANSI)
	if len(form) == 0 {
		return verdict{drop: true}
	}
	return verdict{form: form}
}

// rewrite writes the mode sequence s in its plain form, introduced by
// intro, with the modes kept tells, starting a new sequence before one
// would have over maxParamBytes parameter bytes. It returns nothing when
// no mode is kept.
func (f *OutputFilter) rewrite(intro string, s *Seq, kept func(int, byte) bool) []byte {
	out := f.scratch[:0]
	width, count := 0, 0 // parameter bytes and parameters of the sequence being written
	for _, n := range s.Params[:s.NParams] {
		if !kept(n, s.Final) {
			continue
		}
		digits := decimalDigits(n)
		switch {
		case width == 0:
			out = append(out, intro...)
		case width+1+digits > maxParamBytes || count == maxModeParams:
			out = append(append(out, s.Final), intro...)
			width, count = 0, 0
		default:
			out = append(out, ';')
			width++
		}
		out = strconv.AppendInt(out, int64(n), 10)
		width += digits
		count++
	}
	if width > 0 {
		out = append(out, s.Final)
	}
	f.scratch = out
	return out
}

// decimalDigits is the number of decimal digits of n, which is not
// negative.
func decimalDigits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// stringStart acts on the start of a control string, whose introducer
// ends at j.
func (f *OutputFilter) stringStart(o *output, j int) {
	s := &f.z.Seq
	f.strC1, f.str52 = s.C1, false
	switch {
	case s.Kind == SeqDCS && (s.Ignored || f.over || f.seqLen(j) > maxSeq):
		// A malformed header, or one too long to hold: the terminal reads
		// nothing of it, or reads it otherwise.
		o.replace(f.from, j, nil)
		f.release()
		f.str = strDrop
	case s.Kind == SeqOSC:
		f.str, f.clip = strHeader, clipHeader{}
	default:
		f.str = strPass
		f.passHeld(o, j, f.strC1)
	}
}

// stringData acts on the contents p[i:j] of a control string.
func (f *OutputFilter) stringData(o *output, i, j int) {
	switch f.str {
	case strDrop:
		o.replace(i, j, nil)
	case strHeader:
		for k := i; k < j; k++ {
			v := f.clip.feed(o.src[k])
			if v == clipUndecided && f.seqLen(k+1) > maxClipHeader {
				v = clipRead
			}
			if v != clipUndecided {
				f.decideClip(o, k+1, v)
				f.stringData(o, k+1, j)
				return
			}
		}
	case strPass:
		if f.str52 {
			// A "?" is no base64: kitty, which cuts a long OSC 52 in parts,
			// could take one at the start of a part for a read.
			for k := i; k < j; k++ {
				if o.src[k] == '?' {
					o.replace(k, k+1, nil)
				}
			}
		}
	}
}

// decideClip passes or drops the start of an OSC held up to j.
func (f *OutputFilter) decideClip(o *output, j int, v clipVerdict) {
	if v == clipPass || f.AllowClipboardRead {
		f.str = strPass
		f.str52 = f.clip.kind() == clip52
		f.modes.osc(f.clip.num)
		f.passHeld(o, j, f.strC1)
		return
	}
	f.str = strDrop
	f.dropped++
	o.replace(f.from, j, nil)
	f.release()
}

// c1 makes harmless a C1 control p[i:j] in UTF-8 output, in text or in a
// string's contents: it becomes U+FFFD, which every terminal shows.
func (f *OutputFilter) c1(o *output, i, j int) {
	switch {
	case f.z.InString() && f.str == strDrop:
		o.replace(i, j, nil)
	case f.holding: // The start of an OSC.
		f.move(o, i)
		o.replace(i, j, nil)
		f.held = append(f.held, replacement...)
		f.from = j
	default:
		o.replace(i, j, []byte(replacement))
	}
}

// replacement is U+FFFD, in UTF-8.
const replacement = "\uFFFD"

// stringEnd acts on the end of a control string, with its terminator
// p[i:j] (and the ESC held before it, if any). A string that passes and is
// cut (CAN, SUB, ESC and not ST, a C1 control) is ended with ST there:
// kitty reads a string on through all of them, and would take pbwrap's
// resets, and what follows, for its contents.
func (f *OutputFilter) stringEnd(o *output, i, j int) {
	term := f.z.Term
	pend := f.pendEsc
	f.pendEsc = false
	// A C1 ST ends the string in its 7-bit form, which every terminal reads.
	c1 := term == TermST && !pend && o.src[i] != esc
	if f.str == strHeader {
		v := f.clip.end(term)
		end := j
		switch {
		case v == clipPass && pend && term == TermST:
			f.move(o, i)
			f.held = append(f.held, esc)
		case c1:
			end = i
		}
		f.decideClip(o, end, v)
		switch {
		case c1 && f.str == strDrop:
			o.replace(i, j, nil)
		case c1:
			o.replace(i, j, []byte(stringTerminator))
		case term == TermCut && f.str == strPass:
			o.replace(j, j, []byte(stringTerminator))
		}
	} else {
		switch {
		case f.str == strDrop:
			o.replace(i, j, nil)
		case pend && term == TermST:
			o.replace(i, i, []byte{esc})
		case c1:
			o.replace(i, j, []byte(stringTerminator))
		case term == TermCut:
			o.replace(i, i, []byte(stringTerminator))
		}
	}
	f.str = strPass
	if pend && term == TermCut { // The ESC starts the sequence the tokenizer is in.
		f.hold(i)
		f.held = append(f.held, esc)
	}
}

// plainText reports whether p is text that changes nothing the filter
// follows: no ESC, no shift (SO, SI), no byte from 0x80 to 0x9F (which is,
// or continues, a C1 control), and not ending in C2 (which may start one).
// It looks at eight bytes at a time.
func plainText(p []byte) bool {
	if len(p) < 16 { // A keystroke's echo.
		for _, b := range p {
			if b == esc || b == so || b == si || b >= 0x80 && b <= 0x9f {
				return false
			}
		}
		return len(p) == 0 || p[len(p)-1] != 0xc2
	}
	if bytes.IndexByte(p, esc) >= 0 || bytes.IndexByte(p, so) >= 0 || bytes.IndexByte(p, si) >= 0 {
		return false
	}
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		if x&highs == 0 {
			continue // ASCII.
		}
		if v := x&(0xe0*ones) ^ highs; (v-ones)&^v&highs != 0 {
			return false // A byte from 0x80 to 0x9F.
		}
	}
	for _, b := range p[i:] {
		if b >= 0x80 && b <= 0x9f {
			return false
		}
	}
	return len(p) == 0 || p[len(p)-1] != 0xc2
}

// output assembles a Write's result, aliasing the input as long as it can:
// while nothing but a prefix of src is dropped.
type output struct {
	src    []byte
	buf    []byte // the result so far, once copied is set
	copied bool
	start  int // src[start:] is not yet in the result nor dropped
}

// replace puts rep in place of src[from:to].
func (o *output) replace(from, to int, rep []byte) {
	if !o.copied && o.start == from && len(rep) == 0 {
		o.start = to
		return
	}
	o.buf = append(o.buf, o.src[o.start:from]...)
	o.buf = append(o.buf, rep...)
	o.copied = true
	o.start = to
}

// result returns the result: everything decided so far and src[start:end].
func (o *output) result(end int) []byte {
	if !o.copied {
		return o.src[o.start:end]
	}
	o.buf = append(o.buf, o.src[o.start:end]...)
	return o.buf
}
