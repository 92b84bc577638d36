//go:build darwin || freebsd || linux

package main

// End-to-end tests of pastes from a terminal that does not bracket them
// (issue 12): the test is such a terminal, and writes a paste as raw
// bytes, all at once or in VS Code's 50-byte chunks 5 ms apart; pbwrap
// takes the burst for a paste by its timing.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/bracketed"
	"github.com/pbwrap/pbwrap/store"
)

// vsCodeChunk and vsCodeInterval are how VS Code's terminal writes a
// paste to the program: 50 characters, then a 5 ms timer.
const (
	vsCodeChunk    = 50
	vsCodeInterval = 5 * time.Millisecond
)

// writeSpaced writes p to the terminal in chunks of size bytes, spacing
// apart, and reports whether it kept to it: whether every chunk was
// written within BurstGap of the start of the write before, less a
// margin. When it did not (a machine too loaded to keep a 5 ms timer), a
// paste may rightly be split, and the run proves nothing.
func (term *terminal) writeSpaced(p []byte, size int, spacing time.Duration) (kept bool) {
	term.t.Helper()
	const margin = 5 * time.Millisecond
	kept = true
	var prev time.Time
	for len(p) > 0 {
		n := min(size, len(p))
		if !prev.IsZero() {
			time.Sleep(time.Until(prev.Add(spacing)))
		}
		began := time.Now()
		term.Type(p[:n], 0)
		if !prev.IsZero() && time.Since(prev) >= bracketed.BurstGap-margin {
			kept = false
		}
		prev = began
		p = p[n:]
	}
	return kept
}

// waitBurst waits until the child has got a reference, or n bytes, as
// it would without pbwrap, and its input has not grown for a while since;
// or, for a paste that was split (a loaded machine), until its input has
// stopped growing: a key typed after that comes after all of the paste,
// never inside it. (A reference alone is not enough: on a loaded machine
// it may be the first part's, with the rest's burst still open, and a key
// typed then is the burst's: it was, 1 run in 50 with two CPU burners.)
func (term *terminal) waitBurst(n int) {
	term.t.Helper()
	const (
		quiet   = 4 * bracketed.BurstGap  // After a reference: longer than a burst's end takes.
		settled = 10 * bracketed.BurstGap // Not an assertion: when to stop waiting.
	)
	last, since := -1, time.Now()
	term.WaitFor("a reference or the paste", func() bool {
		got := term.File("input")
		if len(got) != last {
			last, since = len(got), time.Now()
		}
		done := strings.HasSuffix(got, "]") || strings.HasSuffix(got, "]"+pasteEnd) || len(got) >= n
		return len(got) > 0 && (done && time.Since(since) > quiet || time.Since(since) > settled)
	})
}

// readManifest reads the manifest of the terminal's one session.
func (term *terminal) readManifest() store.Manifest {
	term.t.Helper()
	raw, err := os.ReadFile(filepath.Join(term.sessionDir(), "manifest.json"))
	if err != nil {
		term.t.Fatal(err)
	}
	var m store.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		term.t.Fatal(err)
	}
	return m
}

// A 600-line paste from a terminal without bracketed paste, in one write
// or in VS Code's chunks, becomes a reference, and the file holds what was
// copied, byte for byte; the manifest says it came as a burst.
func TestBurstLargePaste(t *testing.T) {
	body := numberedLines(600, "pasted")
	for _, bp := range []bool{false, true} {
		for _, chunked := range []bool{false, true} {
			name := modeName(bp) + ", one write"
			if chunked {
				name = modeName(bp) + ", 50 bytes every 5 ms"
			}
			t.Run(name, func(t *testing.T) {
				for attempt := 1; ; attempt++ {
					term := startCapture(t, bp)
					kept := true
					if chunked {
						kept = term.writeSpaced([]byte(body), vsCodeChunk, vsCodeInterval)
					} else {
						term.Type([]byte(body), 0)
					}
					// A paste written with longer pauses is rightly split,
					// and may never add up to a reference or the whole
					// text: a run that did not keep to 5 ms proves nothing.
					if !kept && attempt < 3 {
						t.Logf("attempt %d: the test could not write every 5 ms; trying again", attempt)
						continue
					}
					if !kept {
						t.Skip("the machine is too loaded to write a chunk every 5 ms")
					}
					term.waitBurst(len(body))
					got := term.typeSentinel()
					// pbwrap itself, descheduled for longer than the burst
					// gap on a loaded machine, splits a chunked paste too;
					// a split every time is a failure.
					if chunked && attempt < 3 && got != term.oneReference(bp)+"!" {
						t.Logf("attempt %d: the paste was split (a loaded machine?); trying again", attempt)
						continue
					}
					checkBurstSaved(t, term, bp, body, got)
					term.SignalWrapper(syscall.SIGTERM)
					term.WantExit("exit 143")
					return
				}
			})
		}
	}
}

// typeSentinel types "!" and returns what the child has got up to it.
func (term *terminal) typeSentinel() string {
	term.t.Helper()
	term.Type([]byte("!"), 0)
	return term.waitInputHas("!")
}

// oneReference is what the child gets for one saved paste.
func (term *terminal) oneReference(bp bool) string {
	return bracket(bp, "[paste saved: "+filepath.Join(term.sessionDir(), "paste-1.txt")+"]")
}

// checkBurstSaved checks that the child got, before the sentinel (see
// typeSentinel), the reference to one saved paste, alone, that the file
// holds body with newlines, and that the manifest records a saved burst.
func checkBurstSaved(t *testing.T, term *terminal, bp bool, body, got string) {
	t.Helper()
	if want := term.oneReference(bp) + "!"; got != want {
		t.Fatalf("child got %.300q, want %q", got, want)
	}
	path := filepath.Join(term.sessionDir(), "paste-1.txt")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(body, "\r", "\n"); string(text) != want {
		t.Errorf("file holds %d bytes, want the %d bytes copied, with newlines", len(text), len(want))
	}
	m := term.readManifest()
	if len(m.Pastes) != 1 || m.Pastes[0].Outcome != store.OutcomeSaved || !m.Pastes[0].Burst || m.Pastes[0].Lines != 600 {
		t.Errorf("manifest pastes %+v, want one saved burst of 600 lines", m.Pastes)
	}
}

// A 3-line paste is one bracketed paste for a child with bracketed paste
// on, so that its newlines do not submit, and reaches one without it
// unchanged.
func TestBurstSmallPaste(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			term := startCapture(t, bp)
			body := "one\rtwo\rthree"
			term.Type([]byte(body), 0)
			term.waitInputHas("three")
			term.Type([]byte("!"), 0)
			if got, want := term.waitInputHas("!"), bracket(bp, body)+"!"; got != want {
				t.Errorf("child got %q, want %q", got, want)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// Keys typed one by one, 30 ms apart (key repeat) or 120 ms apart, reach
// the child as typed, Enter included, even with bracketed paste on: typing
// is not a burst. Each key is typed once the child has the one before, so
// that pbwrap reads each on its own, however loaded the machine.
func TestBurstTypingAsTyped(t *testing.T) {
	for _, spacing := range []time.Duration{30 * time.Millisecond, 120 * time.Millisecond} {
		t.Run(spacing.String(), func(t *testing.T) {
			term := startCapture(t, true)
			keys := "ls -la\recho hi\r"
			var last time.Time
			for i := range len(keys) {
				time.Sleep(time.Until(last.Add(spacing)))
				last = time.Now()
				term.Type([]byte(keys[i:i+1]), 0)
				term.WaitInput(i + 1)
			}
			if got := term.File("input"); got != keys {
				t.Errorf("child got %q, want %q as typed", got, keys)
			}
			if m := term.readManifest(); len(m.Pastes) != 0 {
				t.Errorf("manifest pastes %+v, want none", m.Pastes)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// Keys are never part of a burst: an arrow key or an Esc during a burst
// ends it and follows it, and after a burst, keys are typing.
func TestBurstEscAndArrows(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			term := startCapture(t, bp)
			// An arrow key during a burst, and a burst right after it.
			term.Type([]byte("one\rtwo\r"), 0)
			term.Type([]byte("\x1b[A"), 0)
			term.Type([]byte("three\rfour"), 0)
			want := bracket(bp, "one\rtwo\r") + "\x1b[A" + bracket(bp, "three\rfour")
			if got := term.waitInputHas(bracket(bp, "three\rfour")); got != want {
				t.Fatalf("arrow during a burst: child got %q, want %q", got, want)
			}
			// The Esc key during a burst.
			term.Type([]byte("five\rsix"), 0)
			term.Type([]byte("\x1b"), 0)
			want += bracket(bp, "five\rsix") + "\x1b"
			if got := term.waitInputHas(bracket(bp, "five\rsix") + "\x1b"); got != want {
				t.Fatalf("Esc during a burst: child got %q, want %q", got, want)
			}
			// Esc and an arrow key after the burst.
			term.Type([]byte("\x1b"), 0)
			want += "\x1b"
			term.WaitInput(len(want))
			term.Type([]byte("\x1b[B"), 0)
			want += "\x1b[B"
			term.WaitInput(len(want))
			if got := term.File("input"); got != want {
				t.Errorf("keys after a burst: child got %q, want %q", got, want)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}
