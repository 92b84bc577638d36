package ptyio

import (
	"errors"
	"os"
	"time"
)

// ErrNotATerminal is the error of ControllingTTY, and of what opens it,
// when the process has no controlling terminal.
var ErrNotATerminal = errors.New("not run from a terminal")

// QueryTerminal asks the controlling terminal whether it supports
// bracketed paste (termproto.PasteQuestion: DECRQM for mode 2004, then
// DA1) and returns the DECRQM state it answers as paste: "1" set, "2"
// reset, "3" permanently set, "0" not recognized or "4" permanently reset
// (not supported); "" when it does not answer within timeout. It asks too,
// before the DA1 that fences the answers, whether the terminal has kitty's
// clipboard paste events (termproto.ClipQuestion, DECRQM for mode 5522):
// clip is that answer, "1" or "2" from a terminal that has them, "0" or
// "4" from one that does not, "" when it gives none (most terminals, tmux
// 3.3a, screen). It fails with ErrNotATerminal when there is no
// controlling terminal; its other errors say what failed.
//
// The terminal is asked on its own descriptor, opened with OpenTTY: Go's
// read deadlines cannot serve, since on macOS /dev/tty cannot be
// registered with kqueue, so Go gives it none. While it waits, the
// terminal is in QuestionMode: a Ctrl-C is a byte, not a SIGINT that would
// end the program before the terminal is restored. The terminal's
// settings are restored on every return.
//
// No answer is left for the shell to read as typed text. The input is
// read a byte at a time up to the DA1 answer, which comes last, so what
// the user types after it is left alone, but what the user typed before
// it is read and lost. If DA1 has not come by timeout, the answers are
// drained for lateGrace more (a DECRQM answer then is not reported), and
// if DA1 has still not come, all pending input is discarded (FlushInput),
// keys typed meanwhile included. An answer that arrives after that still
// leaks: a longer grace would make every terminal that never answers DA1
// wait longer, for a link slower than any pbwrap is used over.
//
// It builds on Linux, macOS and FreeBSD; elsewhere it fails with an error
// wrapping errors.ErrUnsupported.
func QueryTerminal(timeout time.Duration) (paste, clip string, err error) {
	tty, err := ControllingTTY()
	if err != nil {
		return "", "", err
	}
	defer tty.Close() // Best effort: the settings are restored already.
	return terminalQuery{timeout: timeout, grace: lateGrace, clip: true}.askModes(tty)
}

// lateGrace is how long, after the deadline, the answers of a terminal
// that has not answered DA1 are waited for to drain them: answers already
// on their way (a slow ssh link) come within about a round trip. Only a
// terminal that has not answered DA1 by the deadline costs this wait, and
// every terminal answers DA1.
const lateGrace = 200 * time.Millisecond

// A terminalQuery is QueryTerminal's question, with its waits.
type terminalQuery struct {
	timeout time.Duration // how long the answers are waited for
	grace   time.Duration // after timeout, how long late answers are drained before the input is discarded
	late    func()        // if set, called when timeout has passed without the DA1 answer (a test seam)
	clip    bool          // ask for mode 5522 too (see QueryTerminal)
}

// OpenTTY opens the terminal at path, for reading and writing, without
// making it the controlling terminal, as a blocking descriptor that Go's
// poller never sees: its reads wait as the terminal's settings say (see
// QuestionMode), and it has no deadlines. The caller closes it. Its errors
// are *os.PathError; elsewhere than on Linux, macOS and FreeBSD they wrap
// errors.ErrUnsupported.
func OpenTTY(path string) (*os.File, error) { return openTTY(path) }

// ControllingTTY opens the process's controlling terminal, /dev/tty, as
// OpenTTY does; ErrNotATerminal when there is none. The caller closes it.
func ControllingTTY() (*os.File, error) { return controllingTTY() }

// FlushInput discards the input the terminal tty has received and not yet
// been read: tcflush(fd, TCIFLUSH). tty stays as it is (in Go's poller or
// not). Its error is an *os.PathError naming tty; elsewhere than on Linux,
// macOS and FreeBSD it wraps errors.ErrUnsupported.
func FlushInput(tty *os.File) error {
	if err := control(tty, flushInput); err != nil {
		return &os.PathError{Op: "tcflush", Path: tty.Name(), Err: err}
	}
	return nil
}
