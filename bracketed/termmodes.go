package bracketed

import "strconv"

// A decMode is a DEC private mode a ModeTracker follows: its number, and
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

// syncMode is synchronized output, which holds the terminal's drawing
// until it is reset.
const syncMode = 2026

// decModes are the DEC private modes a ModeTracker follows, other than the
// alternate screen's, in the order their resets are written:
// synchronized output last, so that the terminal shows the whole reset at
// once.
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
	{1, modeSet},    // application cursor keys (DECCKM)
	{66, modeSet},   // application keypad (DECNKM)
	{7, modeReset},  // no autowrap (DECAWM)
	{25, modeReset}, // hidden cursor (DECTCEM)
	{syncMode, modeSet},
}

// decBit is the bit of the DEC mode n in termModes.dec, or 0 when n is not
// followed.
func decBit(n int) uint32 {
	if n > syncMode {
		return 0 // Most parameters of a long list: 2004 and the like.
	}
	for i, d := range decModes {
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
)

// kittyPopAll is the count of a pop that empties a kitty keyboard stack
// of unknown depth: terminals keep few entries (kitty 8), and a pop of more
// than a stack holds empties it and resets the flags.
const kittyPopAll = 256

// termModes is the state the child has set at the terminal, as far as a
// ModeTracker follows it. The zero value is the terminal's default.
type termModes struct {
	dec         uint32        // DEC modes away from their default (bits of decModes)
	alt         int           // the alternate screen mode in effect (47, 1047, 1049), or 0
	keypad      bool          // application keypad (ESC =)
	kitty       [2]kittyStack // the kitty keyboard stacks of the main and alternate screens
	otherKeys   int           // the modifyOtherKeys level, 0 for off
	cursorStyle int           // the DECSCUSR style, 0 for the terminal's default
}

// screen is the index in kitty of the screen shown.
func (m *termModes) screen() int {
	if m.alt != 0 {
		return 1
	}
	return 0
}

// apply records the effect of the control sequence c, ended by final.
func (m *termModes) apply(c *csiParams, final byte) {
	if c.bad || c.marker != 0 && c.ninter > 0 {
		return
	}
	switch {
	case c.marker == '?' && (final == modeSet || final == modeReset):
		m.setDEC(c.dec, c.alt, final == modeSet)
	case c.marker == '>' && final == 'u':
		m.kitty[m.screen()].push(c.arg(0, 0))
	case c.marker == '<' && final == 'u':
		m.kitty[m.screen()].pop(c.arg(0, 1))
	case c.marker == '=' && final == 'u':
		m.kitty[m.screen()].set(c.arg(0, 0), c.arg(1, 1))
	case c.marker == '>' && final == 'm':
		m.modifyOtherKeys(c)
	case c.marker == '>' && final == 'n' && (c.n == 0 || c.arg(0, -1) == 4):
		m.otherKeys = 0
	case c.marker == 0 && c.ninter == 1 && c.inter == ' ' && final == 'q':
		m.cursorStyle = max(c.arg(0, 0), 0)
	}
}

// setDEC sets (on) or resets the DEC modes in bits, and the alternate
// screen mode alt when it is not 0.
func (m *termModes) setDEC(bits uint32, alt int, on bool) {
	for i, d := range decModes {
		if bits&(1<<i) == 0 {
			continue
		}
		if on == (d.on == modeSet) {
			m.dec |= 1 << i
		} else {
			m.dec &^= 1 << i
		}
	}
	switch {
	case alt != 0 && on:
		m.alt = alt
	case alt != 0:
		m.alt = 0
	}
}

// modifyOtherKeys records ESC [ > Pp ; Pv m: Pp 4 is modifyOtherKeys, and
// no parameters at all set every key modifier option back.
func (m *termModes) modifyOtherKeys(c *csiParams) {
	switch {
	case c.n == 0:
		m.otherKeys = 0
	case c.arg(0, -1) == 4:
		m.otherKeys = max(c.arg(1, 0), 0)
	}
}

// appendReset appends the sequences that undo what is on (see
// ModeTracker.AppendReset).
func (m *termModes) appendReset(dst []byte) []byte {
	dst = m.kitty[m.screen()].appendReset(dst)
	if m.alt != 0 {
		dst = appendDEC(dst, m.alt, modeReset)
		dst = m.kitty[0].appendReset(dst)
	}
	for i, d := range decModes {
		if m.dec&(1<<i) != 0 && d.n != syncMode {
			dst = appendDEC(dst, d.n, d.off())
		}
	}
	if m.keypad {
		dst = append(dst, keypadOff...)
	}
	if m.otherKeys != 0 {
		dst = append(dst, otherKeysOff...)
	}
	if m.cursorStyle != 0 {
		dst = append(dst, cursorStyleOff...)
	}
	if m.dec&decBit(syncMode) != 0 {
		dst = appendDEC(dst, syncMode, modeReset)
	}
	return dst
}

// appendRestore appends the sequences that set what is on again (see
// ModeTracker.AppendRestore).
func (m *termModes) appendRestore(dst []byte) []byte {
	dst = m.kitty[0].appendRestore(dst)
	if m.alt != 0 {
		dst = appendDEC(dst, m.alt, modeSet)
		dst = m.kitty[1].appendRestore(dst)
	}
	for i, d := range decModes {
		if m.dec&(1<<i) != 0 && d.n != syncMode {
			dst = appendDEC(dst, d.n, d.on)
		}
	}
	if m.keypad {
		dst = append(dst, keypadOn...)
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
	dst = strconv.AppendInt(append(dst, csiPrivate...), int64(n), 10)
	return append(dst, final)
}

// kittyKeep is how many entries of a kitty keyboard stack are remembered
// for a restore: more than terminals keep (kitty 8).
const kittyKeep = 16

// kittyStack is one screen's kitty keyboard stack as the child has changed
// it: the entries it pushed and has not popped, and the flags it set
// without a push, on the entry below them.
type kittyStack struct {
	depth int            // entries pushed and not popped
	top   [kittyKeep]int // the flags of the top entries known, oldest first
	known int            // how many of top are known: depth, unless pops went below the oldest kept
	base  int            // the flags set with ESC [ = on the entry the child found (depth 0)
}

// push records ESC [ > flags u. Past kittyKeep entries the oldest is
// forgotten, as a terminal evicts it, but the depth still counts it.
func (k *kittyStack) push(flags int) {
	k.depth = min(k.depth+1, maxParam)
	if k.known == kittyKeep {
		copy(k.top[:], k.top[1:])
		k.known--
	}
	k.top[k.known] = max(flags, 0)
	k.known++
}

// pop records ESC [ < n u. A pop that empties the stack resets every flag,
// the base's too.
func (k *kittyStack) pop(n int) {
	if n <= 0 {
		return // ESC [ < 0 u pops nothing; a sub-parameter is not a count.
	}
	if n >= k.depth {
		*k = kittyStack{}
		return
	}
	k.depth -= n
	k.known = max(k.known-n, 0)
}

// set records ESC [ = flags ; how u: how 1 sets the flags, 2 adds them, 3
// removes them, on the top entry, or on the base when nothing is pushed.
func (k *kittyStack) set(flags, how int) {
	cur := &k.base
	switch {
	case k.depth > 0 && k.known == 0:
		return // An entry the tracker no longer knows.
	case k.depth > 0:
		cur = &k.top[k.known-1]
	}
	flags = max(flags, 0)
	switch how {
	case 1:
		*cur = flags
	case 2:
		*cur |= flags
	case 3:
		*cur &^= flags
	}
}

// appendReset pops what the child pushed and clears the flags it set on
// the entry it found.
func (k *kittyStack) appendReset(dst []byte) []byte {
	if k.depth > 0 {
		dst = appendKittyPop(dst, k.depth)
	}
	if k.base != 0 {
		dst = append(dst, "\x1b[=0;1u"...)
	}
	return dst
}

// appendRestore sets the base flags and pushes the entries known again.
func (k *kittyStack) appendRestore(dst []byte) []byte {
	if k.base != 0 {
		dst = strconv.AppendInt(append(dst, "\x1b[="...), int64(k.base), 10)
		dst = append(dst, ";1u"...)
	}
	for _, f := range k.top[:k.known] {
		dst = strconv.AppendInt(append(dst, "\x1b[>"...), int64(f), 10)
		dst = append(dst, 'u')
	}
	return dst
}

// appendKittyPop appends ESC [ < n u.
func appendKittyPop(dst []byte, n int) []byte {
	dst = strconv.AppendInt(append(dst, "\x1b[<"...), int64(n), 10)
	return append(dst, 'u')
}
