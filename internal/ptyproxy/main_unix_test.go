//go:build darwin || freebsd || linux

package ptyproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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
			os.Exit(RunShim())
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
// PBWRAP_TEST_SPY=1 puts an output filter in place that counts the bytes
// it passes, and makes the terminal set-up and reset say how many it had
// passed when they were asked for: "<setup N>" after bracketed paste on,
// with " child stopped" or " child running" after N once the child has
// started, and "<reset N>" before it is off; PBWRAP_TEST_SPY_DELAY=D makes it take D
// over each chunk, as a filter slowed down by a loaded machine would.
// PBWRAP_TEST_RESET_PANIC=1 makes the reset panic.
func wrapMain(argv []string) int {
	if name := os.Getenv("PBWRAP_TEST_ABANDON"); name != "" {
		return abandon(name)
	}
	if word := os.Getenv("PBWRAP_TEST_PANIC"); word != "" {
		onOutput = panicOn(word)
	}
	path, err := LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "wrap: %v\n", err)
		return err.(*ExecError).Code
	}
	cfg := Config{
		Path:          path,
		Args:          argv,
		Env:           os.Environ(),
		Input:         inputFilters[os.Getenv("PBWRAP_TEST_FILTER")],
		TerminalSetup: func() []byte { return []byte("\x1b[?2004h") },
		TerminalReset: func() []byte { return []byte("\x1b[?2004l") },
		Logf:          testLog(os.Getenv("PBWRAP_TEST_LOG")),
	}
	if u, ok := cfg.Input.(*untilDot); ok {
		u.logf = cfg.Logf
	}
	if os.Getenv("PBWRAP_TEST_SPY") != "" {
		spy := &outputSpy{}
		spy.delay, _ = time.ParseDuration(os.Getenv("PBWRAP_TEST_SPY_DELAY"))
		cfg.Output = spy
		cfg.TerminalSetup = func() []byte { return fmt.Appendf(nil, "\x1b[?2004h<setup %d%s>", spy.n, childState()) }
		cfg.TerminalReset = func() []byte { return fmt.Appendf(nil, "<reset %d>\x1b[?2004l", spy.n) }
	}
	if os.Getenv("PBWRAP_TEST_RESET_PANIC") != "" {
		cfg.TerminalReset = func() []byte { panic("test panic in TerminalReset") }
	}
	status, err := Run(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wrap: %v\n", err)
		return 1
	}
	return status
}

// abandon is the test wrapper that starts a run and gives it up: it
// closes the run, writes to the file name whether the session process is
// gone then ("gone", or "there"), and exits with status 3.
func abandon(name string) int {
	p, err := Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "wrap: %v\n", err)
		return 1
	}
	if err := p.awaitSpawn(); err != nil {
		fmt.Fprintf(os.Stderr, "wrap: %v\n", err)
		return 1
	}
	p.Close()
	state := "there"
	if errors.Is(unix.Kill(p.pid, 0), unix.ESRCH) {
		state = "gone"
	}
	if err := os.WriteFile(name, []byte(state), 0o600); err != nil {
		return 1
	}
	return 3
}

// childState says whether the running session's child is stopped, or ""
// before it has started.
func childState() string {
	s := active.Load()
	if s == nil || s.child.Load() <= 0 {
		return ""
	}
	if stopped, err := ptytest.Stopped(int(s.child.Load())); err != nil || !stopped {
		return " child running"
	}
	return " child stopped"
}

// outputSpy is an output filter that passes bytes on and counts them,
// taking delay over each chunk.
type outputSpy struct {
	n     int
	delay time.Duration
}

func (f *outputSpy) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	time.Sleep(f.delay)
	f.n += len(p)
	_, err := w.Write(p)
	return time.Time{}, err
}

func (f *outputSpy) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (f *outputSpy) Close(io.Writer) error                         { return nil }

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
	logf                 func(string, ...any) // hears of the command's end while it wants more
}

func (f *untilDot) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	f.started = true
	f.done = !f.never && bytes.Contains(p, []byte("."))
	_, err := w.Write(p)
	return time.Time{}, err
}

func (f *untilDot) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (f *untilDot) Close(io.Writer) error                         { return nil }
func (f *untilDot) CommandEnded() {
	if f.logf != nil && f.Pending() {
		f.logf("filter: the command has ended, and the filter wants more")
	}
}
func (f *untilDot) Pending() bool { return f.started && !f.done }

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
