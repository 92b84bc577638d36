package capture

import (
	"io"
	"time"

	"github.com/pbwrap/pbwrap/bracketed"
)

// Output is the filter on the child's output: it tracks the child's
// bracketed paste mode and hides the child's own mode 2004 changes from the
// terminal, where pbwrap keeps the mode on. It is not safe for concurrent
// use, except Mode.
//
// An incomplete escape sequence at the end of a read is held until the
// rest arrives, however long that takes, and released only at the end of
// the output: releasing it early could let the rest complete a mode 2004
// reset at the terminal, and a terminal shows nothing of an incomplete
// sequence anyway.
type Output struct {
	mode   bracketed.ModeFilter
	was    bool
	debugf func(string, ...any)
}

// NewOutput returns the output filter; debugf, if not nil, hears of every
// change of the child's mode.
func NewOutput(debugf func(string, ...any)) *Output {
	if debugf == nil {
		debugf = func(string, ...any) {}
	}
	return &Output{debugf: debugf}
}

// Mode reports whether the child has bracketed paste on. Safe for
// concurrent use: Input asks it from the input goroutine.
func (o *Output) Mode() bool { return o.mode.Enabled() }

// Filter passes the child's output p on to the terminal w.
func (o *Output) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	err := write(w, o.mode.Write(p))
	if on := o.mode.Enabled(); on != o.was {
		o.was = on
		o.debugf("child bracketed paste mode: %v", on)
	}
	return time.Time{}, err
}

// Flush does nothing: Filter never asks for a deadline (see Output).
func (o *Output) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }

// Close releases what is held at the end of the output.
func (o *Output) Close(w io.Writer) error { return write(w, o.mode.Flush()) }

func write(w io.Writer, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	_, err := w.Write(p)
	return err
}
