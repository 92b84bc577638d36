package capture

import (
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// The burst stage, on, passes a read of typing on at once, with the time
// it was read; a read that no one types is held until it pauses (and
// goes on as typed) or grows large (a paste, that ends at the gap or at a
// key); a paste from a stage before ends the burst under way first. Off,
// it passes everything on.
func TestBurstStage(t *testing.T) {
	rig := func(mode BurstMode) func() *stageRig {
		return func() *stageRig {
			return newStageRig(t, Config{Burst: mode, MinBytes: 8, MinLines: 3}, func(in *Input) stage { return in.burst })
		}
	}
	const large = "a\nbcdefghij" // More than a line, and 8 bytes or more.
	for _, c := range []stageCase{
		{name: "a key", in: "a", before: []string{`input@0s "a"`}},
		{name: "keys, a read each", in: "a«+5ms»b", before: []string{`input@0s "a"`, `input@5ms "b"`}},
		{name: "a line and its Enter", in: "make test\r\n", before: []string{`input@0s "make test\r\n"`}},
		{
			name:      "small: typed at the pause",
			in:        "x\ny\n",
			deadlines: []time.Duration{termproto.BurstGap},
			after:     []string{`input@100ms "x\ny\n"`},
			closed:    []string{`input@0s "x\ny\n"`},
		},
		{
			name:      "large by bytes",
			in:        large,
			before:    []string{"start burst", `data "a\nbcdefghij"`},
			deadlines: []time.Duration{termproto.BurstGap},
			after:     []string{"start burst", `data "a\nbcdefghij"`, "end"},
			closed:    []string{"start burst", `data "a\nbcdefghij"`, "end"},
		},
		{
			name:      "large by lines",
			in:        "a\nb\r\nc\r",
			before:    []string{"start burst", `data "a\nb\r\nc\r"`},
			deadlines: []time.Duration{termproto.BurstGap},
			after:     []string{"start burst", `data "a\nb\r\nc\r"`, "end"},
		},
		{
			name:   "a key KeyGap after ends the paste",
			in:     large + "«+2ms»k",
			before: []string{"start burst", `data "a\nbcdefghij"`, "end", `input@2ms "k"`},
		},
		{
			name:      "a key sooner is the paste's last piece",
			in:        large + "«+1ms»k",
			before:    []string{"start burst", `data "a\nbcdefghijk"`},
			deadlines: []time.Duration{time.Millisecond + termproto.BurstGap},
			after:     []string{"start burst", `data "a\nbcdefghijk"`, "end"},
		},
		{
			name:   "a marked paste ends what is held",
			in:     "x\ny«start marked»«data xy»«end»",
			before: []string{`input@0s "x\ny"`, "start marked", `data "xy"`, "end"},
		},
		{
			name:   "an end marker ends the open paste",
			in:     large + "«stray»",
			before: []string{"start burst", `data "a\nbcdefghij"`, "end", "stray end"},
		},
		{
			name:   "clipboard text ends it too",
			in:     large + "«start clip»«data t»«end»",
			before: []string{"start burst", `data "a\nbcdefghij"`, "end", "start clip", `data "t"`, "end"},
		},
	} {
		c.reads = true
		c.run(t, rig(BurstOn))
	}
	for _, mode := range []BurstMode{BurstOff, BurstAuto} {
		stageCase{
			name:   "off (" + mode.String() + ")",
			in:     large + "«start marked»«data xy»«end»a",
			before: []string{`input@0s "a\nbcdefghij"`, "start marked", `data "xy"`, "end", `input@0s "a"`},
			reads:  true,
		}.run(t, rig(mode))
	}
}

// The burst stage counts the gap from when Filter's work was done, while
// a paste is held or open (termproto.Burst.Busy), and reads the clock
// only then.
func TestBurstStageBusy(t *testing.T) {
	r := newStageRig(t, Config{Burst: BurstOn, MinBytes: 8, MinLines: 3}, func(in *Input) stage { return in.burst })
	r.write("a", 0)
	r.in.burst.done(func() time.Time { t.Fatal("done read the clock with nothing held"); return time.Time{} })
	r.write("«+5ms»x\ny", 0)
	busy := 50 * time.Millisecond
	r.in.burst.done(func() time.Time { return stageT0.Add(busy) })
	if d, want := r.s.deadline(), stageT0.Add(busy+termproto.BurstGap); !d.Equal(want) {
		t.Errorf("deadline %v after the work, want the gap after it", d.Sub(stageT0.Add(busy)))
	}
}

// With BurstAuto the burst stage turns on or off as Looks says: from the
// front end, and the answers to Ask, which go first; off at the first
// marked paste.
func TestBurstStageDecides(t *testing.T) {
	for _, tt := range []struct {
		name    string
		marks   Marks
		answers string        // the terminal's, read at stageT0
		at      time.Duration // when the stage hears them
		then    string        // the events after
		late    string        // answers after those, at AnswerWait
		on      bool
	}{
		{name: "not asked yet", on: false},
		{name: "marks pastes", answers: "\x1b[?2004;1$y", on: false},
		{name: "permanently", answers: "\x1b[?2004;3$y", on: false},
		{name: "does not mark pastes", answers: "\x1b[?2004;2$y", on: true},
		{name: "not recognized", answers: "\x1b[?2004;0$y", on: true},
		{name: "DA1 alone", answers: "\x1b[?62c", on: true},
		{name: "silent, before AnswerWait", answers: "-", at: AnswerWait - time.Nanosecond, on: false},
		{name: "silent at AnswerWait", answers: "-", at: AnswerWait, on: true},
		{name: "a marked paste turns it off", answers: "\x1b[?2004;2$y", then: "«marked»", on: false},
		{name: "its start alone does not", answers: "\x1b[?2004;2$y", then: "«start marked»", on: true},
		{name: "clipboard text does not", answers: "\x1b[?2004;2$y", then: "«start clip»", on: true},
		{name: "nor a burst", answers: "\x1b[?2004;2$y", then: "«start burst»", on: true},
		{name: "a late answer decides", answers: "-", at: AnswerWait, late: "\x1b[?2004;1$y", on: false},
		{name: "the front end marks pastes", marks: MarksYes, on: false},
		{name: "the front end does not", marks: MarksNo, on: true},
		{name: "the front end does not, silent", marks: MarksNo, answers: "\x1b[?62c", on: true},
		{name: "the terminal's answer goes first", marks: MarksNo, answers: "\x1b[?2004;1$y", on: false},
	} {
		r := newStageRig(t, Config{Burst: BurstAuto, Marks: tt.marks}, func(in *Input) stage { return in.burst })
		if tt.answers != "" {
			if r.in.Ask(stageT0) == nil {
				t.Fatalf("%s: Ask asked nothing", tt.name)
			}
			r.in.replies.arm()
			r.in.replies.replies.Write(nil, []byte(tt.answers), stageT0)
			r.at = stageT0.Add(tt.at)
			r.write("«answers»"+tt.then, 1)
		}
		if tt.late != "" {
			r.in.replies.replies.Write(nil, []byte(tt.late), stageT0.Add(AnswerWait))
			r.write("«answers»", 1)
		}
		if on := r.in.burst.burst != nil; on != tt.on {
			t.Errorf("%s: on %v, want %v", tt.name, on, tt.on)
		}
	}
}

// What the burst stage passes on goes with the time it was read, not the
// call's: a key a stage before held goes on at a flush with the time it
// was read.
func TestBurstStageKeepsReadTime(t *testing.T) {
	r := newStageRig(t, Config{Burst: BurstOn}, func(in *Input) stage { return in.burst })
	r.in.begin(&r.child, stageT0.Add(termproto.EscHold))
	r.s.input([]byte("\x1b"), stageT0)
	r.in.end()
	if got, want := r.rec.strings(), []string{`input@0s "\x1b"`}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("passed on %q, want %q", got, want)
	}
}
