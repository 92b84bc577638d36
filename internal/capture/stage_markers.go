package capture

import (
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// markersStage tells the terminal's paste markers apart
// (termproto.Parser): it passes on typed bytes, with the time they were
// read (a marker prefix it held, with the time the hold began), and
// marked pastes (pasteMarked) without their markers. A paste whose end
// marker does not come ends at the silence (Config.Silence), and the
// other stages hear it (pasteSilent), as they hear that a marked paste
// starts (marksPastes).
type markersStage struct {
	link
	in     *Input
	parser *termproto.Parser
	at     time.Time // when the typed bytes the parser emits were read
}

func newMarkersStage(in *Input) *markersStage {
	m := &markersStage{in: in}
	m.parser = termproto.NewParser(markerEvents{m})
	if in.cfg.Silence > 0 {
		m.parser.SetSilence(in.cfg.Silence)
	}
	return m
}

func (m *markersStage) input(p []byte, at time.Time) {
	m.at = at
	m.parser.Write(p, at)
}

// flush: what the parser releases was read when its hold began.
func (m *markersStage) flush(now time.Time) {
	if m.at = m.parser.HeldSince(); m.at.IsZero() {
		m.at = now
	}
	inPaste := m.parser.InPaste()
	if m.parser.Flush(now); inPaste && !m.parser.InPaste() {
		m.in.notify(pasteSilent, now) // Ended at the silence: what follows is looked into.
	}
}

func (m *markersStage) close() {
	m.at = m.in.now
	m.parser.Close()
}

func (m *markersStage) deadline() time.Time { return m.parser.Deadline() }
func (m *markersStage) pending() bool       { return m.parser.Unfinished() }

// markerEvents is the parser's Sink.
type markerEvents struct{ m *markersStage }

func (e markerEvents) Typed(p []byte) { e.m.next.input(p, e.m.at) }
func (e markerEvents) PasteStart() {
	e.m.in.notify(marksPastes, e.m.in.now)
	e.m.next.pasteStart(pasteMarked)
}

func (e markerEvents) PasteData(p []byte) { e.m.next.pasteData(p) }
func (e markerEvents) PasteEnd()          { e.m.next.pasteEnd() }
func (e markerEvents) StrayEnd()          { e.m.next.strayEnd() }
