package termproto

import (
	"bytes"
	"time"
)

// Question asks the terminal whether it marks pastes: DECRQM for DEC
// private mode 2004 (bracketed paste), then for mode 12 (a blinking
// cursor, whose state before the child changes it the reset at the end
// puts back), then primary device attributes (DA1), which every terminal
// answers, after any DECRQM answer. Asked once bracketed paste has been
// turned on, the DECRQM answer for 2004 is 1 (set) or 3 (permanently set)
// from a terminal that marks pastes; 0 (not recognized), 2 (reset) or 4
// (permanently reset) from one that does not. A terminal that answers DA1
// alone does not say.
const Question = "\x1b[?2004$p\x1b[?12$p\x1b[c"

// PasteQuestion asks only about bracketed paste: DECRQM for DEC private
// mode 2004, then DA1, which every terminal answers, after any DECRQM
// answer. It is what pbwrap doctor asks, with bracketed paste left as it
// is: a DECRQM answer of 0 (not recognized) or 4 (permanently reset) then
// says that the terminal does not support bracketed paste; 1, 2 or 3 that
// it does. Replies takes its answers as it takes Question's.
const PasteQuestion = "\x1b[?2004$p\x1b[c"

// ClipQuestion asks, by DECRQM, whether the terminal knows kitty's
// clipboard paste events (DEC private mode 5522). Written before
// Question or PasteQuestion, its answer comes before their DA1 answer,
// and Replies takes it (see Clip): 1 (set) or 2 (reset) from a terminal
// that has paste events, 0 or 4 from one that does not; none at all from
// most, which do not know DECRQM for it (tmux 3.3a, GNU screen).
const ClipQuestion = "\x1b[?5522$p"

// maxReply bounds what Replies holds of one answer: ESC [ ? and the
// parameters. The longest DA1 answers list a few dozen attributes
// (xterm's is 33 bytes); a longer sequence is no answer to Question.
const maxReply = 128

// Answers to Question, as Replies reports them in Mode.
const (
	ModeUnanswered    byte = 0   // no DECRQM answer (yet)
	ModeNotRecognized byte = '0' // the terminal does not know mode 2004
	ModeSet           byte = '1'
	ModeReset         byte = '2'
	ModePermanentSet  byte = '3'
	ModePermanentOff  byte = '4'
)

// replyState is where Replies is in a possible answer.
type replyState uint8

const (
	replyGround replyState = iota // not in one
	replyEsc                      // after ESC
	replyCSI                      // after ESC [
	replyParams                   // after ESC [ ?, in the parameters
	replyDollar                   // after ESC [ ? params $
)

// Replies takes the terminal's answers to Question out of the input, once
// it has been asked, and passes everything else on. An answer is ESC [ ?
// then digits and semicolons, then $ y (DECRQM's, for mode 2004 or 12:
// the answer is recorded in Mode, Blink or Clip) or c (DA1's: the terminal has answered, and
// Replies takes nothing more: Done). Anything else is not an answer, and
// passes on, whole and in order, as soon as it is told apart; a proper
// prefix of an answer at the end of a Write is held until the next Write
// completes or refutes it, or EscHold passes (a terminal writes an answer
// in one go). The first DECRQM answers for modes 2004 and 12 and the first
// DA1 answer are taken: the terminal answers a program's own questions after
// Question, which was asked first.
//
// What passes on and the answers taken are together exactly the input.
// Like a Parser, Replies has no clock: the caller passes the time of each
// read, and calls Flush at the deadline Write returns.
//
// The zero value takes nothing: Ask starts it. A Replies is not safe for
// concurrent use.
type Replies struct {
	asked, done bool
	da1         bool // the DA1 answer came
	mode        byte // the DECRQM answer for 2004
	blink       byte // ... for 12
	clip        byte // ... for 5522

	state  replyState
	held   []byte // the possible answer so far, from its ESC
	holdAt time.Time

	taken func(answer []byte) // a test's seam: sees each answer taken
}

// Ask starts taking the answers to Question, which the caller writes to
// the terminal.
func (r *Replies) Ask() { r.asked = true }

// Stop takes nothing more from now on (the terminal has not answered in
// time): what is held is returned, to pass on.
func (r *Replies) Stop() []byte {
	r.done = true
	return r.release(nil)
}

// Done reports whether the terminal has answered DA1, or Stop was called:
// Replies passes everything on from then on.
func (r *Replies) Done() bool { return r.done }

// Mode is the terminal's DECRQM answer for mode 2004, one of the Mode
// constants: ModeUnanswered until it comes.
func (r *Replies) Mode() byte { return r.mode }

// Blink is the terminal's DECRQM answer for mode 12 (a blinking cursor),
// one of the Mode constants: ModeUnanswered until it comes.
func (r *Replies) Blink() byte { return r.blink }

// Clip is the terminal's DECRQM answer for mode 5522 (kitty's clipboard
// paste events, see ClipQuestion), one of the Mode constants:
// ModeUnanswered until it comes.
func (r *Replies) Clip() byte { return r.clip }

// Marks reports whether the DECRQM answer says that the terminal marks
// pastes; known is false while there is none (a terminal that answers
// DA1 alone does not say).
func (r *Replies) Marks() (marks, known bool) {
	switch r.mode {
	case ModeUnanswered:
		return false, false
	case ModeSet, ModePermanentSet:
		return true, true
	}
	return false, true
}

// AnsweredDA1 reports whether the DA1 answer came: the terminal has said
// all it will.
func (r *Replies) AnsweredDA1() bool { return r.da1 }

// Write returns dst with the bytes of p, read at now, that are not
// answers appended, after any held bytes they refute. It returns too the
// time at which Flush must be called if nothing else arrives: EscHold
// after a hold began, or zero.
func (r *Replies) Write(dst, p []byte, now time.Time) ([]byte, time.Time) {
	if !r.asked || r.done && len(r.held) == 0 {
		return append(dst, p...), time.Time{}
	}
	start := 0 // of the run of p that passes on
	for i := 0; i < len(p); i++ {
		if r.done {
			return append(dst, p[start:]...), time.Time{}
		}
		if r.state == replyGround {
			// Outside an answer only ESC matters: a paste's text is passed
			// over at IndexByte's pace, not a byte at a time.
			k := bytes.IndexByte(p[i:], esc)
			if k < 0 {
				break
			}
			i += k
			dst = append(dst, p[start:i]...)
			start = i + 1
			r.state, r.held, r.holdAt = replyEsc, append(r.held[:0], esc), now
			continue
		}
		c := p[i]
		switch r.step(c) {
		case stepMore:
			r.held = append(r.held, c)
		case stepTaken:
			if r.taken != nil {
				r.taken(append(r.held, c))
			}
			r.held = r.held[:0]
		case stepRefuted:
			dst = r.release(dst)
			i-- // c is looked at again, outside any answer.
		}
		start = i + 1
	}
	if r.state == replyGround {
		dst = append(dst, p[start:]...)
	}
	return dst, r.Deadline()
}

// Flush returns dst with the held bytes appended when now is EscHold after
// the hold began: they were no answer. Calling it early is harmless.
func (r *Replies) Flush(dst []byte, now time.Time) ([]byte, time.Time) {
	if r.state != replyGround && !now.Before(r.holdAt.Add(EscHold)) {
		dst = r.release(dst)
	}
	return dst, r.Deadline()
}

// Take is Write for a caller that keeps nothing but the answers, and
// reads the terminal itself (pbwrap doctor): it scans p, after Ask, and
// returns how many of its bytes it used: all of them, unless the DA1
// answer ends within p, in which case it stops right after it, and the
// rest is not the terminal's but what the user typed next; once the DA1
// answer is in (or after Stop), it uses nothing. What is not an answer is
// dropped, not passed on, and so a control character inside a possible
// answer (a Ctrl key typed as the answer arrives) does not refute it but
// is skipped, as ECMA-48 has C0 controls act apart from the sequence they
// interrupt; ESC, CAN and SUB still end it. Any chunking of the input
// gives the same answers. Take holds nothing across calls that a deadline
// must release: a caller of Take never calls Flush. Use either Write or
// Take on a Replies, not both.
func (r *Replies) Take(p []byte) int {
	var drop [maxReply + 1]byte // What Write passes on: dropped.
	for i, c := range p {
		if r.done {
			return i
		}
		if r.inCSI() && isSkippedControl(c) {
			continue
		}
		r.Write(drop[:0], p[i:i+1], time.Time{})
	}
	return len(p)
}

// inCSI reports whether Replies is inside a possible answer, past its
// ESC [.
func (r *Replies) inCSI() bool {
	return r.state == replyCSI || r.state == replyParams || r.state == replyDollar
}

// isSkippedControl reports whether c, inside a control sequence, acts on
// its own and leaves the sequence going (ECMA-48): a C0 control other
// than ESC, CAN and SUB, or DEL.
func isSkippedControl(c byte) bool {
	return c < 0x20 && c != esc && c != can && c != sub || c == 0x7f
}

// HeldSince is when the held bytes arrived: they pass on with that time.
func (r *Replies) HeldSince() time.Time { return r.holdAt }

// Deadline is when Flush is owed, or the zero time.
func (r *Replies) Deadline() time.Time {
	if r.state == replyGround {
		return time.Time{}
	}
	return r.holdAt.Add(EscHold)
}

type stepResult uint8

const (
	stepMore    stepResult = iota // c continues a possible answer
	stepTaken                     // c ends an answer, which is taken
	stepRefuted                   // c is not part of an answer: what is held is none
)

// step moves the answer state on by c.
func (r *Replies) step(c byte) stepResult {
	switch r.state {
	case replyEsc:
		if c == '[' {
			r.state = replyCSI
			return stepMore
		}
	case replyCSI:
		if c == '?' {
			r.state = replyParams
			return stepMore
		}
	case replyParams:
		switch {
		case (c >= '0' && c <= '9' || c == ';') && len(r.held) < maxReply:
			return stepMore
		case c == '$':
			r.state = replyDollar
			return stepMore
		case c == 'c' && len(r.held) > 3:
			r.state, r.done, r.da1 = replyGround, true, true
			return stepTaken
		}
	case replyDollar:
		if c == 'y' {
			r.state = replyGround
			if m, ok := decrqm(r.held, "2004"); ok && r.mode == ModeUnanswered {
				r.mode = m
				return stepTaken
			}
			if m, ok := decrqm(r.held, "12"); ok && r.blink == ModeUnanswered {
				r.blink = m
				return stepTaken
			}
			if m, ok := decrqm(r.held, "5522"); ok && r.clip == ModeUnanswered {
				r.clip = m
				return stepTaken
			}
		}
	}
	r.state = replyGround
	return stepRefuted
}

// decrqm reads held, ESC [ ? params $, as the DECRQM answer for the mode
// n: ?n;Ps$ with Ps one digit 0 to 4.
func decrqm(held []byte, n string) (byte, bool) {
	prefix := "\x1b[?" + n + ";"
	if len(held) != len(prefix)+2 || string(held[:len(prefix)]) != prefix {
		return 0, false
	}
	ps := held[len(prefix)]
	return ps, ps >= '0' && ps <= '4'
}

// release returns dst with the held bytes appended, and holds nothing.
func (r *Replies) release(dst []byte) []byte {
	dst = append(dst, r.held...)
	r.held, r.state = r.held[:0], replyGround
	return dst
}
