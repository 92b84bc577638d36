package bracketed

import (
	"bytes"
	"sync/atomic"
)

const (
	// maxSeqLen caps the length of a mode sequence the filter recognises,
	// and so the bytes it holds. Real set/reset sequences carry a handful of
	// parameters; the cap bounds what a garbled or hostile stream can make it
	// hold. A longer sequence is passed through as is, 2004 and all, whatever
	// the chunking.
	maxSeqLen = 64

	// csiPrivate starts a DEC private mode set or reset.
	csiPrivate = "\x1b[?"
	// modeSet and modeReset are the final bytes of a set and a reset.
	modeSet, modeReset = 'h', 'l'
	// pasteMode is the parameter of bracketed paste, DEC private mode 2004.
	pasteMode = "2004"
	// reset is RIS, the full reset, which turns bracketed paste off at the
	// terminal along with every other mode.
	reset = "\x1bc"
	// enablePaste turns bracketed paste back on after a reset.
	enablePaste = csiPrivate + pasteMode + "h"
)

// ModeFilter filters the child's output on its way to the terminal. It tracks
// DEC private mode 2004 (bracketed paste) as set and reset by the child and
// removes the 2004 parameter from those sequences, so the child can never
// turn the terminal's mode off (pbwrap keeps it on).
//
// A DEC private mode set or reset is ESC [ ? params h (or l), where params are
// decimal numbers separated by ';'. When a parameter equals 2004 (so 02004
// counts), the child's mode becomes on (h) or off (l) and every such parameter
// is removed: "\x1b[?2004h" disappears, "\x1b[?1049;2004h" becomes
// "\x1b[?1049h". Other parameters are kept as written. RIS (ESC c) passes
// through followed by "\x1b[?2004h", and the child's mode becomes off. Every
// other byte passes unchanged: other CSI sequences, DECRQM ("\x1b[?2004$p"),
// text. A sequence longer than 64 bytes is passed through as is. The filter
// does not track strings (OSC, DCS): an ESC inside one is read like any other,
// as terminals do when they abort the string there.
//
// Any split of the output across Writes, followed by Flush, gives the same
// concatenated result as one Write of the whole and Flush. The zero value is ready to use. Write and
// Flush must not be called concurrently; Enabled may be called from any
// goroutine. A ModeFilter must not be copied after first use.
type ModeFilter struct {
	enabled atomic.Bool

	// hold is an incomplete sequence, at the end of the last Write, that
	// could still become a mode set/reset or RIS; nhold is its length.
	hold  [maxSeqLen]byte
	nhold int

	buf []byte // the result, when it cannot alias the input
}

// Write filters p and returns what to pass on. The result may alias p when
// nothing changes and may alias an internal buffer otherwise; it is valid
// until the next call. An incomplete sequence at the end of p that could still
// be a DEC private mode set/reset (or RIS) is held until the next Write or
// Flush. A chunk without ESC, when nothing is held, is returned as is at no
// cost.
func (f *ModeFilter) Write(p []byte) []byte {
	if f.nhold == 0 && bytes.IndexByte(p, esc) < 0 {
		return p
	}
	o := output{src: p, buf: f.buf[:0]}
	i := 0
	if f.nhold > 0 {
		i = f.resume(&o)
	}
	res := f.filter(&o, i)
	f.buf = o.buf[:0]
	return res
}

// Flush returns the held incomplete sequence unchanged (end of stream, or it
// has waited too long), and nil when nothing is held. The result is valid
// until the next call.
func (f *ModeFilter) Flush() []byte {
	if f.nhold == 0 {
		return nil
	}
	n := f.nhold
	f.nhold = 0
	return f.hold[:n]
}

// Pending reports whether bytes are held.
func (f *ModeFilter) Pending() bool {
	return f.nhold > 0
}

// Enabled reports whether the child has mode 2004 on: it set it last, and
// neither reset it nor sent RIS since. Safe for concurrent use.
func (f *ModeFilter) Enabled() bool {
	return f.enabled.Load()
}

// resume completes the held sequence with the start of o.src and returns the
// index in o.src at which filtering goes on.
func (f *ModeFilter) resume(o *output) int {
	var seq [maxSeqLen]byte
	held := copy(seq[:], f.hold[:f.nhold])
	n := held + copy(seq[held:], o.src)
	kind, size := classify(seq[:n])
	switch kind {
	case seqIncomplete:
		// Incomplete means shorter than maxSeqLen, so all of o.src fit.
		f.nhold += copy(f.hold[held:], o.src)
		o.replace(0, len(o.src), nil)
		return len(o.src)
	case seqNone:
		f.nhold = 0
		o.replace(0, 0, f.hold[:held])
		return 0
	}
	f.nhold = 0
	var scratch [maxSeqLen + len(enablePaste)]byte
	rep, changed := f.apply(scratch[:0], seq[:size], kind)
	if !changed {
		rep = seq[:size]
	}
	o.replace(0, size-held, rep)
	return size - held
}

// filter filters o.src from index i, which follows no held bytes, holds an
// incomplete sequence at its end, and returns the result.
func (f *ModeFilter) filter(o *output, i int) []byte {
	p := o.src
	for {
		j := bytes.IndexByte(p[i:], esc)
		if j < 0 {
			return o.result(len(p))
		}
		i += j
		kind, size := classify(p[i:])
		switch kind {
		case seqNone:
			i++
			continue
		case seqIncomplete:
			f.nhold = copy(f.hold[:], p[i:])
			return o.result(i)
		}
		var scratch [maxSeqLen + len(enablePaste)]byte
		if rep, changed := f.apply(scratch[:0], p[i:i+size], kind); changed {
			o.replace(i, i+size, rep)
		}
		i += size
	}
}

// apply records the effect of seq, a mode set/reset or RIS, on the child's
// mode, appends what to pass on instead to dst, and reports whether that
// differs from seq.
func (f *ModeFilter) apply(dst, seq []byte, kind seqKind) ([]byte, bool) {
	if kind == seqReset {
		f.enabled.Store(false)
		return append(append(dst, seq...), enablePaste...), true
	}
	params, final := seq[len(csiPrivate):len(seq)-1], seq[len(seq)-1]
	if !bytes.Contains(params, []byte(pasteMode)) {
		return dst, false // the common case, ?25h and the like
	}
	start := len(dst)
	dst = append(dst, csiPrivate...)
	dst, kept, dropped := appendParams(dst, params)
	if !dropped {
		return dst[:start], false
	}
	f.enabled.Store(final == modeSet)
	if kept == 0 {
		return dst[:start], true
	}
	return append(dst, final), true
}

// appendParams appends to dst the parameters of params other than 2004,
// separated by ';', and reports how many it kept and whether it dropped any.
func appendParams(dst, params []byte) (out []byte, kept int, dropped bool) {
	for rest, more := params, true; more; {
		var field []byte
		field, rest, more = bytes.Cut(rest, []byte{';'})
		if isPasteMode(field) {
			dropped = true
			continue
		}
		if kept > 0 {
			dst = append(dst, ';')
		}
		dst = append(dst, field...)
		kept++
	}
	return dst, kept, dropped
}

// isPasteMode reports whether the decimal parameter field is 2004, leading
// zeros allowed.
func isPasteMode(field []byte) bool {
	return string(bytes.TrimLeft(field, "0")) == pasteMode
}

// seqKind classifies the bytes from an ESC.
type seqKind int

const (
	seqNone       seqKind = iota // not a mode set/reset or RIS: pass the ESC on
	seqIncomplete                // could still become one: more bytes needed
	seqMode                      // ESC [ ? [0-9;]* (h|l)
	seqReset                     // ESC c
)

// classify reports what b, which starts with ESC, begins with, and for a
// complete sequence its length. It reads at most maxSeqLen bytes, and reports
// seqIncomplete only for fewer.
func classify(b []byte) (seqKind, int) {
	switch {
	case len(b) < 2:
		return seqIncomplete, 0
	case b[1] == reset[1]:
		return seqReset, len(reset)
	case b[1] != csiPrivate[1]:
		return seqNone, 0
	case len(b) < 3:
		return seqIncomplete, 0
	case b[2] != csiPrivate[2]:
		return seqNone, 0
	}
	for i := len(csiPrivate); i < min(len(b), maxSeqLen); i++ {
		switch c := b[i]; {
		case c == modeSet || c == modeReset:
			return seqMode, i + 1
		case c != ';' && (c < '0' || c > '9'):
			return seqNone, 0
		}
	}
	if len(b) >= maxSeqLen {
		return seqNone, 0
	}
	return seqIncomplete, 0
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
