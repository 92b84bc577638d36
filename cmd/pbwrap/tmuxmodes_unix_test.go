//go:build darwin || freebsd || linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// paneModes is what tmux says of a pane's modes: alternate screen, mouse,
// cursor visible, application cursor keys, application keypad.
const paneModes = "#{alternate_on} #{mouse_any_flag} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag}"

// The pane's modes while the child has them on, and at a clean prompt.
const (
	modesOn    = "1 1 0 1 1"
	modesClean = "0 0 1 0 0"
)

// waitModes waits until tmux shows the pane's modes as want.
func (s *tmuxSession) waitModes(want, when string) {
	s.t.Helper()
	s.waitFormat(paneModes, want, when)
}

// waitFormat waits until tmux shows format, for the pane, as want.
func (s *tmuxSession) waitFormat(format, want, when string) {
	s.t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for {
		got := strings.TrimSpace(s.run("display", "-p", format))
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("watchdog: %s, tmux shows the pane's modes (%s) as %q, want %q", when, format, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitPrompt waits until the shell's prompt ends the screen's last line:
// keys typed while a program exits may be read by it and lost, with or
// without pbwrap. The prompt may follow the command line instead of
// starting a line of its own: on a loaded machine the terminal's echo of
// the Enter that ran the command can reach tmux after the child's first
// output, so the cursor the alternate screen saved, and gives back at the
// exit, is still on the command line (the likeliest cause of a failure
// seen once in about 35 runs, on a loaded machine).
func (s *tmuxSession) waitPrompt(when string) {
	s.t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for {
		if lines := strings.Fields(strings.ReplaceAll(s.screen(), " ", "_")); len(lines) > 0 && strings.HasSuffix(strings.TrimRight(lines[len(lines)-1], "_"), "$") {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("watchdog: %s, the shell's prompt never came", when)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// As a user in tmux sees it, from the pane's flags: a child that turned on
// the alternate screen, mouse, cursor keys, keypad and a hidden cursor
// leaves none of them on at the prompt after kill -9, nor at the prompt
// after Ctrl-Z; fg gives them back. Regression test for issue 11.
func TestTmuxModesComeBackClean(t *testing.T) {
	dir := t.TempDir() // Before tmux: removed after its panes are gone.
	s := startTmux(t, 80, 24)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report")
	modes := writeStep("\x1b[?1049h\x1b[?1000;1006h\x1b[?1h\x1b=\x1b[?25l")
	run := fmt.Sprintf("%s PBWRAP_TEST_CHILD=1 PBWRAP_TEST_REPORT=%s pbwrap %s pid '%s' ready block", quickExit, report, self, modes)
	s.waitModes(modesClean, "before pbwrap")

	s.keys(run)
	s.waitModes(modesOn, "while the child runs")
	if pid := reportedPid(t, report); syscall.Kill(pid, syscall.SIGKILL) != nil {
		t.Fatalf("kill -9 the child (%d) failed", pid)
	}
	s.waitPrompt("after kill -9 of the child")
	s.keys("echo status=$?")
	s.waitScreen("status=137")
	s.waitModes(modesClean, "at the prompt after kill -9 of the child")

	s.keys(run)
	s.waitModes(modesOn, "while the child runs again")
	s.key("C-z")
	s.waitScreen("Stopped")
	s.waitPrompt("after Ctrl-Z")
	s.waitModes(modesClean, "at the prompt after Ctrl-Z")
	s.keys("fg")
	s.waitModes(modesOn, "after fg")
	s.key("C-c")
	s.waitPrompt("after Ctrl-C")
	s.keys("echo status=$?")
	s.waitScreen("status=130")
	s.waitModes(modesClean, "at the prompt after Ctrl-C")
}

// reportedPid is the pid the recording child reported in the file report.
func reportedPid(t *testing.T, report string) int {
	t.Helper()
	b, _ := os.ReadFile(report)
	for _, line := range strings.Split(string(b), "\n") {
		var pid, ppid int
		if _, err := fmt.Sscanf(line, "pid %d %d", &pid, &ppid); err == nil {
			return pid
		}
	}
	t.Fatalf("the child reported no pid: %q", b)
	return 0
}
