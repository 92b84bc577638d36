package bracketed

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
	// marker never comes (the terminal died, or dropped the marker). Terminals
	// write a paste as fast as the PTY takes it, so 2 s of silence means it is
	// over; waiting longer would swallow the user's next keystrokes as paste.
	PasteSilence = 2 * time.Second
)

// Bracketed paste markers, as the terminal sends them around a paste while
// DEC private mode 2004 is on.
const (
	StartMarker = "\x1b[200~"
	EndMarker   = "\x1b[201~"
)

const (
	esc = 0x1b

	// markerLen is the length of both markers; a held prefix is shorter.
	markerLen = len(StartMarker)
)

// The markers as the Parser compares them.
var (
	startMarker = []byte(StartMarker)
	endMarker   = []byte(EndMarker)
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
}

// Parser splits the user's input into typed bytes and pastes, emitting events
// to its Sink.
//
// Outside a paste it looks only for StartMarker; every other byte, including
// other escape sequences and a lone ESC, is typed. Inside a paste it looks
// only for EndMarker, and the first one ends the paste; a StartMarker inside
// a paste is data. Bytes are emitted as runs: one Typed or PasteData call per
// run of bytes within a Write, never byte by byte. Any split of the input
// across Writes gives the same events once adjacent runs of the same kind are
// merged; a marker split at any byte is recognised. Typed bytes and paste data
// together are always exactly the input without the recognised markers.
//
// A Write that ends with a proper prefix of the marker being looked for holds
// those bytes: the next Write completes or refutes the marker. The Parser has
// no clock: each Write and Flush returns the time at which the caller must
// call Flush if no input arrives before it. Write never ends a hold or a paste
// by itself, however late it is called.
//
// A Parser is not safe for concurrent use.
type Parser struct {
	sink    Sink
	inPaste bool

	// hold is a proper prefix of the marker being looked for, seen at the
	// end of the last Write; nhold is its length.
	hold  [markerLen - 1]byte
	nhold int

	holdAt time.Time // when the hold began, outside a paste
	lastIn time.Time // when input last arrived, inside a paste
}

// NewParser returns a Parser, outside a paste, that emits its events to s.
func NewParser(s Sink) *Parser {
	return &Parser{sink: s}
}

// Write parses b, read at time now, emitting events to the sink. It returns
// the time at which Flush must be called if no more input arrives before it;
// the zero time means no deadline. Outside a paste that is EscHold after the
// current hold began; inside a paste, PasteSilence after the last input. An
// empty b is no input: it changes nothing and returns the current deadline.
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
// released as Typed. Inside a paste, once now is at least PasteSilence after
// the last input, any held bytes become PasteData and PasteEnd is emitted.
// Calling Flush early is harmless. It returns the next deadline (zero if
// none).
func (p *Parser) Flush(now time.Time) (deadline time.Time) {
	if d := p.deadline(); !d.IsZero() && !now.Before(d) {
		p.release()
		if p.inPaste {
			p.end()
		}
	}
	return p.deadline()
}

// Close ends the input: held bytes are released (as Typed outside a paste,
// as PasteData inside), and an open paste ends with PasteEnd. The Parser is
// then as new, and a later Write starts a fresh input.
func (p *Parser) Close() {
	p.release()
	if p.inPaste {
		p.end()
	}
	p.holdAt, p.lastIn = time.Time{}, time.Time{}
}

// InPaste reports whether a paste is open.
func (p *Parser) InPaste() bool {
	return p.inPaste
}

// deadline is when Flush is owed, or the zero time.
func (p *Parser) deadline() time.Time {
	switch {
	case p.inPaste:
		return p.lastIn.Add(PasteSilence)
	case p.nhold > 0:
		return p.holdAt.Add(EscHold)
	}
	return time.Time{}
}

// marker is the marker being looked for.
func (p *Parser) marker() []byte {
	if p.inPaste {
		return endMarker
	}
	return startMarker
}

// resume continues the held marker prefix with b and returns what is left of
// b to scan. The marker has a single ESC, at its start, so once the held
// prefix is refuted none of its bytes can start a marker: they are released
// and all of b is scanned afresh.
func (p *Parser) resume(b []byte, now time.Time) []byte {
	need := p.marker()[p.nhold:]
	k := min(len(need), len(b))
	switch {
	case !bytes.Equal(b[:k], need[:k]):
		p.release()
		return b
	case k < len(need):
		p.nhold += copy(p.hold[p.nhold:], b)
		return nil
	}
	p.nhold = 0
	p.toggle(now)
	return b[k:]
}

// scan emits b, which follows no held bytes, as runs and markers, and holds a
// marker prefix at its end.
func (p *Parser) scan(b []byte, now time.Time) {
	for len(b) > 0 {
		m := p.marker()
		i := bytes.Index(b, m)
		if i < 0 {
			p.scanTail(b, now)
			return
		}
		p.emit(b[:i])
		p.toggle(now)
		b = b[i+len(m):]
	}
}

// scanTail emits b, which holds no complete marker, except for a proper
// prefix of the marker at its end, which it holds. Only the last ESC of b can
// start such a prefix, since the marker has no other ESC.
func (p *Parser) scanTail(b []byte, now time.Time) {
	from := max(0, len(b)-(markerLen-1))
	i := bytes.LastIndexByte(b[from:], esc)
	if i < 0 || !bytes.HasPrefix(p.marker(), b[from+i:]) {
		p.emit(b)
		return
	}
	i += from
	p.emit(b[:i])
	p.nhold = copy(p.hold[:], b[i:])
	p.holdAt = now
}

// toggle handles a recognised marker: a paste starts or ends.
func (p *Parser) toggle(now time.Time) {
	if p.inPaste {
		p.end()
		return
	}
	p.inPaste = true
	p.lastIn = now
	p.sink.PasteStart()
}

// end ends the open paste.
func (p *Parser) end() {
	p.inPaste = false
	p.sink.PasteEnd()
}

// release emits the held bytes as what they are, not a marker.
func (p *Parser) release() {
	n := p.nhold
	p.nhold = 0
	p.emit(p.hold[:n])
}

// emit passes a run of bytes to the sink: Typed outside a paste, PasteData
// inside. An empty run is not emitted.
func (p *Parser) emit(b []byte) {
	switch {
	case len(b) == 0:
	case p.inPaste:
		p.sink.PasteData(b)
	default:
		p.sink.Typed(b)
	}
}
