package capture

import (
	"bytes"
	"testing"
	"time"
)

// A mode 2004 reset split across reads, however far apart, never reaches
// the terminal, and the child's mode follows it.
func TestOutputHoldsSplitSequence(t *testing.T) {
	o := NewOutput(nil)
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

// What is still held at the end of the output is written then.
func TestOutputCloseReleasesHeld(t *testing.T) {
	o := NewOutput(nil)
	var term bytes.Buffer
	if _, err := o.Filter(&term, []byte("bye\x1b[?1"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(&term); err != nil {
		t.Fatal(err)
	}
	if got := term.String(); got != "bye\x1b[?1" {
		t.Errorf("terminal got %q", got)
	}
}
