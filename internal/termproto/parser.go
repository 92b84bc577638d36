package termproto

import (
	"bytes"
	"time"
)

// Timing policy of the Parser: nothing typed waits long, nothing pasted is lost.
const (
	// EscHold is how long an incomplete marker prefix (a lone ESC, "\x1b[",
	// "\x1b[20", ...) is held outside a paste before it is released as typed
	// bytes. A terminal writes a marker in one go, so its bytes arrive within
	// microseconds even when the kernel splits them across reads, while a
	// person notices an Esc key that lags by more than a few tens of
	// milliseconds: 10 ms is both.
	EscHold = 10 * time.Millisecond

	// PasteSilence is how long a paste stays open without input when its end
	// marker does not come. It must outlast every pause of a paste on its
	// way from the terminal: a paste relayed over a network (ssh, mosh)
	// stops for as long as the link does, and TCP alone waits 1, 2, 4, 8 s
	// ... before it sends a lost segment again. The caller counts silence
	// only while it waits for input, so that its own stalls do not count
	// (see Write). Waiting long costs only when the end marker never comes,
	// which a working terminal never does: the paste then reaches the child
	// that late, and the keys typed next are held with it as its rest (see
	// Flush). 30 s outlasts a working link's pauses, retransmissions
	// included, and is short enough for the user to see that something is
	// wrong.
	PasteSilence = 30 * time.Second
)

// Bracketed paste markers, as the terminal sends them around a paste while
// DEC private mode 2004 is on.
const (
	StartMarker = "\x1b[200~"
	EndMarker   = "\x1b[201~"
)

// DEC private mode 2004 set and reset: what turns bracketed paste on and
// off at the terminal.
const (
	PasteOn  = "\x1b[?2004h"
	PasteOff = "\x1b[?2004l"
)

const (
	esc = 0x1b

	// markerLen is the length of both markers; a held prefix is shorter.
	markerLen = len(StartMarker)
)

// The markers as the Parser compares them. They differ only in their fifth
// byte, so they share every prefix of up to four bytes (markerStem).
var (
	startMarker = []byte(StartMarker)
	endMarker   = []byte(EndMarker)
	markerStem  = []byte("\x1b[20")
)

// Sink receives the Parser's events. A slice passed to it is valid only
// during the call.
type Sink interface {
	// Typed receives keystrokes, as runs of bytes (never empty).
	Typed(p []byte)
	// PasteStart reports that a paste begins.
	PasteStart()
	// PasteData receives a run of the paste's body (never empty); the
	// markers are not part of it.
	PasteData(p []byte)
	// PasteEnd reports that the open paste ends.
	PasteEnd()
	// StrayEnd reports an EndMarker outside any paste, which is dropped: the
	// terminal sends one only to end a paste, so the bytes before it were a
	// paste's, one that had ended before its marker came.
	StrayEnd()
}

// Parser splits the user's input into typed bytes and pastes, emitting events
// to its Sink.
//
// Outside a paste it looks for StartMarker, which starts a paste, and for
// EndMarker, which is dropped (see Sink.StrayEnd); every other byte,
// including other escape sequences and a lone ESC, is typed. Inside a paste
// it looks only for EndMarker, and the first one ends the paste; a
// StartMarker inside a paste is data. Bytes are emitted as runs: one Typed or
// PasteData call per run of bytes within a Write, never byte by byte. Any
// split of the input across Writes gives the same events once adjacent runs
// of the same kind are merged; a marker split at any byte is recognised.
// Typed bytes and paste data together are always exactly the input without
// the recognised markers.
//
// A Write that ends with a proper prefix of a marker being looked for holds
// those bytes: the next Write completes or refutes the marker. The Parser has
// no clock: each Write and Flush returns the time at which the caller must
// call Flush if no input arrives before it. Write never ends a hold or a
// paste by itself, however late it is called.
//
// A paste that Flush ends for lack of input leaves the Parser expecting the
// paste's rest: the next bytes that are not a marker open a paste of their
// own, a continuation, without a StartMarker (see Flush).
//
// A Parser is not safe for concurrent use.
type Parser struct {
	sink    Sink
	inPaste bool
	cont    bool // the open paste is a continuation
	late    bool // the last paste ended at the silence: its rest may come

	// hold is a proper prefix of a marker being looked for, seen at the end
	// of the last Write; nhold is its length.
	hold  [markerLen - 1]byte
	nhold int

	holdAt time.Time // when the hold began, outside a paste
	lastIn time.Time // when input last arrived, inside a paste

	silence time.Duration // PasteSilence unless SetSilence changed it
}

// NewParser returns a Parser, outside a paste, that emits its events to s
// and ends a paste after PasteSilence without input.
func NewParser(s Sink) *Parser {
	return &Parser{sink: s, silence: PasteSilence}
}

// SetSilence sets how long a paste stays open without input in place of
// PasteSilence; d must be positive. It applies to the deadlines computed
// from then on. It is a seam for tests, which shorten the silence so as
// not to wait for it.
func (p *Parser) SetSilence(d time.Duration) {
	p.silence = d
}

// Write parses b, read at time now, emitting events to the sink. It returns
// the time at which Flush must be called if no more input arrives before it;
// the zero time means no deadline. Outside a paste that is EscHold after the
// current hold began; inside a paste, the paste silence after the last
// input. The Parser takes the times it is given for the truth: time in
// which the caller could not read (it was stopped, or busy in this call's
// sink) is not silence from the terminal, and the caller must not count it,
// by calling Flush that much later. An empty b is no input: it changes
// nothing and returns the current deadline.
func (p *Parser) Write(b []byte, now time.Time) (deadline time.Time) {
	if len(b) == 0 {
		return p.deadline()
	}
	if p.inPaste {
		p.lastIn = now
	}
	if p.nhold > 0 {
		b = p.resume(b, now)
	}
	p.scan(b, now)
	return p.deadline()
}

// Flush handles the passage of time. Outside a paste, a held marker prefix
// whose deadline has come (now is at least EscHold after the hold began) is
// released. Inside a paste, once now is at least the silence after the last
// input, any held bytes become PasteData and PasteEnd is emitted.
//
// The bytes after a paste that ended so cannot be told apart from its rest
// delayed (the terminal's link stalled for longer than the silence), which
// must not reach the child as keystrokes, with its newlines as Enter: they
// are taken as its rest. The next bytes that are not a marker, released
// hold included, open a continuation: PasteStart, then PasteData, until
// EndMarker or the silence, like any paste. A StartMarker instead starts a
// paste as usual, and an EndMarker (the paste's end, late) is dropped. A
// continuation that ends at the silence in turn is not continued: what
// comes after it is typed.
//
// Calling Flush early is harmless. It returns the next deadline (zero if
// none).
func (p *Parser) Flush(now time.Time) (deadline time.Time) {
	d := p.deadline()
	switch {
	case d.IsZero() || now.Before(d):
	case p.inPaste:
		p.release(now)
		p.timeout()
	default:
		p.release(p.holdAt)
	}
	return p.deadline()
}

// Close ends the input: held bytes are released (as Typed outside a paste,
// as PasteData inside), and an open paste ends with PasteEnd. The Parser is
// then as new, and a later Write starts a fresh input.
func (p *Parser) Close() {
	p.late = false
	p.release(time.Time{})
	if p.inPaste {
		p.end()
	}
	p.holdAt, p.lastIn = time.Time{}, time.Time{}
}

// InPaste reports whether a paste is open.
func (p *Parser) InPaste() bool {
	return p.inPaste
}

// Unfinished reports whether the input so far stops in the middle of
// something: an open paste, or a held marker prefix. More input, or the
// deadline, is needed to know what it is.
func (p *Parser) Unfinished() bool {
	return p.inPaste || p.nhold > 0
}

// HeldSince is when the held marker prefix outside a paste was read, the
// zero time when none is held: the bytes a Flush releases as typed came
// then, not at the Flush.
func (p *Parser) HeldSince() time.Time {
	if p.nhold == 0 || p.inPaste {
		return time.Time{}
	}
	return p.holdAt
}

// Deadline is when Flush is owed, or the zero time: what the last Write or
// Flush returned.
func (p *Parser) Deadline() time.Time { return p.deadline() }

// deadline is when Flush is owed, or the zero time.
func (p *Parser) deadline() time.Time {
	switch {
	case p.inPaste:
		return p.lastIn.Add(p.silence)
	case p.nhold > 0:
		return p.holdAt.Add(EscHold)
	}
	return time.Time{}
}

// isPrefix reports whether b, at most markerLen bytes, is a marker being
// looked for or a prefix of one.
func (p *Parser) isPrefix(b []byte) bool {
	return bytes.HasPrefix(endMarker, b) || !p.inPaste && bytes.HasPrefix(startMarker, b)
}

// find returns the index of the first marker being looked for in b, and
// whether it is EndMarker; the index is -1 if there is none.
func (p *Parser) find(b []byte) (i int, isEnd bool) {
	if p.inPaste {
		return bytes.Index(b, endMarker), true
	}
	for off := 0; ; {
		i := bytes.Index(b[off:], markerStem)
		if i < 0 {
			return -1, false
		}
		i += off
		if m := b[i:min(len(b), i+markerLen)]; len(m) == markerLen && p.isPrefix(m) {
			return i, m[len(markerStem)] == '1'
		}
		off = i + 1
	}
}

// resume continues the held marker prefix with b and returns what is left of
// b to scan. The markers have a single ESC, at their start, so once the held
// prefix is refuted none of its bytes can start a marker: they are released
// and all of b is scanned afresh.
func (p *Parser) resume(b []byte, now time.Time) []byte {
	var buf [markerLen]byte
	k := min(markerLen-p.nhold, len(b))
	m := append(append(buf[:0], p.hold[:p.nhold]...), b[:k]...)
	switch {
	case !p.isPrefix(m):
		p.release(p.holdAt)
		return b
	case len(m) < markerLen:
		p.nhold += copy(p.hold[p.nhold:], b)
		return nil
	}
	p.nhold = 0
	p.marker(m[len(markerStem)] == '1', now)
	return b[k:]
}

// scan emits b, which follows no held bytes, as runs and markers, and holds a
// marker prefix at its end.
func (p *Parser) scan(b []byte, now time.Time) {
	for len(b) > 0 {
		if p.late && !p.isPrefix(b[:min(len(b), markerLen)]) {
			p.continuePaste(now) // The bytes of b are the late paste's rest.
		}
		i, isEnd := p.find(b)
		if i < 0 {
			p.scanTail(b, now)
			return
		}
		p.emit(b[:i], now)
		p.marker(isEnd, now)
		b = b[i+markerLen:]
	}
}

// scanTail emits b, which holds no complete marker, except for a proper
// prefix of a marker at its end, which it holds. Only the last ESC of b can
// start such a prefix, since the markers have no other ESC.
func (p *Parser) scanTail(b []byte, now time.Time) {
	from := max(0, len(b)-(markerLen-1))
	i := bytes.LastIndexByte(b[from:], esc)
	if i < 0 || !p.isPrefix(b[from+i:]) {
		p.emit(b, now)
		return
	}
	i += from
	p.emit(b[:i], now)
	p.nhold = copy(p.hold[:], b[i:])
	p.holdAt = now
}

// marker handles a recognised marker: EndMarker if isEnd, else StartMarker.
func (p *Parser) marker(isEnd bool, now time.Time) {
	switch {
	case p.inPaste:
		p.end()
	case isEnd:
		p.late = false
		p.sink.StrayEnd()
	default:
		p.late = false
		p.inPaste, p.cont = true, false
		p.lastIn = now
		p.sink.PasteStart()
	}
}

// continuePaste opens the continuation of a paste that ended at the
// silence, its first input at time at.
func (p *Parser) continuePaste(at time.Time) {
	p.late = false
	p.inPaste, p.cont = true, true
	p.lastIn = at
	p.sink.PasteStart()
}

// end ends the open paste.
func (p *Parser) end() {
	p.inPaste, p.cont = false, false
	p.sink.PasteEnd()
}

// timeout ends the open paste for lack of input; unless it was a
// continuation, its rest may still come.
func (p *Parser) timeout() {
	p.late = !p.cont
	p.end()
}

// release emits the held bytes, which arrived at time at, as what they are,
// not a marker.
func (p *Parser) release(at time.Time) {
	n := p.nhold
	p.nhold = 0
	p.emit(p.hold[:n], at)
}

// emit passes a run of bytes that arrived at time at to the sink: Typed
// outside a paste, PasteData inside, after opening the continuation of a
// late paste (see Flush). An empty run is not emitted.
func (p *Parser) emit(b []byte, at time.Time) {
	if len(b) == 0 {
		return
	}
	if p.late {
		p.continuePaste(at)
	}
	if p.inPaste {
		p.sink.PasteData(b)
		return
	}
	p.sink.Typed(b)
}
