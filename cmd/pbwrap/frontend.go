package main

import (
	"time"

	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/frontend"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// processAncestors returns the command names of pbwrap's ancestors,
// nearest first, where the system lets them be read (see
// frontend.Ancestors).
func processAncestors() []string { return frontend.Names(frontend.Ancestors()) }

// frontEndLine says what relays the user's keys, and how pbwrap knows:
// the same for pbwrap doctor and the wrapper's debug log.
func frontEndLine(fe frontend.FrontEnd) string {
	name := fe.Name
	if name == "" {
		name = "none that pbwrap knows"
	}
	if fe.Why == "" {
		return name
	}
	return name + ": " + fe.Why
}

// doctorAnswer is what pbwrap doctor's question (termproto.PasteQuestion,
// asked with bracketed paste left as it is) says of whether the terminal
// marks pastes, as capture.Looks takes it: a terminal that knows mode 2004
// (1, 2, 3: pbwrap turns it on) marks them; 0 or 4 says it does not; no
// answer, that it does not say; err, that it could not be asked.
func doctorAnswer(state string, err error) capture.Answer {
	switch {
	case err != nil:
		return capture.AnswerNone
	case state == "1" || state == "2" || state == "3":
		return capture.AnswerMarks
	case state == "":
		return capture.AnswerSilent
	}
	return capture.AnswerNoMarks
}

// unmarkedLine says what the wrapper does with what comes unmarked, for
// pbwrap doctor, by capture.Looks.
func unmarkedLine(mode capture.BurstMode, fe frontend.FrontEnd, answer capture.Answer) string {
	look, why := capture.Looks(mode, fe.Marks, answer)
	if !look {
		return "typed: " + why + ", so pbwrap passes what comes unmarked as typed"
	}
	return "looked at: " + why + ", so pbwrap saves a large paste that comes unmarked (more than a line in a read, " +
		"each piece within " + shortDuration(gapOf(fe)) + " of the one before); keys and lines pass as they are read"
}

// gapOf is how long an unmarked paste stays open without input with fe in
// front.
func gapOf(fe frontend.FrontEnd) (gap time.Duration) {
	if fe.Gap > 0 {
		return fe.Gap
	}
	return termproto.BurstGap
}
