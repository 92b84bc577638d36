//go:build darwin || freebsd || linux

package main

// End-to-end tests of pastes from a terminal that does not mark them: the
// test is such a terminal (it answers pbwrap's question as one that does
// not know mode 2004), and writes a paste as raw bytes, in the chunks and
// at the times a terminal does; pbwrap saves a large one whole, and passes
// anything else exactly as typed.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// startUnmarked starts pbwrap in a terminal that says it does not mark
// pastes, with a debug log that a failed test shows.
func startUnmarked(t *testing.T, bp bool) *terminal {
	t.Helper()
	log := filepath.Join(t.TempDir(), "debug.log")
	t.Cleanup(func() {
		if t.Failed() {
			text, _ := os.ReadFile(log)
			t.Logf("pbwrap's log:\n%s", text)
		}
	})
	return startCaptureAnswering(t, bp, ptytest.AnswerNoMarks, "PBWRAP_LOG="+log, "PBWRAP_DEBUG=1")
}

// writeKept writes p to the terminal in chunks of size bytes, spacing
// apart, and reports whether it kept to the pace of a paste: no chunk
// later than termproto.BurstGap after the one before, less a margin. When
// it did not (a machine too loaded to keep the pace), the terminal paused,
// a paste may rightly be split, and the run proves nothing.
func (term *terminal) writeKept(p []byte, size int, spacing time.Duration) (kept bool) {
	term.t.Helper()
	const margin = 10 * time.Millisecond
	kept = true
	var prev time.Time
	for len(p) > 0 {
		n := min(size, len(p))
		if !prev.IsZero() && spacing > 0 {
			time.Sleep(time.Until(prev.Add(spacing)))
		}
		began := time.Now()
		if !prev.IsZero() && began.Sub(prev) >= termproto.BurstGap-margin {
			kept = false
		}
		term.Type(p[:n], 0)
		prev = time.Now()
		if prev.Sub(began) >= termproto.BurstGap-margin {
			kept = false // The write itself stalled (blocked, then not run): the terminal may have paused.
		}
		p = p[n:]
	}
	return kept
}

// waitSettled waits until the child's input has not grown for a while,
// and holds a reference or n bytes: all pbwrap does with what was typed is
// done.
func (term *terminal) waitSettled(n int) {
	term.t.Helper()
	const quiet = 4 * termproto.BurstGap
	last, since := -1, time.Now()
	term.WaitFor("a reference or the paste", func() bool {
		got := term.File("input")
		if len(got) != last {
			last, since = len(got), time.Now()
		}
		done := strings.HasSuffix(got, "]") || strings.HasSuffix(got, "]"+pasteEnd) || len(got) >= n
		return len(got) > 0 && done && time.Since(since) > quiet
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

// A 600-line paste from a terminal that does not mark pastes becomes a
// reference, and the file holds what was copied, byte for byte, however
// the terminal writes and paces it: in one write, in 4 KiB writes, 1 KB
// every 20 ms (which was typed as its lines, each Entered, when pbwrap
// held every key for 16 ms), 512 bytes every 5 ms; with form feeds,
// backspaces and colours in it. The manifest says it came unmarked.
func TestBurstLargePaste(t *testing.T) {
	plain := ptytest.Lines(600, "pasted")
	var controls, colours strings.Builder
	for i := range 600 {
		fmt.Fprintf(&controls, "line %d\f with a backspace\x08 and a tab\t\r", i)
		fmt.Fprintf(&colours, "\x1b[32m12:00:%02d\x1b[0m \x1b[1mINFO\x1b[0m request %d\r", i%60, i)
	}
	for _, tc := range []struct {
		name, body string
		size       int
		spacing    time.Duration
	}{
		{"one write", plain, 0, 0},
		{"4 KiB writes", plain, 4096, 0},
		{"1 KB every 20 ms", plain, 1024, 20 * time.Millisecond},
		{"512 bytes every 5 ms", plain, 512, 5 * time.Millisecond},
		{"form feeds and backspaces", controls.String(), 4096, 0},
		{"colours", colours.String(), 4096, 0},
	} {
		for _, bp := range []bool{false, true} {
			t.Run(modeName(bp)+", "+tc.name, func(t *testing.T) {
				for attempt := 1; ; attempt++ {
					term := startUnmarked(t, bp)
					body := []byte(tc.body)
					kept := true
					if tc.size > 0 {
						kept = term.writeKept(body, tc.size, tc.spacing)
					} else {
						term.Type(body, 0)
					}
					if !kept && attempt < 5 {
						t.Logf("attempt %d: the test could not keep the terminal's pace; trying again", attempt)
						continue
					}
					term.waitQuiet() // Whatever it came to: a split is tried again.
					got := term.typeSentinel()
					if !kept && got != term.oneReference(bp)+"!" {
						t.Skipf("the machine is too loaded to write as a terminal does: the terminal paused, and the paste was rightly split")
					}
					// The kernel moves what the terminal writes to pbwrap's
					// side in a worker of its own, which a busy machine can
					// leave unscheduled for longer than the gap: a pause
					// that neither side can see coming. A split every time
					// is a failure.
					if got != term.oneReference(bp)+"!" && attempt < 5 {
						t.Logf("attempt %d: the paste was split (the kernel paused it?); trying again", attempt)
						term.SignalWrapper(syscall.SIGTERM)
						term.WantExit("exit 143")
						continue
					}
					checkBurstSaved(t, term, bp, tc.body, got)
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

// A 3-line paste, under the threshold, reaches the child exactly as the
// terminal sent it, also with bracketed paste on: as typed.
func TestBurstSmallPaste(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			term := startUnmarked(t, bp)
			body := "one\rtwo\rthree"
			term.Type([]byte(body), 0)
			term.waitInputHas("three")
			term.Type([]byte("!"), 0)
			if got, want := term.waitInputHas("!"), body+"!"; got != want {
				t.Errorf("child got %q, want %q", got, want)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// Typing reaches the child as typed, Enter included, in every rhythm a
// person or a program types in, with bracketed paste on: keys 30 ms and
// 120 ms apart, 4 ms apart, a program's a millisecond apart, clumps of
// keys, two commands and their Enters in one write; arrow keys and Esc
// among them. Nothing is saved.
func TestBurstTypingAsTyped(t *testing.T) {
	keys := "ls -la\x1b[D\x1b[C\recho hi\x1b\r"
	for _, tc := range []struct {
		name    string
		size    int
		spacing time.Duration
	}{
		{"30ms apart", 1, 30 * time.Millisecond},
		{"120ms apart", 1, 120 * time.Millisecond},
		{"4ms apart", 1, 4 * time.Millisecond},
		{"a program, 1ms apart", 1, time.Millisecond},
		{"clumps of 4, 20ms apart", 4, 20 * time.Millisecond},
		{"all in one write", len(keys), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := startUnmarked(t, true)
			term.writeKept([]byte(keys), tc.size, tc.spacing)
			term.WaitInput(len(keys))
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

// What the terminal answers decides, and never reaches the child. One
// that marks pastes (xterm's answer) gets unmarked input as typed from the
// first byte, a large one included; one that answers nothing gets the
// looking, from AnswerWait on.
func TestBurstTerminalAnswers(t *testing.T) {
	body := ptytest.Lines(300, "raw")
	t.Run("marks", func(t *testing.T) {
		term := startCaptureAnswering(t, true, ptytest.AnswerMarks)
		term.Type([]byte("x"), 0)
		term.Type([]byte(body), 0)
		term.WaitInput(len(body) + 1)
		if got := term.File("input"); got != "x"+body {
			t.Errorf("child got %.100q, want the input as typed", got)
		}
		term.SignalWrapper(syscall.SIGTERM)
		term.WantExit("exit 143")
	})
	t.Run("nothing", func(t *testing.T) {
		term := startCaptureAnswering(t, true, ptytest.AnswerNothing)
		time.Sleep(2500 * time.Millisecond) // capture.AnswerWait, and some.
		term.Type([]byte(body), 0)
		term.waitSettled(len(body))
		if got := term.typeSentinel(); got != term.oneReference(true)+"!" {
			t.Errorf("child got %.100q, want a reference", got)
		}
		term.SignalWrapper(syscall.SIGTERM)
		term.WantExit("exit 143")
	})
	t.Run("the answer is not the child's", func(t *testing.T) {
		for _, answer := range []ptytest.Answer{ptytest.AnswerMarks, ptytest.AnswerNoMarks} {
			term := startCaptureAnswering(t, false, answer)
			term.Type([]byte("!"), 0)
			if got := term.waitInputHas("!"); got != "!" {
				t.Errorf("answer %q: child got %q, want only what was typed", answer, got)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		}
	})
}

// A command that ends before the terminal's answer has come (a slow link:
// 300 ms) does not leave the answer to the shell: pbwrap reads on until it
// comes, and the shell reads only what is typed for it.
func TestAnswerAfterTheCommandEnded(t *testing.T) {
	job := ptytest.Job{
		Wrapper:     []string{pbwrapBin, "--"},
		Steps:       []string{"raw", "exit:0"},
		Shell:       true,
		AnswerAfter: 300 * time.Millisecond,
	}
	term := &terminal{Terminal: ptytest.Start(t, job), t: t}
	term.WantExit("exit 0")
	time.Sleep(500 * time.Millisecond) // The answer has come by now.
	term.wantShellGetsNothing()
}
