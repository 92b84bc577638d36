package capture

import (
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// burstStage takes a large paste the terminal did not mark by what each
// read brings (termproto.Burst, see BurstMode): it passes on typed bytes
// as they are read, and such pastes (pasteBurst). It is on or off as
// Looks says, from the --burst mode, the front end (Config.Marks) and what
// the terminal has said (answer): it follows the terminal's answers to
// Ask (answersHeard) and turns off at the first marked paste
// (marksPastes); while off it is bypassed. A paste another stage found ends the burst under
// way first: what it held goes on before the paste.
type burstStage struct {
	link
	in     *Input
	burst  *termproto.Burst // nil while the stage is off
	answer Answer           // what the terminal has said of marking pastes (see Looks)
	// at, during input, is when the bytes being written were read: typed
	// bytes the detector lets go then go on with it; the zero time
	// otherwise (they go on with the time of the call, Input.now).
	at time.Time
}

func newBurstStage(in *Input) *burstStage {
	b := &burstStage{in: in}
	look, why := Looks(in.cfg.Burst, in.cfg.Marks, AnswerNone)
	if look {
		b.look()
		in.cfg.Debugf("paste: %s: looking for large unmarked pastes (keys and lines pass as they are read)", why)
	} else {
		in.cfg.Debugf("paste: %s: unmarked input is typing", why)
	}
	return b
}

// decide turns the stage on or off, as Looks says now.
func (b *burstStage) decide() {
	switch look, why := Looks(b.in.cfg.Burst, b.in.cfg.Marks, b.answer); {
	case look && b.burst == nil:
		b.look()
		b.in.relink()
		b.in.cfg.Debugf("paste: %s: looking for large unmarked pastes (keys and lines pass as they are read)", why)
	case !look && b.burst != nil:
		b.stopLooking()
		b.in.relink()
		b.in.cfg.Debugf("paste: %s: unmarked input is typing from now on", why)
	}
}

// look turns the stage on.
func (b *burstStage) look() {
	if b.burst == nil {
		b.burst = termproto.NewBurst(burstEvents{b}, b.in.cfg.MinBytes, b.in.cfg.MinLines)
		if b.in.cfg.BurstGap > 0 {
			b.burst.SetGap(b.in.cfg.BurstGap)
		}
	}
}

// stopLooking turns the stage off: what is held goes on first.
func (b *burstStage) stopLooking() {
	if b.burst != nil {
		b.burst.End()
		b.burst = nil
	}
}

// end ends the burst under way, if any: what it held goes on.
func (b *burstStage) end() {
	if b.burst != nil {
		b.burst.End()
	}
}

func (b *burstStage) input(p []byte, at time.Time) {
	if b.burst == nil {
		b.next.input(p, at)
		return
	}
	b.at = at
	b.burst.Write(p, at)
	b.at = time.Time{}
}

// pasteStart ends the burst under way.
func (b *burstStage) pasteStart(k pasteKind) {
	b.end()
	b.next.pasteStart(k)
}

// strayEnd ends the burst under way: the marker is a paste's.
func (b *burstStage) strayEnd() {
	b.end()
	b.next.strayEnd()
}

func (b *burstStage) flush(now time.Time) {
	if b.burst != nil {
		b.burst.Flush(now)
	}
}

func (b *burstStage) close() { b.end() }

func (b *burstStage) deadline() time.Time {
	if b.burst == nil {
		return time.Time{}
	}
	return b.burst.Deadline()
}

// pending: input is held, or an unmarked paste is open.
func (b *burstStage) pending() bool { return b.burst != nil && b.burst.Pending() }

// done: while a paste is held or open, the detector learns when the
// call's work was done: what came while it was busy was waiting, no
// pause of the terminal's (see termproto.Burst.Busy).
func (b *burstStage) done(clock func() time.Time) {
	if b.burst != nil && b.burst.Pending() {
		b.burst.Busy(clock())
	}
}

// heard: the answers to Ask decide; a marked paste says more than any
// answer: this terminal marks its pastes (AnswerMarks).
func (b *burstStage) heard(n notice, now time.Time) {
	switch {
	case n == answersHeard:
		b.answers(now)
	case n == marksPastes && b.answer != AnswerMarks:
		b.answer = AnswerMarks
		b.decide()
	}
}

// bypassed: while off, the stage has nothing to do with the input.
func (b *burstStage) bypassed() bool { return b.burst == nil }

// answers takes, with BurstAuto, what the terminal has answered by now
// (Input.replies), and decides by Looks: a DECRQM answer counts (a late
// one too); DA1 without it, or AnswerWait without either, means it does
// not say. A marked paste has said more than any answer.
func (b *burstStage) answers(now time.Time) {
	r := b.in.replies
	if b.in.cfg.Burst != BurstAuto || r.askedAt.IsZero() {
		return
	}
	was := b.answer
	switch marks, known := r.replies.Marks(); {
	case was == AnswerMarks:
	case known && marks:
		b.answer = AnswerMarks
	case known:
		b.answer = AnswerNoMarks
	case was == AnswerNone && (r.replies.AnsweredDA1() || r.answerWaited(now)):
		b.answer = AnswerSilent
	}
	if b.answer != was {
		b.in.cfg.Debugf("paste: asked whether it marks pastes, the terminal %v", b.answer)
		b.decide()
	}
}

// burstEvents is the detector's Sink: keystrokes go on, and a burst is a
// paste (see BurstMode).
type burstEvents struct{ b *burstStage }

func (e burstEvents) Typed(p []byte) {
	at := e.b.at
	if at.IsZero() {
		at = e.b.in.now
	}
	e.b.next.input(p, at)
}

func (e burstEvents) PasteStart()        { e.b.next.pasteStart(pasteBurst) }
func (e burstEvents) PasteData(p []byte) { e.b.next.pasteData(p) }
func (e burstEvents) PasteEnd()          { e.b.next.pasteEnd() }
func (e burstEvents) StrayEnd()          {} // The detector emits none.
