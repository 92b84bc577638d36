package termproto

// maxClipHeader bounds what an OutputFilter holds back of an OSC before it
// knows whether it reads the clipboard: real headers ("52;c;", kitty's
// "5522;type=read:id=...;") are far shorter, and a longer one is dropped
// as if it were a read, so that a padded read cannot slip through.
const maxClipHeader = 512

// clipVerdict is what the start of an OSC turns out to be.
type clipVerdict uint8

const (
	clipUndecided clipVerdict = iota
	clipPass                  // not a clipboard read: it passes
	clipRead                  // a clipboard read: it is dropped
)

// clipKind is the kind of a clipboard request, by its OSC number.
type clipKind uint8

const (
	clipNone clipKind = iota
	clip52            // OSC 52: xterm's clipboard
	clip5522          // OSC 5522: kitty's clipboard
)

// clipStage is where a clipHeader is in the start of an OSC.
type clipStage uint8

const (
	clipNum  clipStage = iota // the OSC number
	clipSel                   // an OSC 52's selection
	clipData                  // an OSC 52 before its first data byte
	clipMeta                  // an OSC 5522's metadata
)

// clipHeader reads the start of an OSC's contents and tells whether it
// reads the clipboard: an OSC 52 whose data starts with "?" (a "?" in its
// selection counts too, as in ESC ] 52 ; ?: no selection has one, and a
// terminal may take the rest for the data), or an OSC 5522 whose metadata
// has a field type=read. The number is read with leading zeros and
// without the C0 controls and DEL that terminals skip (xterm.js removes
// C0 controls from the whole string), and also as kitty reads it, by its
// first five digits only, and as foot reads it, wrapped round in 32 bits. Bytes from 0x80 up are skipped as C0 controls
// are: a terminal may drop them, and see a read the bytes hide.
type clipHeader struct {
	stage  clipStage
	digits int // digits of the number, leading zeros included
	num    int // its value
	// num32 and num64 are its value wrapped round as foot reads it, in
	// an unsigned int that overflows.
	num32  uint32
	num64  uint64
	first5 int // the value of its first five digits, as kitty reads it
	field  int // how much of typeRead the current metadata field matches; -1 once it cannot
	read   bool
}

// typeRead is the metadata field of kitty's clipboard read request.
const typeRead = "type=read"

// kind reports which clipboard request the number read so far names.
func (h *clipHeader) kind() clipKind {
	switch {
	case h.num == 52 || h.digits > 5 && (h.first5 == 52 || h.num32 == 52 || h.num64 == 52):
		return clip52
	case h.num == 5522 || h.digits > 5 && (h.first5 == 5522 || h.num32 == 5522 || h.num64 == 5522):
		return clip5522
	}
	return clipNone
}

// skipped reports whether a terminal may skip c inside an OSC: a C0
// control (BEL, CAN, SUB and ESC end the string before it gets here), DEL,
// or a byte of a non-ASCII character (xterm.js drops invalid UTF-8).
func skipped(c byte) bool { return c < 0x20 || c >= del }

// feed reads the next byte of the OSC's contents.
func (h *clipHeader) feed(c byte) clipVerdict {
	if skipped(c) {
		return clipUndecided
	}
	switch h.stage {
	case clipNum:
		if c >= '0' && c <= '9' {
			h.num = min(h.num*10+int(c-'0'), MaxParamValue/10)
			h.num32 = h.num32*10 + uint32(c-'0')
			h.num64 = h.num64*10 + uint64(c-'0')
			if h.digits < 5 {
				h.first5 = h.first5*10 + int(c-'0')
			}
			h.digits++
			return clipUndecided
		}
		switch h.kind() {
		case clip52:
			h.stage = clipSel
		case clip5522:
			h.stage, h.field = clipMeta, 0
		default:
			return clipPass
		}
		if c == ';' {
			return clipUndecided
		}
		return h.feed(c) // Kitty reads "52x" as 52 with "x" starting the selection.
	case clipSel:
		switch c {
		case ';':
			h.stage = clipData
		case '?':
			return clipRead
		}
	case clipData:
		if c == '?' {
			return clipRead
		}
		return clipPass // A write: its data passes.
	case clipMeta:
		switch {
		case c == ';' && h.isRead():
			return clipRead // The payload, a list of types, goes with it.
		case c == ';':
			return clipPass
		case c == ':':
			h.read = h.read || h.field == len(typeRead)
			h.field = 0
		case h.field >= 0 && h.field < len(typeRead) && c == typeRead[h.field]:
			h.field++
		default:
			h.field = -1
		}
	}
	return clipUndecided
}

// end decides, at the end of the OSC (t), what its start not yet decided
// is: a request cut short, a read ended without payload, or an OSC that
// reads nothing.
func (h *clipHeader) end(t Terminator) clipVerdict {
	switch {
	case h.stage == clipNum && h.kind() == clipNone:
		return clipPass
	case t == TermCut:
		// Terminals disagree on whether such a string goes on (kitty reads
		// on, xterm and tmux stop): dropping its start is safe for both.
		return clipRead
	case h.stage == clipMeta && h.isRead():
		return clipRead
	}
	return clipPass // An empty write, or metadata alone (kitty's write start).
}

// isRead reports whether the metadata so far has a field type=read.
func (h *clipHeader) isRead() bool {
	return h.read || h.field == len(typeRead)
}
