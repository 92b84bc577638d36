package capture

import (
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// The clip stage takes kitty's OSC 5522 packets out of the input
// (kittyclip.Scanner): the terminal's paste events and its replies to
// pbwrap's reads go to the image paste policy (imagepaste.Paster, see
// clip in image.go), everything else on, with the time it was read. The
// clipboard text of a paste event is a paste it passes on (pasteClip); an
// image is saved, and its path typed, by the policy. While a paste event
// is under way, the input after it is held (heldInput), and goes on once
// the event is over. Once the terminal has said it has no paste events
// (unused), input that the stage holds nothing before goes straight on.

// input scans input from the terminal: packets to the policy, the rest
// on, held while a paste event is under way.
func (c *clip) input(p []byte, now time.Time) {
	if !c.scanning() {
		c.next.input(p, now)
		return
	}
	c.ready()
	c.paster.Heard(now)
	c.scanner.Write(p, now)
	c.settle(now)
}

// flush lets time pass for the scanner and the policy.
func (c *clip) flush(now time.Time) {
	c.ready()
	// A prefix the scanner passes on now (a lone Esc) was read at
	// HeldSince: the keys after it wait from then, not twice EscHold.
	c.passAt = c.scanner.HeldSince()
	c.scanner.Flush(now)
	c.passAt = time.Time{}
	c.paster.Flush(now)
	c.release()
	c.settle(now)
}

// close ends the input: a held prefix passes on, a packet cut off is
// lost (and with it a paste event under way), held input goes on, the
// images being checked are waited for.
func (c *clip) close() {
	c.scanner.Close()
	if c.paster.Busy() {
		c.paster.Lost(c.in.now)
	}
	c.release()
	c.wait()
	c.ready()
}

// deadline is the earliest of the scanner's, the policy's, the settling
// of what the output holds, and the next look at the images checked off
// the input path.
func (c *clip) deadline() time.Time {
	d := earliest(c.scanner.Deadline(), c.paster.Deadline())
	if !c.owedAt.IsZero() {
		d = earliest(d, c.lookAt)
	}
	if len(c.jobs) > 0 {
		d = earliest(d, c.in.now.Add(imagePoll))
	}
	return d
}

// scanning reports whether input must go through the scanner: unless
// paste events are unused and the scanner holds nothing.
func (c *clip) scanning() bool { return !c.unused || c.pending() }

// pending reports whether input is held: a packet or a paste event is
// under way, or a prefix of one.
func (c *clip) pending() bool { return !c.scanner.Idle() || c.paster.Busy() || !c.held.empty() }

// heard: the terminal's answers decide ImageAuto; a paste the markers
// stage ended at its silence has ended for the scanner too, which looks
// into what follows.
func (c *clip) heard(n notice, now time.Time) {
	switch n {
	case answersHeard:
		c.decide(now)
	case pasteSilent:
		c.scanner.EndPaste()
	}
}

// decide turns paste events on with ImageAuto once the terminal has said
// it has them (DECRQM 1 or 2 for mode 5522), or decides against them when
// it has answered DA1 without that, or not at all within AnswerWait.
func (c *clip) decide(now time.Time) {
	in, r := c.in, c.in.replies
	if c.decided || r.askedAt.IsZero() {
		return
	}
	switch a := r.replies.Clip(); {
	case a == termproto.ModeSet || a == termproto.ModeReset:
		c.decided = true
		in.cfg.Debugf("image paste: the terminal has paste events (DECRQM 5522 %c): on", a)
		c.terminal(c.paster.Enable())
	case a != termproto.ModeUnanswered || r.replies.Done() || r.answerWaited(now):
		c.decided = true
		c.unused = a == termproto.ModeNotRecognized || a == termproto.ModePermanentOff
		in.cfg.Debugf("image paste: the terminal has no paste events (DECRQM 5522 %s): off", answerName(a))
	}
}

func answerName(a byte) string {
	if a == termproto.ModeUnanswered {
		return "no answer"
	}
	return string(a)
}

// release passes on the input held during a paste event, once it is over;
// while it is not, the scanner expects the terminal's replies.
func (c *clip) release() {
	c.scanner.Expect(c.paster.Busy())
	if c.paster.Busy() || c.held.empty() {
		return
	}
	c.replay(&c.held)
}

// replay passes on what h holds, in order, and empties it.
func (c *clip) replay(h *heldInput) {
	if err := h.release(func(p []byte) { c.next.input(p, c.in.now) }); err != nil {
		c.in.cfg.Logf("image paste: replaying the input held during a paste event: %v", err)
	}
}

// hold keeps input that comes while a paste event is under way, in
// memory up to heldMemory, then in a temp file in the session. If that
// cannot be made, what is held passes on now, and so does p: nothing is
// lost, though it may come before the paste.
func (c *clip) hold(p []byte) {
	if err := c.held.add(p, c.in.session); err != nil {
		c.in.cfg.Logf("image paste: cannot hold the input typed during a paste event (%v); passing it on", err)
		held := c.held
		c.held = heldInput{}
		c.replay(&held)
		c.next.input(p, c.in.now)
	}
}

// clipScan is the scanner's Sink.
type clipScan struct{ c *clip }

// Pass passes input on, with the time it was read: when a prefix the
// scanner held began (passAt, during flush), else the call's.
func (s clipScan) Pass(p []byte) {
	if s.c.paster.Busy() {
		s.c.hold(p)
		return
	}
	s.c.release()
	at := s.c.in.now
	if !s.c.passAt.IsZero() {
		at = s.c.passAt
	}
	s.c.next.input(p, at)
}

func (s clipScan) Packet(meta, payload []byte) bool {
	pk, err := kittyclip.Parse(meta, payload)
	if err != nil {
		s.c.in.cfg.Debugf("image paste: a reply from the terminal does not parse (%d bytes of metadata)", len(meta))
		return false
	}
	if s.c.in.cfg.PassClipboardReplies && pk.PW == "" && !strings.HasPrefix(pk.ID, "pbwrap-") {
		// The answer to a read the child made, which the output let
		// through (--allow-clipboard-read).
		p := append([]byte("\x1b]5522;"), meta...)
		if len(payload) > 0 {
			p = append(append(p, ';'), payload...)
		}
		s.Pass(append(p, "\x1b\\"...))
		return true
	}
	s.c.paster.Packet(pk, s.c.in.now)
	s.c.release()
	return true
}

func (s clipScan) Lost() {
	s.c.in.cfg.Debugf("image paste: a reply from the terminal was cut off")
	s.c.paster.Lost(s.c.in.now)
	s.c.release()
}

// TextStart implements imagepaste.Sink: clipboard text goes on as a paste
// of its own (pasteClip), as a marked paste from the terminal does.
func (c *clip) TextStart()        { c.next.pasteStart(pasteClip) }
func (c *clip) TextData(p []byte) { c.next.pasteData(p) }
func (c *clip) TextEnd()          { c.next.pasteEnd() }
