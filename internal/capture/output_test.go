package capture

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A mode 2004 reset split across reads, however far apart, never reaches
// the terminal, and the child's mode follows it.
func TestOutputHoldsSplitSequence(t *testing.T) {
	o := NewOutput(OutputConfig{})
	var term bytes.Buffer
	now := time.Now()
	for _, chunk := range []string{"\x1b[?2004h", "text\x1b[?20", "04l more"} {
		deadline, err := o.Filter(&term, []byte(chunk), now)
		if err != nil || !deadline.IsZero() {
			t.Fatalf("Filter(%q) = %v, %v; want no deadline", chunk, deadline, err)
		}
		now = now.Add(time.Hour)
	}
	if err := o.Close(&term); err != nil {
		t.Fatal(err)
	}
	if got := term.String(); got != "text more" {
		t.Errorf("terminal got %q, want %q", got, "text more")
	}
	if o.Mode() {
		t.Error("the child's mode is still on after its split reset")
	}
}

// What is still held at the end of the output goes nowhere: the terminal
// would only have held it, and what pbwrap writes next (its resets) must
// not complete it; a control string left open is ended, so that what
// follows is not read into it.
func TestOutputCloseDropsHeld(t *testing.T) {
	for in, want := range map[string]string{
		"bye\x1b[?1":    "bye",
		"bye\x1b]0":     "bye",
		"bye\x1b":       "bye",
		"bye\x1b]0;tit": "bye\x1b]0;tit\x1b\\",
	} {
		o := NewOutput(OutputConfig{})
		var term bytes.Buffer
		if _, err := o.Filter(&term, []byte(in), time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := o.Close(&term); err != nil {
			t.Fatal(err)
		}
		if got := term.String(); got != want {
			t.Errorf("%q: terminal got %q, want %q", in, got, want)
		}
	}
}

// The child's modes are followed through the whole filter, its mode 2004
// among them hidden, and AppendReset and AppendRestore undo and redo
// exactly what it left on: not bracketed paste, which is pbwrap's.
func TestOutputModes(t *testing.T) {
	var debug []string
	o := NewOutput(OutputConfig{Debugf: func(f string, a ...any) { debug = append(debug, fmt.Sprintf(f, a...)) }})
	var term bytes.Buffer
	for _, chunk := range []string{"\x1b[?1049;20", "04h\x1b[?25l\x1b[>1u", "hi\x1b[?1000h\x1b[?1000l"} {
		if _, err := o.Filter(&term, []byte(chunk), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := term.String(), "\x1b[?1049h\x1b[?25l\x1b[>1uhi\x1b[?1000h\x1b[?1000l"; got != want {
		t.Errorf("terminal got %q, want %q", got, want)
	}
	if !o.Mode() {
		t.Error("the child's bracketed paste mode is off after its ?1049;2004h")
	}
	if got, want := string(o.AppendReset([]byte("<"))), "<\x1b[<1u\x1b[?1049l\x1b[?25h"; got != want {
		t.Errorf("AppendReset = %q, want %q", got, want)
	}
	if got, want := string(o.AppendRestore(nil)), "\x1b[?1049h\x1b[>1u\x1b[?25l"; got != want {
		t.Errorf("AppendRestore = %q, want %q", got, want)
	}
	if want := `terminal: resetting the child's modes: "\x1b[<1u\x1b[?1049l\x1b[?25h"`; !slices.Contains(debug, want) {
		t.Errorf("debug log %q lacks %q", debug, want)
	}
}

// A request to read the clipboard, split across reads, never reaches the
// terminal, and the log says so once; a write passes. Allowed, the read
// passes too.
func TestOutputClipboardRead(t *testing.T) {
	const read, write = "\x1b]52;c;?\x07", "\x1b]52;c;aGk=\x07"
	for _, allow := range []bool{false, true} {
		var logged []string
		o := NewOutput(OutputConfig{AllowClipboardRead: allow, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
		var term bytes.Buffer
		for _, chunk := range []string{"a\x1b]52;c", ";?\x07b", write} {
			if _, err := o.Filter(&term, []byte(chunk), time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if err := o.Close(&term); err != nil {
			t.Fatal(err)
		}
		want, wantLogs := "ab"+write, 1
		if allow {
			want, wantLogs = "a"+read+"b"+write, 0
		}
		if got := term.String(); got != want {
			t.Errorf("allowed %v: terminal got %q, want %q", allow, got, want)
		}
		if len(logged) != wantLogs || wantLogs > 0 && !strings.Contains(logged[0], "--allow-clipboard-read") {
			t.Errorf("allowed %v: logged %q, want %d line(s) naming --allow-clipboard-read", allow, logged, wantLogs)
		}
	}
}

// A clipboard request cut short by the end of the output is dropped at
// Close, and logged.
func TestOutputCloseDropsCutRequest(t *testing.T) {
	var logged []string
	o := NewOutput(OutputConfig{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	var term bytes.Buffer
	if _, err := o.Filter(&term, []byte("bye\x1b]52;c"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(&term); err != nil {
		t.Fatal(err)
	}
	if got := term.String(); got != "bye" {
		t.Errorf("terminal got %q, want %q", got, "bye")
	}
	if len(logged) != 1 {
		t.Errorf("logged %q, want one line", logged)
	}
}
