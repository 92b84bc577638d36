package bracketed

import "bytes"

// ModeTracker follows, in the child's output on its way to the terminal,
// the terminal modes the child sets, so that whoever owns the terminal can
// undo exactly those the child left on (AppendReset) and set them again
// (AppendRestore). It also drops the child's requests to read the
// terminal's clipboard, unless AllowClipboardRead is set; it changes
// nothing else.
//
// The modes it follows:
//
//   - DEC private modes, set with ESC [ ? Pm h and reset with ESC [ ? Pm l,
//     alone or combined (ESC [ ? 1049;1000;1006 h): the alternate screen
//     (47, 1047, 1049), mouse reporting (9, 1000-1003) and its encodings
//     (1005, 1006, 1015, 1016), focus events (1004), application cursor keys
//     (1) and keypad (66), autowrap (7, followed when turned off), cursor
//     visibility (25, followed when hidden) and synchronized output (2026);
//   - the keypad, ESC = and ESC >;
//   - the kitty keyboard protocol: ESC [ > flags u pushes, ESC [ < n u pops,
//     ESC [ = flags ; how u changes the flags in effect; one stack for the
//     main screen and one for the alternate screen, as the protocol has it,
//     each kept with its depth and the flags of its top entries;
//   - xterm's modifyOtherKeys, ESC [ > 4 ; n m (ESC [ > 4 m and
//     ESC [ > 4 n turn it off);
//   - the cursor style, ESC [ n SP q (0 is the terminal's default).
//
// RIS (ESC c) sets everything back to its default. Sequences are read as a
// terminal reads them (ECMA-48 and the DEC parser): C0 controls inside one
// are skipped, CAN and SUB cancel it, ESC starts a new one; a sequence with
// bytes out of place is ignored. Mode 2004 (bracketed paste) is not
// followed here: see ModeFilter.
//
// A clipboard read is an OSC 52 whose data starts with "?" (a "?" in its
// selection counts too, as in ESC ] 52 ; ?: no selection has one, and a
// terminal may take the rest for the data) or an OSC 5522 whose metadata
// has a field type=read. The OSC number is read with leading zeros and
// without the C0 controls and DEL that terminals skip, and also as kitty
// reads it, by its first five digits only. While the start of an OSC 52 or
// 5522 is not yet known to be a read or a write, it is held back (at most
// maxClipHeader bytes); so is the start of any other OSC until its number
// ends, and an ESC at the end of a Write until the next byte. A read is
// dropped up to its end (BEL, ST, CAN or SUB, or an ESC that starts
// another sequence); so is a request whose start is longer than
// maxClipHeader, ends with the output, or is cut by CAN, SUB or an ESC
// other than ST (terminals disagree on whether such a string goes on: kitty
// reads on, xterm and tmux stop, and dropping its start is safe for both).
// Everything else passes byte for byte, clipboard writes included.
//
// Any split of the output across Writes, followed by Flush, gives the same
// output and the same modes as one Write of the whole and Flush. The zero
// value is ready to use. A ModeTracker is not safe for concurrent use and
// must not be copied after first use.
type ModeTracker struct {
	// AllowClipboardRead lets clipboard reads through, and with them the
	// output byte for byte. It must not change after the first Write.
	AllowClipboardRead bool

	modes   termModes
	st      trackState
	csi     csiParams
	osc     oscHeader
	dropped int

	// held is the start of an OSC from earlier Writes, held back until it
	// is known not to be a clipboard read; from is where the part of it in
	// the current Write starts (0 when held is not empty).
	held []byte
	from int
	// endsDrop marks an ESC right after a dropped request: a \ after it is
	// the request's ST, and is dropped with it.
	endsDrop bool

	buf []byte // the result, when it cannot alias the input
}

// maxClipHeader bounds what the tracker holds back of an OSC before it
// knows whether it reads the clipboard: real headers ("52;c;", kitty's
// "5522;type=read:id=...;") are far shorter, and a longer one is dropped
// as if it were a read, so that a padded read cannot slip through.
const maxClipHeader = 512

// Control characters that end or cancel a sequence.
const (
	bel = 0x07 // ends an OSC
	can = 0x18 // cancels a sequence
	sub = 0x1a // cancels a sequence
	del = 0x7f
)

// trackState is where the tracker is in the output.
type trackState uint8

const (
	stGround    trackState = iota // text
	stEsc                         // after ESC
	stEscInter                    // after ESC and intermediate bytes
	stCSI                         // in a control sequence (ESC [)
	stOSCNum                      // held: ESC ] and the OSC number so far
	stSelection                   // held: an OSC 52's selection
	stData                        // held: an OSC 52 before its first data byte
	stMeta                        // held: an OSC 5522's metadata
	stHeaderEsc                   // held: an ESC in the start of an OSC 52 or 5522
	stDrop                        // in a dropped clipboard request
)

// Write filters p and returns what to pass on. The result may alias p when
// nothing is dropped or held and may alias an internal buffer otherwise; it
// is valid until the next call. A chunk without ESC, when the tracker is
// between sequences, is returned as is at no cost.
func (t *ModeTracker) Write(p []byte) []byte {
	if t.st == stGround && bytes.IndexByte(p, esc) < 0 {
		return p
	}
	o := output{src: p, buf: t.buf[:0]}
	t.from = 0
	for i := 0; i < len(p); {
		i = t.step(&o, p, i)
	}
	res := t.end(&o, p)
	t.buf = o.buf[:0]
	return res
}

// Flush ends the output: it returns what is held, unless that is the start
// of a clipboard request (then dropped), and nil when nothing is held. The
// result is valid until the next call.
func (t *ModeTracker) Flush() []byte {
	st := t.st
	t.st = stGround
	if len(t.held) == 0 {
		return nil
	}
	res := t.held
	t.held = t.held[:0]
	if st == stEsc || st == stOSCNum && t.osc.kind() == 0 {
		return res
	}
	t.dropped++
	return nil
}

// Pending reports whether bytes are held.
func (t *ModeTracker) Pending() bool { return len(t.held) > 0 }

// Idle reports whether the tracker is between sequences: then a chunk
// without ESC passes as is and changes nothing, and a caller that has
// looked for ESC itself need not call Write.
func (t *ModeTracker) Idle() bool { return t.st == stGround }

// Dropped reports how many clipboard requests have been dropped.
func (t *ModeTracker) Dropped() int { return t.dropped }

// AppendReset appends to dst the sequences that undo the modes the child
// has on, and nothing for a child that left them as they were. In order:
// the kitty keyboard stack of the screen shown is popped to where it was,
// the alternate screen left, the main screen's stack popped; then mouse,
// focus, cursor keys, keypad, autowrap, cursor visibility, modifyOtherKeys
// and cursor style go back to their defaults; last a synchronized update
// is ended, so that the terminal shows the result at once. The kitty stack
// of an alternate screen not shown is left: only entering that screen could
// reach it.
func (t *ModeTracker) AppendReset(dst []byte) []byte { return t.modes.appendReset(dst) }

// AppendRestore appends to dst the sequences that set the modes the child
// has on again, after AppendReset's were written (on fg): the kitty stack
// of the main screen, the alternate screen and its stack, then the other
// modes. A synchronized update is not begun again: it is a moment of the
// child's drawing, not a mode, and the child redraws anyway. Of a kitty
// stack deeper than kittyKeep, the top kittyKeep entries are pushed.
func (t *ModeTracker) AppendRestore(dst []byte) []byte { return t.modes.appendRestore(dst) }

// AppendFullReset appends to dst the reset of every mode a ModeTracker
// follows, whatever its state, for a terminal left in an unknown state: the
// kitty stack of the screen shown and of the main screen popped empty, the
// alternate screen left (1047: without the cursor restore of 1049, which
// would move the cursor of a terminal that was not on it), then the other
// modes as AppendReset writes them.
func AppendFullReset(dst []byte) []byte {
	dst = appendKittyPop(dst, kittyPopAll)
	dst = appendDEC(dst, 1047, modeReset)
	dst = appendKittyPop(dst, kittyPopAll)
	for _, d := range decModes {
		if d.n != syncMode {
			dst = appendDEC(dst, d.n, d.off())
		}
	}
	dst = append(dst, keypadOff...)
	dst = append(dst, otherKeysOff...)
	dst = append(dst, cursorStyleOff...)
	return appendDEC(dst, syncMode, modeReset)
}

// step handles p from i, in the current state, and returns where to go on.
func (t *ModeTracker) step(o *output, p []byte, i int) int {
	c := p[i]
	switch t.st {
	case stGround:
		return t.ground(p, i)
	case stEsc:
		return t.escByte(o, i, c)
	case stEscInter:
		t.escInterByte(i, c)
	case stCSI:
		for ; i < len(p) && t.st == stCSI; i++ {
			t.csiByte(i, p[i])
		}
		return i
	case stOSCNum:
		return t.numByte(o, i, c)
	case stSelection:
		t.selectionByte(o, i, c)
	case stData:
		t.dataByte(o, i, c)
	case stMeta:
		t.metaByte(o, i, c)
	case stHeaderEsc:
		return t.headerEscByte(o, i, c)
	case stDrop:
		return t.dropBytes(o, p, i)
	}
	t.checkHeld(o, i+1)
	return i + 1
}

// ground skips text from i to the next ESC. A control sequence that
// follows, whole in p, is read at once: most are colors and cursor moves,
// which a glance at their first and final bytes rules out.
func (t *ModeTracker) ground(p []byte, i int) int {
	j := bytes.IndexByte(p[i:], esc)
	if j < 0 {
		return len(p)
	}
	i += j + 1
	if i == len(p) || p[i] != '[' {
		t.enterEsc(i-1, false)
		return i
	}
	i++
	end := i
	for end < len(p) && p[end] >= 0x20 && p[end] <= 0x3f {
		end++ // Parameter and intermediate bytes.
	}
	if end < len(p) && p[end] >= 0x40 && p[end] <= 0x7e && !mayFollow(p[i:end], p[end]) {
		return end + 1
	}
	t.st = stCSI
	t.csi.reset()
	return i
}

// mayFollow reports whether a control sequence with the parameter and
// intermediate bytes b and the final byte final may be one the tracker
// follows: those have a private marker, or are DECSCUSR (final q).
func mayFollow(b []byte, final byte) bool {
	return final == 'q' || len(b) > 0 && b[0] >= '<' && b[0] <= '?'
}

// end returns the result of a Write and keeps what it holds: the part of a
// held OSC start in p, or nothing of a dropped request.
func (t *ModeTracker) end(o *output, p []byte) []byte {
	switch {
	case t.st == stDrop:
		return o.result(t.from)
	case t.holding():
		t.held = append(t.held, p[t.from:]...)
		return o.result(t.from)
	}
	return o.result(len(p))
}

// holding reports whether the tracker holds back what it reads: the start
// of an OSC, which may turn out to read the clipboard.
func (t *ModeTracker) holding() bool {
	switch t.st {
	case stEsc:
		return !t.AllowClipboardRead
	case stOSCNum, stSelection, stData, stMeta, stHeaderEsc:
		return true
	}
	return false
}

// checkHeld drops as a read a held OSC start that has grown past
// maxClipHeader at end, the index after the byte just read.
func (t *ModeTracker) checkHeld(o *output, end int) {
	if t.holding() && t.st != stEsc && len(t.held)+end-t.from > maxClipHeader {
		t.dropRead(o, end)
	}
}

// enterEsc starts a sequence at the ESC at index i; it may start an OSC,
// so the region held back starts there.
func (t *ModeTracker) enterEsc(i int, endsDrop bool) {
	t.st, t.from, t.endsDrop = stEsc, i, endsDrop
}

// release passes on what is held: the OSC start is not a clipboard read.
func (t *ModeTracker) release(o *output) {
	if len(t.held) > 0 {
		o.replace(t.from, t.from, t.held)
		t.held = t.held[:0]
	}
}

// drop drops what is held and the bytes from t.from up to end.
func (t *ModeTracker) drop(o *output, end int) {
	o.replace(t.from, end, nil)
	t.held = t.held[:0]
	t.from = end
}

// dropRead drops the clipboard request read up to end, and the rest of it
// as it comes.
func (t *ModeTracker) dropRead(o *output, end int) {
	t.dropped++
	t.drop(o, end)
	t.st = stDrop
}

// dropThrough drops the clipboard request that ends at end, terminator
// included.
func (t *ModeTracker) dropThrough(o *output, end int) {
	t.dropped++
	t.drop(o, end)
	t.st = stGround
}

// pass releases what is held and goes back to text.
func (t *ModeTracker) pass(o *output) {
	t.release(o)
	t.st = stGround
}

// escByte reads the byte c at index i after an ESC.
func (t *ModeTracker) escByte(o *output, i int, c byte) int {
	switch {
	case c == '\\' && t.endsDrop:
		t.drop(o, i+1) // The ST of the request just dropped.
		t.st = stGround
	case c == ']' && !t.AllowClipboardRead:
		t.st, t.osc = stOSCNum, oscHeader{}
	case c == esc:
		t.release(o)
		t.enterEsc(i, false)
	case c == can || c == sub:
		t.pass(o)
	case c < 0x20 || c == del:
		// Executed or ignored by the terminal: the sequence goes on.
	default:
		t.release(o)
		t.escFinal(c)
	}
	return i + 1
}

// escFinal acts on the byte c after an ESC that is not ESC ] or a C0.
func (t *ModeTracker) escFinal(c byte) {
	t.st = stGround
	switch {
	case c == '[':
		t.st = stCSI
		t.csi.reset()
	case c >= 0x20 && c <= 0x2f:
		t.st = stEscInter
	case c == 'c': // RIS
		t.modes = termModes{}
	case c == '=':
		t.modes.keypad = true
	case c == '>':
		t.modes.keypad = false
	}
}

// escInterByte reads the byte c at index i of an ESC sequence with
// intermediate bytes (ESC ( B, ESC # 8), which the tracker ignores.
func (t *ModeTracker) escInterByte(i int, c byte) {
	switch {
	case c == esc:
		t.enterEsc(i, false)
	case c == can || c == sub, c >= 0x30:
		t.st = stGround
	}
}

// csiByte reads the byte c at index i of a control sequence.
func (t *ModeTracker) csiByte(i int, c byte) {
	switch {
	case c >= '0' && c <= '9':
		t.csi.digit(c)
	case c == ';':
		t.csi.next()
	case c == ':':
		t.csi.subParam()
	case c >= '<' && c <= '?':
		t.csi.setMarker(c)
	case c >= 0x20 && c <= 0x2f:
		t.csi.intermediate(c)
	case c >= 0x40 && c <= 0x7e:
		t.st = stGround
		t.csi.finish()
		t.modes.apply(&t.csi, c)
	case c == esc:
		t.enterEsc(i, false)
	case c == can || c == sub, c >= 0x80:
		t.st = stGround // Cancelled; kitty also stops at a byte that is not ASCII.
	}
}

// numByte reads the byte c at index i of an OSC's number.
func (t *ModeTracker) numByte(o *output, i int, c byte) int {
	h := &t.osc
	switch {
	case c >= '0' && c <= '9':
		h.digit(c)
	case ignorable(c):
	case c == bel:
		t.pass(o)
	case c == esc:
		t.headerEsc(o, i, h.kind() != 0)
	case c == can || c == sub:
		t.cancelHeader(o, i, h.kind() != 0)
	case h.kind() == clip52:
		t.st = stSelection
		if c != ';' {
			return i // Kitty reads "52x" as 52 with "x" starting its selection.
		}
	case h.kind() == clip5522:
		t.st, h.field = stMeta, 0
		if c != ';' {
			return i
		}
	default:
		t.pass(o)
	}
	t.checkHeld(o, i+1)
	return i + 1
}

// selectionByte reads the byte c at index i of an OSC 52's selection.
func (t *ModeTracker) selectionByte(o *output, i int, c byte) {
	switch c {
	case ';':
		t.st = stData
	case '?':
		t.dropRead(o, i+1)
	case bel:
		t.pass(o)
	case esc:
		t.headerEsc(o, i, true)
	case can, sub:
		t.cancelHeader(o, i, true)
	}
}

// dataByte reads the byte c at index i of an OSC 52 before its data.
func (t *ModeTracker) dataByte(o *output, i int, c byte) {
	switch {
	case c == '?':
		t.dropRead(o, i+1)
	case c == esc:
		t.headerEsc(o, i, true)
	case c == can || c == sub:
		t.cancelHeader(o, i, true)
	case ignorable(c):
	default:
		t.pass(o) // A write, or an empty one (BEL): its data passes.
	}
}

// metaByte reads the byte c at index i of an OSC 5522's metadata.
func (t *ModeTracker) metaByte(o *output, i int, c byte) {
	h := &t.osc
	switch {
	case c == ';' && h.isRead():
		t.dropRead(o, i+1) // The payload, a list of types, is dropped as it comes.
	case c == bel && h.isRead():
		t.dropThrough(o, i+1)
	case c == ';' || c == bel:
		t.pass(o)
	case c == esc:
		t.headerEsc(o, i, true)
	case c == can || c == sub:
		t.cancelHeader(o, i, true)
	case ignorable(c):
	default:
		h.metaByte(c)
	}
}

// headerEsc reads an ESC at index i in the start of an OSC: an OSC that
// may read the clipboard waits for the next byte (stHeaderEsc); any other
// passes, and the ESC starts a sequence.
func (t *ModeTracker) headerEsc(o *output, i int, clip bool) {
	if clip {
		t.st = stHeaderEsc
		return
	}
	t.release(o)
	t.enterEsc(i, false)
}

// cancelHeader reads a CAN or SUB at index i in the start of an OSC: a
// clipboard request is dropped with it, any other passes.
func (t *ModeTracker) cancelHeader(o *output, i int, clip bool) {
	if clip {
		t.dropThrough(o, i+1)
		return
	}
	t.pass(o)
}

// headerEscByte reads the byte c at index i after an ESC in the start of
// an OSC 52 or 5522: a \ ends it (ST) before any read was seen, unless its
// metadata asked for one; anything else cuts it, and what was held of it is
// dropped while the ESC starts a new sequence with c.
func (t *ModeTracker) headerEscByte(o *output, i int, c byte) int {
	switch {
	case c == '\\' && t.osc.kind() == clip5522 && t.osc.isRead():
		t.dropThrough(o, i+1)
		return i + 1
	case c == '\\':
		t.pass(o)
		return i + 1
	}
	t.dropped++
	if i == 0 { // The ESC came in an earlier Write: it is the last byte held.
		t.held = append(t.held[:0], esc)
	} else {
		t.drop(o, i-1)
	}
	t.st, t.endsDrop = stEsc, false
	return i // c is read again, after the ESC.
}

// dropBytes drops the bytes of a dropped clipboard request from i to its
// end: BEL, CAN or SUB, dropped too, or an ESC, which starts a sequence
// (its \ is dropped as the request's ST).
func (t *ModeTracker) dropBytes(o *output, p []byte, i int) int {
	for j := i; j < len(p); j++ {
		switch p[j] {
		case bel, can, sub:
			t.drop(o, j+1)
			t.st = stGround
			return j + 1
		case esc:
			t.drop(o, j)
			t.enterEsc(j, true)
			return j + 1
		}
	}
	return len(p)
}

// ignorable reports whether terminals skip c inside an OSC: a C0 control
// other than BEL, CAN, SUB and ESC, which end or cancel it, or DEL.
func ignorable(c byte) bool {
	return c < 0x20 && c != bel && c != can && c != sub && c != esc || c == del
}
