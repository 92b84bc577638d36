package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/frontend"
)

// doctor's DECRQM answer, asked with bracketed paste as it is, says what
// the wrapper's, asked with it on, says.
func TestDoctorAnswer(t *testing.T) {
	for _, tc := range []struct {
		state string
		err   error
		want  capture.Answer
	}{
		{"1", nil, capture.AnswerMarks}, {"2", nil, capture.AnswerMarks}, {"3", nil, capture.AnswerMarks},
		{"0", nil, capture.AnswerNoMarks}, {"4", nil, capture.AnswerNoMarks},
		{"", nil, capture.AnswerSilent}, {"", errors.New("not run from a terminal"), capture.AnswerNone},
	} {
		if got := doctorAnswer(tc.state, tc.err); got != tc.want {
			t.Errorf("doctorAnswer(%q, %v) = %v, want %v", tc.state, tc.err, got, tc.want)
		}
	}
}

// What doctor says pbwrap does with unmarked input is what capture.Looks
// decides, with the gap of the front end.
func TestUnmarkedLine(t *testing.T) {
	tmux := frontend.FrontEnd{Name: "tmux", Marks: capture.MarksYes}
	screen4 := frontend.FrontEnd{Name: "GNU screen 4.09.00", Marks: capture.MarksNo, Gap: frontend.ScreenGap}
	for _, tc := range []struct {
		mode   capture.BurstMode
		fe     frontend.FrontEnd
		answer capture.Answer
		want   string
	}{
		{capture.BurstAuto, tmux, capture.AnswerNone, "typed: the front end marks pastes"},
		{capture.BurstAuto, screen4, capture.AnswerSilent, "looked at: the front end does not mark pastes"},
		{capture.BurstAuto, screen4, capture.AnswerSilent, "within 300ms of the one before"},
		{capture.BurstAuto, frontend.FrontEnd{}, capture.AnswerSilent, "within 100ms of the one before"},
		{capture.BurstAuto, frontend.FrontEnd{}, capture.AnswerMarks, "typed: the terminal marks pastes"},
		{capture.BurstOff, screen4, capture.AnswerSilent, "typed: --burst off"},
		{capture.BurstOn, tmux, capture.AnswerMarks, "looked at: --burst on"},
	} {
		if got := unmarkedLine(tc.mode, tc.fe, tc.answer); !strings.Contains(got, tc.want) {
			t.Errorf("unmarkedLine(%v, %s, %v) = %q, want %q in it", tc.mode, tc.fe.Name, tc.answer, got, tc.want)
		}
	}
}
