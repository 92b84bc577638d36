//go:build darwin || freebsd || linux

package ptyproxy

// The terminal set-up and reset are asked for at the moment the proxy
// takes or gives back the terminal: the test wrapper's (PBWRAP_TEST_SPY)
// say how many bytes the output filter had passed then.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

const spySetup = "\x1b[?2004h<setup 0>"

// spyReset matches the spy's reset.
var spyReset = regexp.MustCompile(`<reset (\d+)>\x1b\[\?2004l`)

// wantResetAfterAll checks that the output is the set-up, what the child
// wrote, and a reset asked for once all of that had passed (then only what
// the proxy itself says on a panic).
func wantResetAfterAll(t *testing.T, term *ptytest.Terminal) {
	t.Helper()
	var out []byte
	term.WaitFor("the reset", func() bool { out = term.Output(); return spyReset.Match(out) })
	m := spyReset.FindSubmatchIndex(out)
	passed := out[len(spySetup):m[0]]
	if !bytes.HasPrefix(out, []byte(spySetup)) || fmt.Sprint(len(passed)) != string(out[m[2]:m[3]]) {
		t.Errorf("terminal got %q: want the set-up, the child's output, and a reset that counts all of it", out)
	}
}

// On every way out, the reset is asked for after the child's last output
// has passed: the child's exit, its death, a signal to the proxy, a panic.
func TestTerminalResetAfterLastOutput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string
		env   []string
		do    func(*ptytest.Terminal)
		want  string
	}{
		{name: "child exits", steps: []string{"raw", "print:HELLO", "ready", "out:100000", "exit:0"}, want: "exit 0"},
		{name: "child killed by SIGKILL", steps: []string{"raw", "pid", "print:HELLO", "ready", "block"}, want: "exit 137",
			do: func(term *ptytest.Terminal) { _ = syscall.Kill(term.ChildPid(), syscall.SIGKILL) }},
		{name: "SIGTERM to the proxy", steps: []string{"raw", "print:HELLO", "ready", "block"}, want: "exit 143",
			do: func(term *ptytest.Terminal) { term.SignalWrapper(syscall.SIGTERM) }},
		{name: "the proxy panics", steps: []string{"raw", "ready", "print:BOOM", "block"}, want: "exit 2",
			env: []string{"PBWRAP_TEST_PANIC=BOOM"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := start(t, ptytest.Job{Steps: tc.steps, Env: append(tc.env, "PBWRAP_TEST_SPY=1")})
			term.WaitReport("ready")
			if tc.do != nil {
				tc.do(term)
			}
			term.WantExit(tc.want)
			wantResetAfterAll(t, term)
		})
	}
}

// A reset that panics is logged, and the termios are restored all the
// same.
func TestTerminalResetPanics(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "log")
	term := start(t, ptytest.Job{Steps: []string{"raw", "print:HI", "exit:3"},
		Env: []string{"PBWRAP_TEST_RESET_PANIC=1", "PBWRAP_TEST_LOG=" + logFile}})
	term.WantExit("exit 3")
	term.WaitOutput("HI\r\n")
	if got, want := string(term.Output()), "\x1b[?2004hHI\r\n"; got != want {
		t.Errorf("terminal got %q, want %q", got, want)
	}
	if log, _ := os.ReadFile(logFile); !bytes.Contains(log, []byte("test panic in TerminalReset")) {
		t.Errorf("log %q does not tell of the panic", log)
	}
}

// At Ctrl-Z the reset is asked for once what the child wrote before it
// stopped has passed (here the terminal's echo of ^Z): it comes after, not
// at the shell's prompt. On fg the set-up is written while the child is
// still stopped, so before anything it draws; then it gets the size.
func TestTerminalResetAndSetupAtCtrlZ(t *testing.T) {
	term := start(t, ptytest.Job{Steps: []string{"redraw", "ready", "block"}, Env: []string{"PBWRAP_TEST_SPY=1"}})
	term.WaitReport("ready")
	term.WaitOutput("REDRAW 0 24x80")
	term.Type([]byte{0x1a}, 0) // Ctrl-Z
	term.WaitLeader("stopped SIGTSTP")
	wantResetAfterAll(t, term)
	out := term.Output()
	m := spyReset.FindSubmatch(out)

	term.SignalLeader(syscall.SIGUSR1)
	term.WaitLeader("did SIGUSR1")
	term.Resize(33, 91)
	term.SignalLeader(syscall.SIGUSR2) // fg
	term.WaitOutput("REDRAW 2 33x91")
	after := string(term.Output()[len(out):])
	if want := fmt.Sprintf("\x1b[?2004h<setup %s child stopped>REDRAW 1 ", m[1]); !strings.HasPrefix(after, want) {
		t.Errorf("after fg the terminal got %q, want the set-up first, then the child's redraw: %q...", after, want)
	}
	term.Type([]byte{0x03}, 0) // Ctrl-C
	term.WantExit("exit 130")
}

// A child that stops itself right after a flood of output (a program that
// writes its cleanup, then stops) has all of it shown before the reset,
// though the PTY still held some of it when the proxy saw the stop: the
// output filter is slowed down so that it does.
func TestTerminalResetAfterOutputBeforeStop(t *testing.T) {
	const n = 200000
	term := start(t, ptytest.Job{Steps: []string{"raw", "ready", fmt.Sprintf("out:%d", n), "stop:SIGSTOP", "exit:0"},
		Env: []string{"PBWRAP_TEST_SPY=1", "PBWRAP_TEST_SPY_DELAY=2ms"}})
	term.WaitLeader("stopped SIGTSTP")
	wantResetAfterAll(t, term)
	if got := len(term.Output()); got < n {
		t.Errorf("the terminal got %d bytes, want all %d the child wrote", got, n)
	}
	term.SignalLeader(syscall.SIGUSR1)
	term.WaitLeader("did SIGUSR1")
	term.SignalLeader(syscall.SIGUSR2) // fg
	term.WantExit("exit 0")
}
