package capture

import (
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// The markers stage passes typed bytes on with the time they were read,
// and marked pastes without their markers; a held marker prefix goes on
// at EscHold as typed, with the time its hold began, a paste without its
// end ends at the silence, and the stages hear it, as they hear that a
// marked paste starts.
func TestMarkersStage(t *testing.T) {
	const silence = 5 * time.Second
	rig := func() *stageRig {
		return newStageRig(t, Config{Silence: silence}, func(in *Input) stage { return in.markers })
	}
	for _, c := range []stageCase{
		{name: "typed", in: "ab\r", before: []string{`input@0s "ab\r"`}},
		{
			name:   "a paste",
			in:     "a" + start + "x\ny" + end + "b",
			before: []string{`input@0s "a"`, "notice marksPastes@0s", "start marked", `data "x\ny"`, "end", `input@0s "b"`},
		},
		{
			name:   "a start marker in a paste is data",
			in:     start + "a" + start + "b" + end,
			before: []string{"notice marksPastes@0s", "start marked", `data "a\x1b[200~b"`, "end"},
		},
		{
			name:   "an end marker outside a paste",
			in:     "a" + end + "b",
			before: []string{`input@0s "a"`, "stray end", `input@0s "b"`},
		},
		{
			name:      "a lone Esc goes on at EscHold, read when it began",
			in:        "a\x1b",
			before:    []string{`input@0s "a"`},
			deadlines: []time.Duration{termproto.EscHold},
			after:     []string{`input@0s "a\x1b"`},
			closed:    []string{`input@0s "a\x1b"`},
		},
		{
			name:      "a marker prefix read later goes on with its own time",
			in:        "a«+3ms»\x1b[20",
			before:    []string{`input@0s "a"`},
			deadlines: []time.Duration{3*time.Millisecond + termproto.EscHold},
			after:     []string{`input@0s "a"`, `input@3ms "\x1b[20"`},
			closed:    []string{`input@0s "a"`, `input@3ms "\x1b[20"`},
		},
		{
			name:   "what a held prefix turns out to be goes on with the read that told",
			in:     "\x1b[2«+1ms»x",
			before: []string{`input@1ms "\x1b[2x"`},
		},
		{
			name:      "a paste without its end ends at the silence",
			in:        start + "xy\x1b[20",
			before:    []string{"notice marksPastes@0s", "start marked", `data "xy"`},
			deadlines: []time.Duration{silence},
			after:     []string{"notice marksPastes@0s", "start marked", `data "xy\x1b[20"`, "end", "notice pasteSilent@5s"},
			closed:    []string{"notice marksPastes@0s", "start marked", `data "xy\x1b[20"`, "end"},
		},
		{
			name:   "pastes from before pass through",
			in:     "«start clip»«data a»«end»b",
			before: []string{"start clip", `data "a"`, "end", `input@0s "b"`},
		},
	} {
		c.run(t, rig)
	}
}
