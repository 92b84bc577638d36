package bracketed

// maxParam caps a parameter's value while it is read: no mode, flag or
// count the tracker acts on comes near it, and it keeps the arithmetic
// from overflowing on a run of digits.
const maxParam = 1 << 20

// csiParams collects what the tracker needs of a control sequence as its
// bytes come: its private marker, intermediate bytes, its first two
// parameters and, for a DEC private mode sequence, the followed modes
// among its parameters (any number of them).
type csiParams struct {
	marker   byte   // '<', '=', '>' or '?' before the parameters, or 0
	inter    byte   // the intermediate byte, or 0
	ninter   int    // how many intermediate bytes
	bad      bool   // a byte out of place: the terminal ignores the sequence
	started  bool   // a parameter byte came: a marker is out of place now
	n        int    // parameters completed
	cur      int    // the parameter being read
	digits   bool   // it has digits
	sub      bool   // it has a sub-parameter (':'): it is none the tracker acts on
	first    [2]int // the first two parameters; -1 when left out, -2 with a sub-parameter
	dec      uint32 // the followed DEC modes among the parameters (bits of decModes)
	alt      int    // the last alternate screen mode among them, or 0
	hasParam bool   // the sequence has parameters at all
}

func (c *csiParams) reset() {
	*c = csiParams{first: [2]int{-1, -1}}
}

func (c *csiParams) digit(d byte) {
	if c.ninter > 0 {
		c.bad = true
	}
	c.started, c.hasParam, c.digits = true, true, true
	c.cur = min(c.cur*10+int(d-'0'), maxParam)
}

// next ends the parameter being read, at a ';'.
func (c *csiParams) next() {
	if c.ninter > 0 {
		c.bad = true
	}
	c.started, c.hasParam = true, true
	c.endParam()
}

func (c *csiParams) subParam() {
	c.started, c.hasParam, c.sub = true, true, true
}

func (c *csiParams) setMarker(m byte) {
	if c.started || c.marker != 0 || c.ninter > 0 {
		c.bad = true
		return
	}
	c.marker = m
}

func (c *csiParams) intermediate(b byte) {
	c.inter = b
	c.ninter++
}

// finish ends the last parameter, at the final byte.
func (c *csiParams) finish() {
	if c.hasParam {
		c.endParam()
	}
}

// endParam records the parameter just read.
func (c *csiParams) endParam() {
	v := c.cur
	switch {
	case c.sub:
		v = -2
	case !c.digits:
		v = -1
	}
	if c.n < len(c.first) {
		c.first[c.n] = v
	}
	c.n++
	c.cur, c.digits, c.sub = 0, false, false
	if c.marker == '?' && v >= 0 {
		c.dec |= decBit(v)
		if isAltScreen(v) {
			c.alt = v
		}
	}
}

// arg returns parameter i, or def when it is left out. A parameter with a
// sub-parameter is returned as -2.
func (c *csiParams) arg(i, def int) int {
	if c.first[i] == -1 {
		return def
	}
	return c.first[i]
}

// clipKind is the kind of a clipboard request, by its OSC number.
type clipKind uint8

const (
	clipNone clipKind = iota
	clip52            // OSC 52: xterm's clipboard
	clip5522          // OSC 5522: kitty's clipboard
)

// oscHeader reads the start of an OSC: its number, and for an OSC 5522
// whether its metadata has type=read.
type oscHeader struct {
	digits int // digits of the number, leading zeros included
	num    int // its value
	first5 int // the value of its first five digits, as kitty reads it
	field  int // how much of typeRead the current metadata field matches; -1 once it cannot
	read   bool
}

// typeRead is the metadata field of kitty's clipboard read request.
const typeRead = "type=read"

func (h *oscHeader) digit(d byte) {
	h.num = min(h.num*10+int(d-'0'), maxParam)
	if h.digits < 5 {
		h.first5 = h.first5*10 + int(d-'0')
	}
	h.digits++
}

// kind reports which clipboard request the number read so far names, as
// any terminal reads it.
func (h *oscHeader) kind() clipKind {
	switch {
	case h.num == 52 || h.digits > 5 && h.first5 == 52:
		return clip52
	case h.num == 5522 || h.digits > 5 && h.first5 == 5522:
		return clip5522
	}
	return clipNone
}

// metaByte reads a byte of OSC 5522 metadata, fields separated by ':'.
func (h *oscHeader) metaByte(c byte) {
	switch {
	case c == ':':
		h.read = h.read || h.field == len(typeRead)
		h.field = 0
	case h.field >= 0 && h.field < len(typeRead) && c == typeRead[h.field]:
		h.field++
	default:
		h.field = -1
	}
}

// isRead reports whether the metadata so far has a field type=read.
func (h *oscHeader) isRead() bool {
	return h.read || h.field == len(typeRead)
}
