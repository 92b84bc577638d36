package capture

import "strconv"

// Marks is what is known, before the terminal is asked, of whether the
// front end that relays the user's keys marks pastes (bracketed paste):
// from the environment and the process tree (see Config.Marks).
type Marks uint8

const (
	// MarksUnknown: nothing is known; Input asks the terminal.
	MarksUnknown Marks = iota
	// MarksYes: it marks them (tmux, GNU screen 5, mosh), and answers no
	// question about it: what comes unmarked is typing.
	MarksYes
	// MarksNo: it does not (GNU screen 4, the Linux console): Input looks
	// for large unmarked pastes from the first byte.
	MarksNo
)

// An Answer is what the terminal has said, so far, of whether it marks
// pastes.
type Answer uint8

const (
	// AnswerNone: not asked, or no answer yet.
	AnswerNone Answer = iota
	// AnswerMarks: it marks them, by DECRQM (1 or 3 once bracketed paste
	// is on), or by a marked paste.
	AnswerMarks
	// AnswerNoMarks: it does not, by DECRQM (0, 2 or 4).
	AnswerNoMarks
	// AnswerSilent: it does not say (DA1 alone, or nothing within
	// AnswerWait).
	AnswerSilent
)

var answerNames = [...]string{
	AnswerNone:    "no answer yet",
	AnswerMarks:   "marks pastes",
	AnswerNoMarks: "does not mark pastes",
	AnswerSilent:  "does not say",
}

func (a Answer) String() string {
	if int(a) < len(answerNames) {
		return answerNames[a]
	}
	return "Answer(" + strconv.Itoa(int(a)) + ")"
}

// Looks is the one rule for whether pbwrap looks for pastes the terminal
// does not mark (termproto.Burst), from the --burst mode, what the front
// end is known to do and what the terminal has answered: the wrapper's
// Input follows it as the answers come, and pbwrap doctor says what it
// says. why says what decided, for people.
//
// The terminal's own answer goes first: it is the terminal pbwrap talks
// to. Then the front end's word: where it marks pastes, unmarked input is
// typing; where it does not, pbwrap looks from the first byte. A terminal
// that does not say is looked at; one that has not answered yet is not,
// until it does. Looking costs typing nothing: a key or a line is passed
// on as it is read.
func Looks(mode BurstMode, marks Marks, answer Answer) (look bool, why string) {
	switch {
	case mode == BurstOff:
		return false, "--burst off"
	case mode == BurstOn:
		return true, "--burst on"
	case answer == AnswerMarks:
		return false, "the terminal marks pastes"
	case answer == AnswerNoMarks:
		return true, "the terminal says it does not mark pastes"
	case marks == MarksYes:
		return false, "the front end marks pastes"
	case marks == MarksNo:
		return true, "the front end does not mark pastes"
	case answer == AnswerSilent:
		return true, "the terminal does not say whether it marks pastes"
	}
	return false, "the terminal has not said yet whether it marks pastes"
}
