package capture

import (
	"fmt"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// The clip stage takes the terminal's OSC 5522 replies out of the input
// and passes the rest on, with the time it was read (a lone Esc held too);
// clipboard text a paste event brings goes on as a paste, and the keys
// typed during the event after it. What is pasted between markers is not
// looked into, until the paste ends, at its end marker or its silence.
func TestClipStage(t *testing.T) {
	rig := func() *stageRig {
		return newStageRig(t, Config{Image: ImageOn}, func(in *Input) stage { return in.clip })
	}
	reply := "\x1b]5522;type=read:status=OK:id=pbwrap-9\x1b\\"
	for _, c := range []stageCase{
		{name: "keys", in: "ab\r", before: []string{`input@0s "ab\r"`}},
		{
			name:      "a lone Esc goes on at EscHold, read when it began",
			in:        "a«+1ms»\x1b",
			before:    []string{`input@0s "a"`},
			deadlines: []time.Duration{time.Millisecond + termproto.EscHold},
			after:     []string{`input@0s "a"`, `input@1ms "\x1b"`},
			closed:    []string{`input@0s "a"`, `input@1ms "\x1b"`},
		},
		{name: "a reply is taken", in: "a" + reply + "b", before: []string{`input@0s "ab"`}},
		{
			name:   "a packet that is no reply passes whole",
			in:     "\x1b]5522;hello\x1b\\",
			before: []string{`input@0s "\x1b]5522;hello\x1b\\"`},
		},
		{
			name:   "a paste is not looked into",
			in:     start + reply + end + reply,
			before: []string{`input@0s "` + escape(start+reply+end) + `"`},
		},
		{
			name:   "until it ends at its silence",
			in:     start + "a«silent»" + reply + "b",
			before: []string{`input@0s "\x1b[200~ab"`},
		},
		{
			name:      "a reply cut off is lost, and its rest waited for",
			in:        "\x1b]5522;type=read:status=OK",
			deadlines: []time.Duration{kittyclip.PacketSilence, 2 * kittyclip.PacketSilence},
			closed:    []string{},
		},
		{
			name:   "clipboard text, and the keys typed meanwhile",
			in:     fakekitty.Event(fakekitty.PW, "text/plain", "") + "k" + fakekitty.Reply("pbwrap-1", "text/plain", []byte("one\ntwo")) + "z",
			before: []string{"start clip", `data "one\rtwo"`, "end", `input@0s "kz"`},
			check: func(r *stageRig) string {
				if want := readRequest("pbwrap-1", fakekitty.PW, "", "text/plain"); r.term.String() != want {
					return "the terminal got " + r.term.String() + ", want " + want
				}
				return ""
			},
		},
	} {
		c.run(t, rig)
	}
}

// Once the terminal has said it has no paste events, the clip stage
// passes input straight on, a packet too; until then it takes its
// replies, and after a silence it still does (the mode may be on).
func TestClipStageUnused(t *testing.T) {
	reply := "\x1b]5522;type=read:status=OK:id=pbwrap-9\x1b\\"
	for _, tt := range []struct {
		name, answers string
		at            time.Duration
		unused        bool
	}{
		{name: "not recognized", answers: "\x1b[?5522;0$y\x1b[?62c", unused: true},
		{name: "permanently off", answers: "\x1b[?5522;4$y\x1b[?62c", unused: true},
		{name: "DA1 alone", answers: "\x1b[?62c", unused: false},
		{name: "silent", at: AnswerWait, unused: false},
	} {
		r := newStageRig(t, Config{Image: ImageAuto}, func(in *Input) stage { return in.clip })
		r.in.Ask(stageT0)
		r.in.replies.arm()
		r.in.replies.replies.Write(nil, []byte(tt.answers), stageT0)
		r.at = stageT0.Add(tt.at)
		r.write("«answers»a"+reply, 0)
		want := `input@` + tt.at.String() + ` "a"`
		if tt.unused {
			want = fmt.Sprintf("input@%v %q", tt.at, "a"+reply)
		}
		if got := r.rec.strings(); len(got) != 1 || got[0] != want || r.in.clip.scanning() == tt.unused {
			t.Errorf("%s: passed on %q, scanning %v; want %s", tt.name, got, r.in.clip.scanning(), want)
		}
	}
}

// escape is s as %q writes it, without the quotes.
func escape(s string) string { q := fmt.Sprintf("%q", s); return q[1 : len(q)-1] }
