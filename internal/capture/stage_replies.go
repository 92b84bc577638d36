package capture

import (
	"sync/atomic"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// repliesStage takes the terminal's answers to Ask out of the input
// (termproto.Replies: DECRQM for modes 2004, 12 and 5522, then DA1), so
// that they never reach the child, and tells the other stages when the
// answers move on (answersHeard): the burst stage (see Looks) and image
// paste decide from them. It takes nothing before Ask has asked, nor
// after the DA1 answer.
type repliesStage struct {
	link
	in *Input

	asked   atomic.Int64 // Ask's time, in Unix nanoseconds, when it asked: set by Ask, from any goroutine
	askedAt time.Time    // that time, once the input side has seen it (see arm); zero before
	replies termproto.Replies
	// silent: AnswerWait passed after the question with no DA1 answer.
	silent bool
	// blinkHeard: the answer for mode 12 has gone to Config.CursorBlink.
	blinkHeard bool
	pass       []byte // what Replies passes on, reused
	never      bool   // Ask asks nothing, by the configuration
}

func newRepliesStage(in *Input) *repliesStage {
	burst, image := in.cfg.asks()
	return &repliesStage{in: in, never: !burst && !image}
}

// bypassed: Ask asks nothing, or the answers are over (DA1 answered, or
// the stage closed): nothing more is taken out of the input.
func (r *repliesStage) bypassed() bool { return r.never || r.replies.Done() }

// Ask returns what to write to the terminal, at time now, to learn whether
// it marks pastes (termproto.Question): with BurstAuto, once, when the
// environment has not said; nil otherwise. Its answers are taken out of
// the input, never passed to the child. The caller writes it once the
// terminal is in raw mode. Unlike the other methods, Ask may be called
// concurrently with them (from wherever the terminal is taken over).
//
// With ImageAuto it asks too whether the terminal has paste events
// (termproto.ClipQuestion), before the DA1 that fences the answers.
func (in *Input) Ask(now time.Time) []byte {
	burst, image := in.cfg.asks()
	if !burst && !image || !in.replies.asked.CompareAndSwap(0, now.UnixNano()) {
		return nil
	}
	q := ""
	if image {
		q = termproto.ClipQuestion
	}
	if burst {
		return []byte(q + termproto.Question)
	}
	return []byte(q + da1Question)
}

// asks reports what Ask asks the terminal: whether it marks pastes (with
// BurstAuto, where the front end has not said it does), and whether it
// has paste events (with ImageAuto).
func (c *Config) asks() (burst, image bool) {
	return c.Burst == BurstAuto && c.Marks != MarksYes, c.Image == ImageAuto
}

// da1Question asks for primary device attributes (DA1), which every
// terminal answers, after any DECRQM answer: the fence of Ask's questions.
const da1Question = "\x1b[c"

// arm starts taking the answers once Ask has asked: the input side's own
// state changes only in its own calls. Every method of the stage arms
// first.
func (r *repliesStage) arm() {
	if r.askedAt.IsZero() {
		if n := r.asked.Load(); n != 0 {
			r.askedAt = time.Unix(0, n)
			r.replies.Ask()
		}
	}
}

func (r *repliesStage) input(p []byte, at time.Time) {
	r.arm()
	if !r.replies.Done() && !r.askedAt.IsZero() {
		r.pass, _ = r.replies.Write(r.pass[:0], p, at)
		if r.replies.Done() {
			r.in.relink() // The answers are over: out of the input's path.
		}
		r.timeout(at)
		r.blink()
		r.in.notify(answersHeard, at)
		p = r.pass
	}
	if len(p) > 0 {
		r.next.input(p, at)
	}
}

// flush passes on a prefix held for EscHold, with the time it was read
// (it was no answer), and lets the wait for the answers pass.
func (r *repliesStage) flush(now time.Time) {
	r.arm()
	if r.askedAt.IsZero() {
		return
	}
	at := r.replies.HeldSince()
	if r.pass, _ = r.replies.Flush(r.pass[:0], now); len(r.pass) > 0 {
		r.next.input(r.pass, at)
	}
	r.timeout(now)
	r.in.notify(answersHeard, now)
}

// close takes nothing more: the input has ended, and no answer comes. A
// held prefix passes on, with the time it was read.
func (r *repliesStage) close() {
	r.arm()
	at := r.replies.HeldSince()
	held := r.replies.Stop()
	r.in.relink()
	if len(held) > 0 {
		r.next.input(held, at)
	}
}

// deadline is the held prefix's and, while the answers may still come,
// AnswerWait after the question.
func (r *repliesStage) deadline() time.Time {
	r.arm()
	if r.askedAt.IsZero() {
		return time.Time{}
	}
	d := r.replies.Deadline()
	if r.waiting() {
		d = earliest(d, r.askedAt.Add(AnswerWait))
	}
	return d
}

// pending: a prefix is held, or the answers may still come.
func (r *repliesStage) pending() bool {
	r.arm()
	return !r.replies.Deadline().IsZero() || r.waiting()
}

// waiting reports whether the terminal's answers may still come: the
// question was asked, DA1 has not been answered, and AnswerWait has not
// passed. They must not reach what reads the terminal after pbwrap (the
// user's shell), so the input is read on at the end until they come (see
// Pending).
func (r *repliesStage) waiting() bool {
	return !r.askedAt.IsZero() && !r.replies.Done() && !r.silent
}

// timeout takes the terminal for silent once AnswerWait has passed
// without the DA1 answer, whatever was asked.
func (r *repliesStage) timeout(now time.Time) {
	if !r.replies.Done() && r.answerWaited(now) {
		r.silent = true
	}
}

// blink gives the answer for mode 12, once it has come, to
// Config.CursorBlink, once.
func (r *repliesStage) blink() {
	if b := r.replies.Blink(); b != termproto.ModeUnanswered && !r.blinkHeard {
		r.blinkHeard = true
		if r.in.cfg.CursorBlink != nil {
			r.in.cfg.CursorBlink(b)
		}
	}
}

// answerWaited reports whether AnswerWait has passed since the question,
// at now.
func (r *repliesStage) answerWaited(now time.Time) bool {
	return !now.Before(r.askedAt.Add(AnswerWait))
}
