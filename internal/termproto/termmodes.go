package termproto

import "strconv"

// A decMode is a DEC private mode an OutputFilter follows: its number, and
// the final byte (h or l) that takes it away from the terminal's default.
type decMode struct {
	n  int
	on byte
}

// off is the final byte that sets the mode back to its default.
func (d decMode) off() byte {
	if d.on == modeSet {
		return modeReset
	}
	return modeSet
}

// The final bytes of a mode set and reset.
const modeSet, modeReset = 'h', 'l'

// syncMode is synchronized output, which holds the terminal's drawing
// until it is reset.
const syncMode = 2026

// decModes are the DEC private modes an OutputFilter follows, other than
// the alternate screen's and bracketed paste, in the order their resets are
// written: synchronized output last, so that the terminal shows the whole
// reset at once. They are those whose default is the same in every
// terminal; a mode whose default a user sets (xterm's metaSendsEscape,
// 1036, or the backarrow key, 67) cannot be put back without asking the
// terminal first, and is not followed.
var decModes = [...]decMode{
	{9, modeSet},    // X10 mouse reporting
	{1000, modeSet}, // mouse buttons
	{1001, modeSet}, // mouse highlight tracking
	{1002, modeSet}, // mouse drags
	{1003, modeSet}, // all mouse motion
	{1005, modeSet}, // UTF-8 mouse encoding
	{1006, modeSet}, // SGR mouse encoding
	{1015, modeSet}, // urxvt mouse encoding
	{1016, modeSet}, // SGR pixel mouse encoding
	{1004, modeSet}, // focus events
	{2031, modeSet}, // colour scheme reports
	{2048, modeSet}, // in-band resize reports
	{5522, modeSet}, // kitty's clipboard paste events
	{9001, modeSet}, // win32-input-mode (Windows Terminal)
	{7727, modeSet}, // application escape key (mintty)
	{1050, modeSet}, // termcap function keys (xterm)
	{1051, modeSet}, // Sun function keys
	{1052, modeSet}, // HP function keys
	{1053, modeSet}, // SCO function keys
	{1060, modeSet}, // legacy X11R6 keyboard
	{1061, modeSet}, // VT220 keyboard
	{2001, modeSet}, // readline mouse, button 1 (xterm)
	{2002, modeSet}, // ... button 2
	{2003, modeSet}, // ... button 3
	{5, modeSet},    // reverse video (DECSCNM)
	{8, modeReset},  // no key autorepeat (DECARM)
	{1, modeSet},    // application cursor keys (DECCKM)
	{66, modeSet},   // application keypad (DECNKM)
	{3, modeSet},    // 132 columns (DECCOLM)
	{6, modeSet},    // origin mode (DECOM)
	{69, modeSet},   // left and right margins (DECLRMM)
	{45, modeSet},   // reverse wraparound
	{7, modeReset},  // no autowrap (DECAWM)
	{12, modeSet},   // blinking cursor
	{25, modeReset}, // hidden cursor (DECTCEM)
	{syncMode, modeSet},
}

// decBit is the bit of the DEC mode n in termModes.dec, or 0 when n is not
// followed.
func decBit(n int) uint64 {
	if i := decIndex(n); i >= 0 {
		return 1 << i
	}
	return 0
}

// decIndex is the index of the DEC mode n in decModes, or -1: a switch,
// since it is asked for every parameter of every mode sequence (the cursor
// hidden and shown around each frame).
func decIndex(n int) int {
	switch n {
	case 9:
		return 0
	case 1000, 1001, 1002, 1003:
		return 1 + n - 1000
	case 1005, 1006:
		return 5 + n - 1005
	case 1015, 1016:
		return 7 + n - 1015
	case 1004:
		return 9
	case 2031:
		return 10
	case 2048:
		return 11
	case 5522:
		return 12
	case 9001:
		return 13
	case 7727:
		return 14
	case 1050, 1051, 1052, 1053:
		return 15 + n - 1050
	case 1060, 1061:
		return 19 + n - 1060
	case 2001, 2002, 2003:
		return 21 + n - 2001
	case 5:
		return 24
	case 8:
		return 25
	case 1:
		return 26
	case 66:
		return 27
	case 3:
		return 28
	case 6:
		return 29
	case 69:
		return 30
	case 45:
		return 31
	case 7:
		return 32
	case 12:
		return 33
	case 25:
		return 34
	case syncMode:
		return 35
	}
	return -1
}

// risKeeps are the bits of decModes that RIS leaves alone somewhere:
// xterm.js leaves the cursor hidden and blinking.
var risKeeps = decBit(25) | decBit(12)

// An ansiMode is an ANSI mode (ESC [ Pm h / l, no marker) an OutputFilter
// follows, with the final byte that takes it away from its default.
var ansiModes = [...]decMode{
	{2, modeSet},    // keyboard locked (KAM)
	{4, modeSet},    // insert (IRM)
	{12, modeReset}, // local echo (SRM reset)
	{20, modeSet},   // newline (LNM): Enter sends CR LF
}

// ansiBit is the bit of the ANSI mode n in termModes.ansi, or 0.
func ansiBit(n int) uint8 {
	for i, d := range ansiModes {
		if d.n == n {
			return 1 << i
		}
	}
	return 0
}

// isAltScreen reports whether n is one of the modes that switch to the
// alternate screen.
func isAltScreen(n int) bool { return n == 47 || n == 1047 || n == 1049 }

// Sequences the resets and restores write.
const (
	keypadOn       = "\x1b="
	keypadOff      = "\x1b>"
	otherKeysOff   = "\x1b[>4m" // modifyOtherKeys back to the terminal's own setting
	cursorStyleOff = "\x1b[0 q" // the terminal's default cursor style
	// marginsOff sets the scroll margins to the whole screen; it moves the
	// cursor home, so the cursor is saved and restored around it.
	marginsOff = "\x1b7\x1b[r\x1b8"
	sgrOff     = "\x1b[m"
	// charsetsOff designates ASCII in G0 to G3 and shifts G0 in.
	charsetsOff = "\x1b(B\x1b)B\x1b*B\x1b+B\x0f"
	shiftIn     = "\x0f"
	syncOn      = "\x1b[?2026h"
	syncOff     = "\x1b[?2026l"
)

// termModes is the state the child has set at the terminal, as far as an
// OutputFilter follows it. The zero value is the terminal's default. Where
// terminals differ in what a reset sequence resets, the state keeps what
// any of them may have left: resetting a mode that is already at its
// default does nothing.
type termModes struct {
	dec         uint64        // DEC modes away from their default (bits of decModes)
	alt         int           // the alternate screen mode in effect (47, 1047, 1049), or 0
	keypad      bool          // application keypad (ESC =)
	ansi        uint8         // ANSI modes away from their default (bits of ansiModes)
	kitty       [2]kittyStack // the kitty keyboard stacks of the main and alternate screens
	otherKeys   int           // the modifyOtherKeys level, 0 for off
	cursorStyle int           // the DECSCUSR style, 0 for the terminal's default
	margins     [2]bool       // scroll margins set (DECSTBM) on the main and alternate screens
	sgr         bool          // character attributes set (SGR)
	charsets    [4]bool       // G0 to G3 designated as other than ASCII
	gl          uint8         // the set shifted in (SO, LS2, LS3), G0 by default
	colors      uint8         // colours set with OSC (bits of oscColors)

	// The DEC modes saved with XTSAVE, for XTRESTORE.
	saved, savedKnown uint64
	savedAlt          int
}

// screen is the index in kitty of the screen shown.
func (m *termModes) screen() int {
	if m.alt != 0 {
		return 1
	}
	return 0
}

// ris records RIS, the terminal's full reset. Not all of it is reset
// everywhere: xterm.js keeps a hidden or blinking cursor and newline mode,
// tmux the alternate screen; the colours are kept as set, to be sure.
func (m *termModes) ris() {
	*m = termModes{dec: m.dec & risKeeps, ansi: m.ansi & ansiBit(20), alt: m.alt, colors: m.colors}
}

// designate records ESC I F, the designation of a character set to G0
// (I '(') to G3 ('+', or '/' for 96-character sets): F 'B' is ASCII.
// multi reports more intermediate bytes (a set named by two bytes).
func (m *termModes) designate(i, f byte, multi bool) {
	g := (i - '(') & 3
	m.charsets[g] = multi || f != 'B'
}

// shift records the control c: SO shifts G1 in, SI G0.
func (m *termModes) shift(c byte) {
	switch c {
	case so:
		m.gl = 1
	case si:
		m.gl = 0
	}
}

// Shift controls.
const (
	so = 0x0e
	si = 0x0f
)

// oscColors are the OSCs that set colours the filter puts back, each with
// the OSC that resets them: the palette, and the default foreground,
// background and cursor colours.
var oscColors = [...][2]int{{4, 104}, {10, 110}, {11, 111}, {12, 112}}

// osc records an OSC n that passed.
func (m *termModes) osc(n int) {
	for i, c := range oscColors {
		if c[0] == n {
			m.colors |= 1 << i
		}
	}
}

// setDEC records the DEC mode n set (on) or reset.
func (m *termModes) setDEC(n int, on bool) {
	if isAltScreen(n) {
		switch {
		case on:
			m.alt = n
		case m.alt != 0:
			m.alt = 0
		}
		return
	}
	i := decIndex(n)
	if i < 0 {
		return
	}
	bit := uint64(1) << i
	if on == (decModes[i].on == modeSet) {
		m.dec |= bit
	} else {
		m.dec &^= bit
	}
}

// save records XTSAVE of the DEC mode n.
func (m *termModes) save(n int) {
	if isAltScreen(n) {
		m.savedAlt = m.alt
		return
	}
	bit := decBit(n)
	m.savedKnown |= bit
	m.saved = m.saved&^bit | m.dec&bit
}

// restore records XTRESTORE of the DEC mode n: in a terminal that has it,
// the mode is what was saved, and in one that does not, it is unchanged;
// the state keeps whichever is away from the default.
func (m *termModes) restore(n int) {
	if isAltScreen(n) {
		if m.alt == 0 {
			m.alt = m.savedAlt
		}
		return
	}
	bit := decBit(n)
	m.dec |= m.saved & m.savedKnown & bit
}

// setANSI records the ANSI mode n set (on) or reset.
func (m *termModes) setANSI(n int, on bool) {
	bit := ansiBit(n)
	if bit == 0 {
		return
	}
	i := 0
	for ansiModes[i].n != n {
		i++
	}
	if on == (ansiModes[i].on == modeSet) {
		m.ansi |= bit
	} else {
		m.ansi &^= bit
	}
}

// setMargins records DECSTBM on the screen shown: set, or back to the
// whole screen. xterm keeps one set of margins for both screens, xterm.js
// one for each: margins set on one screen are taken as set on both, and
// back to the whole screen only on the one shown.
func (m *termModes) setMargins(set bool) {
	if set {
		m.margins = [2]bool{true, true}
		return
	}
	m.margins[m.screen()] = false
}

// modifyOtherKeys records ESC [ > Pp ; Pv m: Pp 4 is modifyOtherKeys, and
// no parameters at all set every key modifier option back.
func (m *termModes) modifyOtherKeys(s *Seq) {
	switch {
	case s.NParams == 0:
		m.otherKeys = 0
	case s.Param(0, -1) == 4:
		m.otherKeys = max(s.Param(1, 0), 0)
	}
}

// appendReset appends the sequences that undo what is on (see
// OutputFilter.AppendReset); blink is the terminal's answer for mode 12
// before the child ran (a Mode constant).
func (m *termModes) appendReset(dst []byte, blink byte) []byte {
	if m.alt != 0 {
		dst = m.kitty[1].appendReset(dst)
		dst = appendDEC(dst, m.alt, modeReset)
	}
	dst = m.kitty[0].appendReset(dst)
	if m.alt == 0 && !m.kitty[1].clear() {
		// Left there, the stack of the alternate screen is the next
		// full-screen program's: the screen is entered to empty it, in a
		// synchronized update that the terminal shows as one.
		dst = append(dst, syncOn...)
		dst = appendDEC(dst, 1049, modeSet)
		dst = m.kitty[1].appendReset(dst)
		dst = appendDEC(dst, 1049, modeReset)
		dst = append(dst, syncOff...)
	}
	for i, d := range decModes {
		if m.dec&(1<<i) != 0 && d.n != syncMode && d.n != blinkMode {
			dst = appendDEC(dst, d.n, d.off())
		}
	}
	if m.keypad {
		dst = append(dst, keypadOff...)
	}
	for i, d := range ansiModes {
		if m.ansi&(1<<i) != 0 {
			dst = appendANSI(dst, d.n, d.off())
		}
	}
	if m.otherKeys != 0 {
		dst = append(dst, otherKeysOff...)
	}
	dst = m.appendCursorReset(dst, blink)
	if m.margins[0] {
		dst = append(dst, marginsOff...)
	}
	if m.sgr {
		dst = append(dst, sgrOff...)
	}
	for g, other := range m.charsets {
		if other {
			dst = append(dst, esc, "()*+"[g], 'B')
		}
	}
	if m.gl != 0 {
		dst = append(dst, shiftIn...)
	}
	for i, c := range oscColors {
		if m.colors&(1<<i) != 0 {
			dst = strconv.AppendInt(append(dst, "\x1b]"...), int64(c[1]), 10)
			dst = append(dst, stringTerminator...)
		}
	}
	if m.dec&decBit(syncMode) != 0 {
		dst = appendDEC(dst, syncMode, modeReset)
	}
	return dst
}

// blinkMode is the DEC mode of a blinking cursor.
const blinkMode = 12

// appendCursorReset puts the cursor's style and blinking back. The style's
// default, DECSCUSR 0, is the user's in VTE and kitty, but a blinking
// block in xterm, whose own default is a steady one: after it, mode 12 is
// set to what the terminal answered for it before the child ran, or, when
// it did not say, reset if the child had set it.
func (m *termModes) appendCursorReset(dst []byte, blink byte) []byte {
	touched := m.dec&decBit(blinkMode) != 0
	if m.cursorStyle == 0 && !touched {
		return dst
	}
	if m.cursorStyle != 0 {
		dst = append(dst, cursorStyleOff...)
	}
	switch blink {
	case ModeSet, ModePermanentSet:
		return appendDEC(dst, blinkMode, modeSet)
	case ModeReset, ModePermanentOff:
		return appendDEC(dst, blinkMode, modeReset)
	}
	if touched {
		dst = appendDEC(dst, blinkMode, modeReset)
	}
	return dst
}

// appendRestore appends the sequences that set what is on again (see
// OutputFilter.AppendRestore).
func (m *termModes) appendRestore(dst []byte) []byte {
	dst = m.kitty[0].appendRestore(dst)
	switch {
	case m.alt != 0:
		dst = appendDEC(dst, m.alt, modeSet)
		dst = m.kitty[1].appendRestore(dst)
	case !m.kitty[1].clear():
		dst = append(dst, syncOn...)
		dst = appendDEC(dst, 1049, modeSet)
		dst = m.kitty[1].appendRestore(dst)
		dst = appendDEC(dst, 1049, modeReset)
		dst = append(dst, syncOff...)
	}
	for i, d := range decModes {
		if m.dec&(1<<i) != 0 && d.n != syncMode {
			dst = appendDEC(dst, d.n, d.on)
		}
	}
	if m.keypad {
		dst = append(dst, keypadOn...)
	}
	for i, d := range ansiModes {
		if m.ansi&(1<<i) != 0 {
			dst = appendANSI(dst, d.n, d.on)
		}
	}
	if m.otherKeys != 0 {
		dst = strconv.AppendInt(append(dst, "\x1b[>4;"...), int64(m.otherKeys), 10)
		dst = append(dst, 'm')
	}
	if m.cursorStyle != 0 {
		dst = strconv.AppendInt(append(dst, "\x1b["...), int64(m.cursorStyle), 10)
		dst = append(dst, " q"...)
	}
	return dst
}

// appendDEC appends ESC [ ? n final.
func appendDEC(dst []byte, n int, final byte) []byte {
	dst = strconv.AppendInt(append(dst, "\x1b[?"...), int64(n), 10)
	return append(dst, final)
}

// appendANSI appends ESC [ n final.
func appendANSI(dst []byte, n int, final byte) []byte {
	dst = strconv.AppendInt(append(dst, "\x1b["...), int64(n), 10)
	return append(dst, final)
}

// AppendFullReset appends to dst the reset of every mode an OutputFilter
// follows, whatever its state, for a terminal left in an unknown state:
// the kitty keyboard stacks of both screens emptied, the alternate screen
// left (1047: without the cursor restore of 1049, which would move the
// cursor of a terminal that was not on it), then the other modes as
// AppendReset writes them, and bracketed paste off.
func AppendFullReset(dst []byte) []byte {
	dst = appendKittyPop(dst, kittyPopAll)
	dst = appendDEC(dst, 1047, modeReset)
	dst = appendKittyPop(dst, kittyPopAll)
	dst = append(dst, syncOn...)
	dst = appendDEC(dst, 1049, modeSet)
	dst = appendKittyPop(dst, kittyPopAll)
	dst = appendDEC(dst, 1049, modeReset)
	dst = append(dst, syncOff...)
	for _, d := range decModes {
		if d.n != syncMode && d.n != blinkMode {
			dst = appendDEC(dst, d.n, d.off())
		}
	}
	dst = append(dst, keypadOff...)
	for _, d := range ansiModes {
		dst = appendANSI(dst, d.n, d.off())
	}
	dst = append(dst, otherKeysOff...)
	dst = append(dst, cursorStyleOff...)
	dst = appendDEC(dst, blinkMode, modeReset)
	dst = append(dst, marginsOff...)
	dst = append(dst, sgrOff...)
	dst = append(dst, charsetsOff...)
	for _, c := range oscColors {
		dst = strconv.AppendInt(append(dst, "\x1b]"...), int64(c[1]), 10)
		dst = append(dst, stringTerminator...)
	}
	dst = appendDEC(dst, 2004, modeReset)
	return appendDEC(dst, syncMode, modeReset)
}

// kittySlots is the size of kitty's keyboard stack: its base entry and
// seven above it.
const kittySlots = 8

// kittyPopAll is the count of a pop that empties a kitty keyboard stack
// whatever its depth: kitty keeps 8 entries, alacritty 4096.
const kittyPopAll = 4096

// kittyStack is one screen's kitty keyboard stack as kitty keeps it
// (kitty/screen.c): slots of flags, the low seven bits, and a bit that
// marks the slot in use. The current flags are those of the highest slot
// in use. CSI = sets the current slot, the base (slot 0) when none is in
// use; CSI > marks the current slot in use and writes the next one, and
// when the stack is full drops the oldest; CSI < n clears the n highest
// slots in use. Alacritty keeps a deeper stack, with the flags set by
// CSI = apart from it; depth counts its entries, so that a reset empties
// it too.
type kittyStack struct {
	slots [kittySlots]uint8
	depth int // entries pushed and not popped, however deep
}

const kittyInUse = 0x80

// top is the index of the highest slot in use, or -1.
func (k *kittyStack) top() int {
	for i := kittySlots - 1; i >= 0; i-- {
		if k.slots[i]&kittyInUse != 0 {
			return i
		}
	}
	return -1
}

// clear reports whether the stack acts as it does when the terminal
// starts: nothing pushed, and no flags set (a base slot in use with no
// flags acts as none).
func (k *kittyStack) clear() bool {
	t := k.top()
	return k.depth == 0 && (t < 0 || t == 0 && k.slots[0] == kittyInUse)
}

// push records ESC [ > flags u.
func (k *kittyStack) push(flags int) {
	k.depth = min(k.depth+1, kittyPopAll)
	q := uint8(max(flags, 0)&0x7f) | kittyInUse
	cur := max(k.top(), 0)
	if cur == kittySlots-1 {
		copy(k.slots[:], k.slots[1:])
	} else {
		k.slots[cur] |= kittyInUse
		cur++
	}
	k.slots[cur] = q
}

// pop records ESC [ < n u.
func (k *kittyStack) pop(n int) {
	k.depth = max(k.depth-n, 0)
	for i := kittySlots - 1; n > 0 && i >= 0; i-- {
		if k.slots[i]&kittyInUse != 0 {
			k.slots[i] = 0
			n--
		}
	}
}

// set records ESC [ = flags ; how u: how 1 sets the flags, 2 adds them, 3
// removes them, on the current slot, or on the base when none is in use;
// any other how leaves the flags but marks the slot in use.
func (k *kittyStack) set(flags, how int) {
	i := max(k.top(), 0)
	cur := k.slots[i] &^ kittyInUse
	q := uint8(max(flags, 0) & 0x7f)
	switch how {
	case 1:
		cur = q
	case 2:
		cur |= q
	case 3:
		cur &^= q
	}
	k.slots[i] = cur | kittyInUse
}

// appendReset empties the stack: a pop of the slots in use above the base,
// and of the base when it has flags, or of every entry pushed, whichever
// is more (a pop of more than a stack holds clears it).
func (k *kittyStack) appendReset(dst []byte) []byte {
	if k.clear() {
		return dst
	}
	n := 0
	if k.slots[0]&^kittyInUse != 0 {
		n++
	}
	for _, s := range k.slots[1:] {
		if s&kittyInUse != 0 {
			n++
		}
	}
	return appendKittyPop(dst, max(n, k.depth))
}

// appendRestore fills the empty stack again: the base's flags set (a push
// marks the base in use anyway), then the slots above it pushed.
func (k *kittyStack) appendRestore(dst []byte) []byte {
	if k.clear() {
		return dst
	}
	t := max(k.top(), 0)
	if base := k.slots[0] &^ kittyInUse; base != 0 {
		dst = strconv.AppendInt(append(dst, "\x1b[="...), int64(base), 10)
		dst = append(dst, ";1u"...)
	}
	for _, s := range k.slots[1 : t+1] {
		dst = strconv.AppendInt(append(dst, "\x1b[>"...), int64(s&^kittyInUse), 10)
		dst = append(dst, 'u')
	}
	return dst
}

// appendKittyPop appends ESC [ < n u.
func appendKittyPop(dst []byte, n int) []byte {
	dst = strconv.AppendInt(append(dst, "\x1b[<"...), int64(n), 10)
	return append(dst, 'u')
}
