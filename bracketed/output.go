package bracketed

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
//     DEC private mode set, reset or restore (XTRESTORE) loses its 2004
//     parameter, and after anything that resets the terminal (RIS, DECSTR)
//     or that it drops, the mode is set again at once;
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
// (DECSCUSR); scroll margins (DECSTBM); character attributes (SGR);
// character sets (designations and shifts). XTSAVE and XTRESTORE are
// followed for the DEC modes.
//
// What every terminal reads the same way passes byte for byte. The
// Tokenizer takes, where terminals disagree, the reading that finds the
// most; what the filter then passes is read alike by all of them:
//
//   - a sequence the tokenizer reads as cancelled or malformed is dropped,
//     so that no terminal can read it otherwise (xterm.js, for one, takes
//     "ESC [ ? 20 0x80 04 l" for a reset of 2004, where the byte is
//     invalid UTF-8 and dropped);
//   - a sequence with bytes inside that terminals read differently
//     (non-ASCII, DEL) passes without them; a C0 control inside one passes
//     before it, which is where terminals execute it anyway;
//   - a DEC private mode or ANSI mode sequence that the filter changes, or
//     that has sub-parameters, values no mode has or more than 16
//     parameters, is written anew in its plain form, 16 parameters at most
//     each (terminals drop a sequence of over 24 or 32, or merge the rest);
//   - a sequence of over maxSeq bytes, or of over MaxParams parameters, is
//     dropped whole;
//   - sequences that change how the terminal reads or answers are dropped:
//     S8C1T (ESC SP G), which makes it send paste markers as 8-bit C1
//     controls; the ANSI conformance levels (ESC SP L, M, N) and DECSCL;
//     ESC % @, which leaves UTF-8; and DECANM reset (CSI ? 2 l), VT52 mode.
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
// Enabled may be called from any goroutine. An OutputFilter must not be
// copied after first use.
type OutputFilter struct {
	// AllowClipboardRead lets clipboard reads through. EightBit reads the
	// output as a terminal in an 8-bit locale does (see Tokenizer). Neither
	// may change after the first Write.
	AllowClipboardRead bool
	EightBit           bool

	z       Tokenizer
	started bool
	modes   termModes
	enabled atomic.Bool  // the child's mode 2004
	blink   atomic.Int32 // the terminal's answer for mode 12 (see SetCursorBlink)
	saved   bool         // ... as saved with XTSAVE
	dropped int

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
	str     strMode
	clip    clipHeader

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

// maxModeParams is how many parameters a mode sequence the filter writes
// has at most: tmux drops one of 24, VTE and alacritty of over 32.
const maxModeParams = 16

// maxModeNumber is above every mode number: a parameter above it names no
// mode, and a terminal that wraps large values round could read it as one.
const maxModeNumber = 65535

// lone is a C2 alone, as Close reads one kept from the last Write.
var lone = [1]byte{0xc2}

// enablePaste is what turns bracketed paste on at the terminal.
const enablePaste = "\x1b[?2004h"

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
				if keep, rep, after := f.decide(&f.z.Seq); !keep || after != "" {
					if !keep {
						o.replace(i, j, rep)
					}
					if after != "" {
						o.replace(j, j, []byte(after))
					}
				}
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
	return o.result(len(p))
}

// Idle reports whether the filter is between sequences with nothing held:
// then a chunk of text with no ESC and no byte from 0x80 up passes as is
// and changes nothing, and a caller that has looked for those itself need
// not call Write.
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
// first the ST that ends a control string the child left open (the rest of
// it is dropped as it comes), then the kitty keyboard stack of the screen
// shown emptied, the alternate screen left, the main screen's stack
// emptied and, if the alternate screen's stack was left with entries, that
// screen entered and left to empty it; then the other modes back to their
// defaults; last a synchronized update is ended, so that the terminal shows
// the result at once. Bracketed paste is not among them: it is pbwrap's.
func (f *OutputFilter) AppendReset(dst []byte) []byte {
	dst = f.endString(dst)
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

// passHeld passes the held sequence, which ends at j, as it is.
func (f *OutputFilter) passHeld(o *output, j int) {
	switch {
	case f.z.Seq.C1:
		// In its 7-bit form, which every terminal reads: most ignore C1
		// controls in UTF-8, and then read what follows as text, or as the
		// string they are in.
		f.held = append(f.held, o.src[f.from:j]...)
		n := 1
		if f.held[0] == 0xc2 && !f.EightBit {
			n = 2
		}
		c := f.held[n-1] - 0x40
		f.held = append(f.held[:0], append([]byte{esc, c}, f.held[n:]...)...)
		o.replace(f.from, j, f.held)
	case len(f.held) > 0:
		f.held = append(f.held, o.src[f.from:j]...)
		o.replace(f.from, j, f.held)
	}
	f.release()
}

// seqLen is the length of the held sequence up to j.
func (f *OutputFilter) seqLen(j int) int { return len(f.held) + j - f.from }

// dispatch acts on the sequence the tokenizer has just ended at j.
func (f *OutputFilter) dispatch(o *output, j int) {
	if f.over || f.seqLen(j) > maxSeq {
		o.replace(f.from, j, nil)
		f.release()
		o.replace(j, j, []byte(enablePaste))
		return
	}
	keep, rep, after := f.decide(&f.z.Seq)
	if keep {
		f.passHeld(o, j)
	} else {
		o.replace(f.from, j, rep)
		f.release()
	}
	if after != "" {
		o.replace(j, j, []byte(after))
	}
}

// decide acts on the sequence s: it reports whether it passes, what
// replaces it if not, and what to write after it.
func (f *OutputFilter) decide(s *Seq) (keep bool, rep []byte, after string) {
	switch s.Kind {
	case SeqESC:
		keep, after = f.escape(s)
		return keep, nil, after
	case SeqCSI:
		return f.control(s)
	}
	return true, nil, ""
}

// escape acts on an ESC sequence: it reports whether it passes, and what
// to write after it.
func (f *OutputFilter) escape(s *Seq) (keep bool, after string) {
	m := &f.modes
	switch s.NInter {
	case 0:
		switch s.Final {
		case 'c': // RIS
			m.ris()
			f.enabled.Store(false)
			return true, enablePaste
		case '=':
			m.keypad = true
		case '>':
			m.keypad = false
		case 'n': // LS2
			m.gl = 2
		case 'o': // LS3
			m.gl = 3
		}
	}
	if s.NInter > 0 && strings.IndexByte("[]PX^_", s.Final) >= 0 {
		// Not a sequence, but libvterm reads ESC SP [ as a control sequence
		// introducer with an intermediate byte: its "!p" could be DECSTR.
		return false, ""
	}
	switch s.NInter {
	case 1:
		switch c := s.Inter[0]; {
		case c == ' ' && (s.Final == 'G' || s.Final == 'L' || s.Final == 'M' || s.Final == 'N'):
			return false, "" // S8C1T, ANSI conformance levels.
		case c == '%' && s.Final == '@':
			return false, "" // Leave UTF-8.
		case c >= '(' && c <= '/' && c != ',':
			m.designate(c, s.Final, false)
		}
	default:
		if c := s.Inter[0]; c >= '(' && c <= '/' && c != ',' {
			m.designate(c, s.Final, true)
		}
	}
	return true, ""
}

// control acts on a control sequence: it reports whether it passes, what
// replaces it if not, and what to write after it.
func (f *OutputFilter) control(s *Seq) (keep bool, rep []byte, after string) {
	m := &f.modes
	inter := s.Intermediate()
	if s.Final == 'm' && s.Marker == 0 && s.NInter == 0 {
		m.sgr = sgrSet(s) // The most common: read from its bytes.
		return true, nil, ""
	}
	s.Parse()
	if s.NParams > MaxParams && (s.Marker != 0 || s.NInter > 0 || strings.IndexByte("hlrq", s.Final) >= 0) {
		return false, nil, enablePaste // Terminals act on some of it, or none.
	}
	switch {
	case s.Marker == '?' && s.NInter == 0:
		switch s.Final {
		case modeSet, modeReset, 's', 'r':
			return f.decModes(s)
		}
	case s.Marker == 0 && s.NInter == 0:
		switch s.Final {
		case modeSet, modeReset:
			return f.ansiModes(s)
		case 'r':
			m.setMargins(s.NParams > 0 && (s.Param(0, 1) > 1 || s.NParams > 1))
		}
	case s.Marker == 0 && inter == ' ' && s.Final == 'q':
		m.cursorStyle = s.Param(0, 1) // Left out: 1, a blinking block (xterm, xterm.js).
	case s.Marker == 0 && inter == '!' && s.Final == 'p':
		// DECSTR resets some modes, 2004 among them, in kitty, VTE and
		// xterm.js, others in xterm, and nothing in tmux and alacritty,
		// which ignore it: the modes stay followed as they were.
		return true, nil, enablePaste
	case s.Marker == 0 && inter == '"' && s.Final == 'p': // DECSCL
		return false, nil, enablePaste
	case s.Marker == '>' && s.NInter == 0 && s.Final == 'u':
		m.kitty[m.screen()].push(s.Param(0, 0))
	case s.Marker == '<' && s.NInter == 0 && s.Final == 'u':
		m.kitty[m.screen()].pop(s.Param(0, 1))
	case s.Marker == '=' && s.NInter == 0 && s.Final == 'u':
		m.kitty[m.screen()].set(s.Param(0, 0), s.Param(1, 1))
	case s.Marker == '>' && s.NInter == 0 && s.Final == 'm':
		m.modifyOtherKeys(s)
	case s.Marker == '>' && s.NInter == 0 && s.Final == 'n':
		if s.NParams == 0 || s.Param(0, -1) == 4 {
			m.otherKeys = 0
		}
	}
	return true, nil, ""
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

// decModes acts on a DEC private mode set, reset, save or restore.
func (f *OutputFilter) decModes(s *Seq) (keep bool, rep []byte, after string) {
	final := s.Final
	if s.NParams == 0 && (final == 's' || final == 'r') {
		return false, nil, enablePaste // Which modes it saves or restores differs.
	}
	if final == 'r' {
		after = enablePaste
	}
	changed := s.Sub || s.NParams > maxModeParams
	for _, n := range s.Params[:s.NParams] {
		if !keptDEC(n, final) {
			changed = true
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
	if !changed {
		return true, nil, after
	}
	return false, f.rewrite("\x1b[?", s, keptDEC), after
}

// keptDEC reports whether the DEC mode n stays in a sequence ended by
// final: not bracketed paste, which is pbwrap's, nor VT52 mode, nor a
// number no mode has.
func keptDEC(n int, final byte) bool {
	return keptANSI(n, final) && n != 2004 && !(n == 2 && final == modeReset)
}

// keptANSI reports whether the ANSI mode n stays in a sequence: one no mode
// has does not.
func keptANSI(n int, _ byte) bool { return n >= 0 && n <= maxModeNumber }

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
func (f *OutputFilter) ansiModes(s *Seq) (keep bool, rep []byte, after string) {
	changed := s.Sub || s.NParams > maxModeParams
	for _, n := range s.Params[:s.NParams] {
		if !keptANSI(n, s.Final) {
			changed = true
			continue
		}
		f.modes.setANSI(n, s.Final == modeSet)
	}
	if !changed {
		return true, nil, ""
	}
	return false, f.rewrite("\x1b[", s, keptANSI), ""
}

// rewrite writes the mode sequence s anew, introduced by intro, with the
// modes kept tells, maxModeParams at most in each sequence.
func (f *OutputFilter) rewrite(intro string, s *Seq, kept func(int, byte) bool) []byte {
	out := f.scratch[:0]
	k := 0
	for _, n := range s.Params[:s.NParams] {
		if kept(n, s.Final) {
			out = appendModeParam(out, intro, n, k, s.Final)
			k++
		}
	}
	if k > 0 {
		out = append(out, s.Final)
	}
	f.scratch = out
	return out
}

// appendModeParam appends the mode n, the kept-th of a mode sequence
// introduced by intro and ended by final, starting a new sequence every
// maxModeParams modes.
func appendModeParam(dst []byte, intro string, n, kept int, final byte) []byte {
	switch {
	case kept == 0:
		dst = append(dst, intro...)
	case kept%maxModeParams == 0:
		dst = append(append(dst, final), intro...)
	default:
		dst = append(dst, ';')
	}
	return strconv.AppendInt(dst, int64(n), 10)
}

// stringStart acts on the start of a control string, whose introducer
// ends at j.
func (f *OutputFilter) stringStart(o *output, j int) {
	s := &f.z.Seq
	switch {
	case s.Kind == SeqDCS && s.Ignored:
		o.replace(f.from, j, nil)
		f.release()
		f.str = strDrop
	case s.Kind == SeqOSC:
		f.str, f.clip = strHeader, clipHeader{}
	default:
		f.str = strPass
		f.passHeld(o, j)
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
				if f.str == strDrop {
					o.replace(k+1, j, nil)
				}
				return
			}
		}
	}
}

// decideClip passes or drops the start of an OSC held up to j.
func (f *OutputFilter) decideClip(o *output, j int, v clipVerdict) {
	if v == clipPass || f.AllowClipboardRead {
		f.str = strPass
		f.passHeld(o, j)
		return
	}
	f.str = strDrop
	f.dropped++
	o.replace(f.from, j, nil)
	f.release()
}

// stringEnd acts on the end of a control string, with its terminator
// p[i:j] (and the ESC held before it, if any). A string that passes and is
// cut by a sequence (ESC, or a C1 control) is ended with ST there: the
// sequence may not pass, and without it the terminal would read what
// follows into the string.
func (f *OutputFilter) stringEnd(o *output, i, j int) {
	term := f.z.Term
	pend := f.pendEsc
	f.pendEsc = false
	cutBySeq := term == TermCut && (pend || i < len(o.src) && (o.src[i] == esc || o.src[i] >= 0x80))
	// A C1 ST ends the string in its 7-bit form, which every terminal reads.
	c1 := term == TermST && !pend && o.src[i] != esc
	switch f.str {
	case strHeader:
		v := f.clip.end(term)
		if v == clipPass && pend && term == TermST {
			f.move(o, i)
			f.held = append(f.held, esc)
		}
		if c1 {
			f.decideClip(o, i, v)
			f.endC1(o, i, j)
		} else {
			f.decideClip(o, j, v)
		}
		if f.str == strPass && cutBySeq {
			o.replace(j, j, []byte(stringTerminator))
		}
	case strDrop:
		o.replace(i, j, nil)
	case strPass:
		switch {
		case pend && term == TermST:
			o.replace(i, i, []byte{esc})
		case c1:
			f.endC1(o, i, j)
		case cutBySeq:
			o.replace(i, i, []byte(stringTerminator))
		}
	}
	f.str = strPass
	if pend && term == TermCut { // The ESC starts the sequence the tokenizer is in.
		f.hold(i)
		f.held = append(f.held, esc)
	}
}

// endC1 writes the C1 ST p[i:j] of a string as ESC \, or drops it with
// the string.
func (f *OutputFilter) endC1(o *output, i, j int) {
	if f.str == strDrop {
		o.replace(i, j, nil)
		return
	}
	o.replace(i, j, []byte(stringTerminator))
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
