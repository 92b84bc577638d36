//go:build darwin || freebsd || linux

package ptyproxy

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// wrapArg, as the first argument, makes the test binary play the wrapper
// of the end-to-end tests (wrapMain).
const wrapArg = "__ptyproxy-test-wrap"

// TestMain lets the test binary play every program the end-to-end tests
// run, as Go's os/signal tests re-run their own binary: the session
// process, as any program that calls Run must; the wrapper; and
// ptytest's leader and recording child.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case ShimArg:
			os.Exit(RunShim(os.Args[2:]))
		case wrapArg:
			os.Exit(wrapMain(os.Args[2:]))
		}
	}
	ptytest.Dispatch()
	os.Exit(m.Run())
}

// wrapMain is the wrapper of the end-to-end tests: pbwrap without its
// filters. It runs argv in a PTY with bracketed paste on at the terminal,
// as pbwrap does, and exits as pbwrap's main does: with the command's
// status, or a shell's status when the command cannot be started.
// PBWRAP_TEST_PANIC=WORD makes the output pump panic when the command
// prints WORD, to show that the terminal is restored when the wrapper
// panics. PBWRAP_TEST_FILTER=NAME puts an input filter of inputFilters in
// place, and PBWRAP_TEST_LOG=FILE sends the proxy's log to FILE.
func wrapMain(argv []string) int {
	if word := os.Getenv("PBWRAP_TEST_PANIC"); word != "" {
		onOutput = panicOn(word)
	}
	path, err := LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "wrap: %v\n", err)
		return err.(*ExecError).Code
	}
	status, err := Run(Config{
		Path:          path,
		Args:          argv,
		Env:           os.Environ(),
		Input:         inputFilters[os.Getenv("PBWRAP_TEST_FILTER")],
		TerminalSetup: []byte("\x1b[?2004h"),
		TerminalReset: []byte("\x1b[?2004l"),
		Logf:          testLog(os.Getenv("PBWRAP_TEST_LOG")),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "wrap: %v\n", err)
		return 1
	}
	return status
}

// inputFilters are the input filters the test wrapper can use, by name.
var inputFilters = map[string]Filter{
	"":        nil,
	"dot":     &untilDot{},
	"forever": &untilDot{never: true},
}

// untilDot is an Unfinished input filter that passes bytes on and, once it
// has seen any, wants more until it sees a "." (never, with never). It
// asks for no deadline.
type untilDot struct {
	started, done, never bool
}

func (f *untilDot) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	f.started = true
	f.done = !f.never && bytes.Contains(p, []byte("."))
	_, err := w.Write(p)
	return time.Time{}, err
}

func (f *untilDot) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (f *untilDot) Close(io.Writer) error                         { return nil }
func (f *untilDot) CommandEnded()                                 {}
func (f *untilDot) Pending() bool                                 { return f.started && !f.done }

// testLog returns a Logf that appends to the file name, or nil.
func testLog(name string) func(string, ...any) {
	if name == "" {
		return nil
	}
	return func(format string, args ...any) {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return
		}
		defer f.Close()
		fmt.Fprintf(f, format+"\n", args...)
	}
}

func panicOn(word string) func([]byte) {
	return func(p []byte) {
		if bytes.Contains(p, []byte(word)) {
			panic("test panic on " + word)
		}
	}
}

// start runs the test wrapper on job in a test terminal.
func start(t *testing.T, job ptytest.Job) *ptytest.Terminal {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	job.Wrapper = []string{self, wrapArg}
	return ptytest.Start(t, job)
}
