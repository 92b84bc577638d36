package capture

import (
	"fmt"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// The replies stage, once Ask has asked, takes the terminal's answers out
// of the input and passes the rest on, with the time it was read: a
// prefix held for EscHold too. It waits AnswerWait for the DA1 answer,
// and no more.
func TestRepliesStage(t *testing.T) {
	var blink []byte
	rig := func() *stageRig {
		blink = nil
		r := newStageRig(t, Config{Burst: BurstAuto, Image: ImageAuto, CursorBlink: func(b byte) { blink = append(blink, b) }},
			func(in *Input) stage { return in.replies })
		if q := r.in.Ask(stageT0); q == nil {
			t.Fatal("Ask asked nothing")
		}
		return r
	}
	answers := func(mode byte, blinks string, clip byte, da1 bool) func(*stageRig) string {
		return func(r *stageRig) string {
			a := &r.in.replies.replies
			if a.Mode() != mode || a.Clip() != clip || a.AnsweredDA1() != da1 || string(blink) != blinks {
				return fmt.Sprintf("answers 2004 %q, 5522 %q, DA1 %v, blink heard %q; want %q, %q, %v, %q",
					a.Mode(), a.Clip(), a.AnsweredDA1(), blink, mode, clip, da1, blinks)
			}
			return ""
		}
	}
	const none = termproto.ModeUnanswered
	for _, c := range []stageCase{
		{
			name:   "every answer, keys among them",
			in:     "a\x1b[?5522;2$y\x1b[?2004;1$yb\x1b[?12;1$y\x1b[?62;22cc\x1b[?62;22c",
			before: []string{`input@0s "abc\x1b[?62;22c"`},
			check:  answers('1', "1", '2', true),
		},
		{
			name:  "DA1 alone",
			in:    "\x1b[?1;2c",
			check: answers(none, "", none, true),
		},
		{
			name:      "no answer: AnswerWait",
			in:        "\x1b[Ax",
			before:    []string{`input@0s "\x1b[Ax"`},
			deadlines: []time.Duration{AnswerWait},
			check:     answers(none, "", none, false),
		},
		{
			name:      "a prefix goes on at EscHold, read when it began",
			in:        "a«+2ms»\x1b[?6",
			before:    []string{`input@0s "a"`},
			deadlines: []time.Duration{2*time.Millisecond + termproto.EscHold, AnswerWait},
			after:     []string{`input@0s "a"`, `input@2ms "\x1b[?6"`},
			closed:    []string{`input@0s "a"`, `input@2ms "\x1b[?6"`},
		},
		{
			name:   "pastes from before pass through",
			in:     "«start clip»«data \x1b[?62c»«end»\x1b[?62c",
			before: []string{"start clip", `data "\x1b[?62c"`, "end"},
			check:  answers(none, "", none, true),
		},
	} {
		c.run(t, rig)
	}
}

// Once AnswerWait has passed without the DA1 answer, the replies stage
// waits no more, but still takes a late answer, and holds what may be one.
func TestRepliesStageLate(t *testing.T) {
	rig := func() *stageRig {
		r := newStageRig(t, Config{Burst: BurstAuto}, func(in *Input) stage { return in.replies })
		r.in.Ask(stageT0.Add(-AnswerWait))
		return r
	}
	for _, c := range []stageCase{
		{name: "a late answer", in: "a\x1b[?2004;2$yb", before: []string{`input@0s "ab"`}},
		{
			name:      "a prefix",
			in:        "a\x1b[",
			before:    []string{`input@0s "a"`},
			deadlines: []time.Duration{termproto.EscHold},
			after:     []string{`input@0s "a\x1b["`},
		},
	} {
		c.run(t, rig)
	}
}

// Before Ask has asked, the replies stage takes nothing.
func TestRepliesStageUnasked(t *testing.T) {
	rig := func() *stageRig {
		return newStageRig(t, Config{Burst: BurstAuto}, func(in *Input) stage { return in.replies })
	}
	stageCase{name: "unasked", in: "\x1b[?2004;1$y\x1b[?62c", before: []string{`input@0s "\x1b[?2004;1$y\x1b[?62c"`}}.run(t, rig)
}

// What may begin an answer, at the end of the input, reaches the child:
// the replies stage once dropped it at Close.
func TestCloseKeepsWhatMayBeAnAnswer(t *testing.T) {
	for _, in := range []string{"a\x1b", "a\x1b[", "a\x1b[?", "a\x1b[?2004;"} {
		r := newRig(t, Config{Burst: BurstAuto})
		r.in.Ask(r.now)
		r.feed(in, 0)
		if err := r.in.Close(&r.child); err != nil {
			t.Fatal(err)
		}
		if r.child.String() != in {
			t.Errorf("%q, closed: the child has %q", in, r.child.String())
		}
	}
}

// A terminal that does not answer is waited for AnswerWait, whatever Ask
// asked: asked about paste events alone (--image auto, --burst off or
// on), the replies stage once waited for ever, owing a flush at
// AnswerWait again and again, and Pending never ended.
func TestSilentTerminalWaitedForAnswerWait(t *testing.T) {
	for _, burst := range []BurstMode{BurstOff, BurstOn, BurstAuto} {
		r := newRig(t, Config{Burst: burst, Image: ImageAuto})
		asked := r.now
		if q := r.in.Ask(asked); q == nil {
			t.Fatalf("burst %v: Ask asked nothing", burst)
		}
		if d := r.in.deadline(); !d.Equal(asked.Add(AnswerWait)) {
			t.Fatalf("burst %v: deadline %v after the question, want AnswerWait", burst, d.Sub(asked))
		}
		d, err := r.in.Flush(&r.child, asked.Add(AnswerWait))
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsZero() || r.in.Pending() {
			t.Errorf("burst %v: after AnswerWait, deadline %v after the question, pending %v; want none", burst, d.Sub(asked), r.in.Pending())
		}
	}
}
