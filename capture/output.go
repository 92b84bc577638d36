package capture

import (
	"bytes"
	"io"
	"math"
	"time"

	"github.com/pbwrap/pbwrap/bracketed"
)

// Output is the filter on the child's output. It follows the terminal
// modes the child sets (bracketed.ModeTracker), so that pbwrap can undo
// them when it gives the terminal back and set them again when it takes it
// over (AppendReset, AppendRestore); it drops the child's requests to read
// the terminal's clipboard, unless they are allowed; and it tracks the
// child's bracketed paste mode and hides the child's own mode 2004 changes
// from the terminal, where pbwrap keeps the mode on (bracketed.ModeFilter).
// It is not safe for concurrent use, except Mode.
//
// An incomplete escape sequence at the end of a read is held until the
// rest arrives, however long that takes, and released only at the end of
// the output: releasing it early could let the rest complete a mode 2004
// reset at the terminal, and a terminal shows nothing of an incomplete
// sequence anyway.
type Output struct {
	modes   bracketed.ModeTracker // first: drops clipboard reads, follows the modes
	mode    bracketed.ModeFilter  // then: hides mode 2004
	was     bool
	dropped int
	logf    func(string, ...any)
	debugf  func(string, ...any)
}

// OutputConfig configures an Output.
type OutputConfig struct {
	// AllowClipboardRead lets the child's requests to read the terminal's
	// clipboard (OSC 52 "?", OSC 5522 type=read) reach the terminal.
	AllowClipboardRead bool
	// Logf, if not nil, hears of every clipboard request dropped; Debugf,
	// if not nil, of every change of the child's bracketed paste mode and
	// of what is written to reset and restore the child's modes.
	Logf, Debugf func(string, ...any)
}

// NewOutput returns the output filter.
func NewOutput(cfg OutputConfig) *Output {
	o := &Output{logf: cfg.Logf, debugf: cfg.Debugf}
	if o.logf == nil {
		o.logf = func(string, ...any) {}
	}
	if o.debugf == nil {
		o.debugf = func(string, ...any) {}
	}
	o.modes.AllowClipboardRead = cfg.AllowClipboardRead
	return o
}

// Mode reports whether the child has bracketed paste on. Safe for
// concurrent use: Input asks it from the input goroutine.
func (o *Output) Mode() bool { return o.mode.Enabled() }

// Passing implements ptyproxy.Passer: text without ESC goes through
// unchanged, however long, unless a sequence is under way.
func (o *Output) Passing() int {
	if o.modes.Idle() && !o.mode.Pending() {
		return math.MaxInt
	}
	return 0
}

// Filter passes the child's output p on to the terminal w.
func (o *Output) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	if o.modes.Idle() && !o.mode.Pending() && bytes.IndexByte(p, 0x1b) < 0 {
		return time.Time{}, write(w, p) // Text, without ESC: one look for both filters.
	}
	err := write(w, o.mode.Write(o.modes.Write(p)))
	o.noteChanges()
	return time.Time{}, err
}

// Flush does nothing: Filter never asks for a deadline (see Output).
func (o *Output) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }

// Close releases what is held at the end of the output (a clipboard
// request cut short is dropped).
func (o *Output) Close(w io.Writer) error {
	err := write(w, o.mode.Write(o.modes.Flush()))
	if err2 := write(w, o.mode.Flush()); err == nil {
		err = err2
	}
	o.noteChanges()
	return err
}

// AppendReset appends to dst what undoes, at the terminal, the modes the
// child has on (see bracketed.ModeTracker.AppendReset); AppendRestore what
// sets them again. Neither covers bracketed paste, which is pbwrap's own.
// They must not be called concurrently with Filter or Close.
func (o *Output) AppendReset(dst []byte) []byte {
	n := len(dst)
	dst = o.modes.AppendReset(dst)
	if len(dst) > n {
		o.debugf("terminal: resetting the child's modes: %q", dst[n:])
	}
	return dst
}

// AppendRestore: see AppendReset.
func (o *Output) AppendRestore(dst []byte) []byte {
	n := len(dst)
	dst = o.modes.AppendRestore(dst)
	if len(dst) > n {
		o.debugf("terminal: restoring the child's modes: %q", dst[n:])
	}
	return dst
}

// noteChanges logs a change of the child's bracketed paste mode and the
// clipboard requests dropped since the last call.
func (o *Output) noteChanges() {
	if on := o.mode.Enabled(); on != o.was {
		o.was = on
		o.debugf("child bracketed paste mode: %v", on)
	}
	if n := o.modes.Dropped(); n > o.dropped {
		o.logf("output: dropped %d request(s) from the child to read the terminal's clipboard (OSC 52 or 5522); --allow-clipboard-read lets them through", n-o.dropped)
		o.dropped = n
	}
}

func write(w io.Writer, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	_, err := w.Write(p)
	return err
}
