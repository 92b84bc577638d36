package capture

import (
	"io"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// Output is the filter on the child's output (termproto.OutputFilter): it
// follows the terminal modes the child sets, so that pbwrap can undo them
// when it gives the terminal back and set them again when it takes it
// over (AppendReset, AppendRestore); it drops the child's requests to read
// the terminal's clipboard, unless they are allowed; and it tracks the
// child's bracketed paste mode and keeps the child from turning the
// terminal's off, where pbwrap keeps it on. It is not safe for concurrent
// use, except Mode.
//
// An incomplete escape sequence at the end of a read is held until the
// rest arrives, however long that takes, and dropped at the end of the
// output: releasing it early could let the rest complete a mode 2004
// reset at the terminal, and a terminal shows nothing of an incomplete
// sequence anyway.
type Output struct {
	f       termproto.OutputFilter
	was     bool
	dropped int
	logf    func(string, ...any)
	debugf  func(string, ...any)
	told    []byte // what Between holds for the next boundary
}

// OutputConfig configures an Output.
type OutputConfig struct {
	// AllowClipboardRead lets the child's requests to read the terminal's
	// clipboard (OSC 52 "?", OSC 5522 type=read) reach the terminal.
	AllowClipboardRead bool
	// EightBit reads the output as a terminal in an 8-bit locale does,
	// with every byte from 0x80 to 0x9F a C1 control (see
	// termproto.Tokenizer); otherwise it is read as UTF-8.
	EightBit bool
	// OwnClipMode keeps the child's sequences for kitty's paste events
	// (mode 5522) from the terminal: pbwrap owns the mode while image
	// paste may be on (see termproto.OutputFilter.OwnClipMode).
	OwnClipMode bool
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
	o.f.AllowClipboardRead = cfg.AllowClipboardRead
	o.f.EightBit = cfg.EightBit
	o.f.OwnClipMode = cfg.OwnClipMode
	return o
}

// Mode reports whether the child has bracketed paste on. Safe for
// concurrent use: Input asks it from the input goroutine.
func (o *Output) Mode() bool { return o.f.Enabled() }

// Filter passes the child's output p on to the terminal w, and then,
// once the output stands between two sequences, what Between held.
func (o *Output) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	err := write(w, o.f.Write(p))
	o.noteChanges()
	if len(o.told) > 0 && o.f.Idle() {
		if e := write(w, o.told); err == nil {
			err = e
		}
		o.told = o.told[:0]
	}
	return time.Time{}, err
}

// Between returns p, pbwrap's own sequence for the terminal, if the
// output stands between two sequences, so that it can be written now;
// otherwise it keeps p, and Filter writes it once the child's sequence
// under way is through, and returns nil. It must not be called
// concurrently with Filter (the proxy calls it with the output held: see
// ptyproxy.Teller).
func (o *Output) Between(p []byte) []byte {
	if o.f.Idle() && len(o.told) == 0 {
		return p
	}
	o.told = append(o.told, p...)
	return nil
}

// Flush does nothing: Filter never asks for a deadline (see Output).
func (o *Output) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }

// Close ends the output: a control string the child left open is ended,
// an unfinished sequence dropped.
func (o *Output) Close(w io.Writer) error {
	err := write(w, o.f.Close())
	o.noteChanges()
	return err
}

// AppendReset appends to dst what undoes, at the terminal, the modes the
// child has on (see termproto.OutputFilter.AppendReset); AppendRestore what
// sets them again. Neither covers bracketed paste, which is pbwrap's own.
// They must not be called concurrently with Filter or Close.
func (o *Output) AppendReset(dst []byte) []byte {
	n := len(dst)
	dst = o.f.AppendReset(dst)
	if len(dst) > n {
		o.debugf("terminal: resetting the child's modes: %q", dst[n:])
	}
	return dst
}

// SetCursorBlink records the terminal's answer for mode 12 (see
// termproto.OutputFilter.SetCursorBlink). Safe for concurrent use.
func (o *Output) SetCursorBlink(answer byte) { o.f.SetCursorBlink(answer) }

// AppendRestore: see AppendReset.
func (o *Output) AppendRestore(dst []byte) []byte {
	n := len(dst)
	dst = o.f.AppendRestore(dst)
	if len(dst) > n {
		o.debugf("terminal: restoring the child's modes: %q", dst[n:])
	}
	return dst
}

// noteChanges logs a change of the child's bracketed paste mode and the
// clipboard requests dropped since the last call.
func (o *Output) noteChanges() {
	if on := o.f.Enabled(); on != o.was {
		o.was = on
		o.debugf("child bracketed paste mode: %v", on)
	}
	if n := o.f.Dropped(); n > o.dropped {
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

// LocaleEightBit reports whether the locale that getenv describes (LC_ALL,
// else LC_CTYPE, else LANG) names a character set other than UTF-8, as in
// "en_US.ISO-8859-1": a terminal that runs in it reads bytes 0x80 to 0x9F
// as C1 controls (OutputConfig.EightBit). A locale with no character set
// ("C", "POSIX", "en_US") is taken for UTF-8, which every current terminal
// uses whatever the locale says, and which agents write.
func LocaleEightBit(getenv func(string) string) bool {
	loc := ""
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if loc = getenv(name); loc != "" {
			break
		}
	}
	_, set, ok := strings.Cut(loc, ".")
	if !ok {
		return false
	}
	set, _, _ = strings.Cut(set, "@")
	set = strings.ToLower(strings.ReplaceAll(set, "-", ""))
	return set != "" && set != "utf8"
}
