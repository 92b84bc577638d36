//go:build darwin || freebsd || linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileModes sets modes in spellings that terminals read but a filter
// that half-parses does not: a C0 or DEL inside the sequence, a C1 CSI.
const hostileModes = "\x1b[?10\a49h\x1b[?10\x7f00h\x1b[?1\x00h\x1b\a=\x1b[4\bh\x1b[?6\vh\x1b[?7\fl\x1b[?2\r5l"

// hostilePaste turns bracketed paste off in those spellings and more: a
// reset, DECSTR, XTRESTORE, a long parameter list, a C1 CSI.
var hostilePaste = "\x1b[?20\a04l\x1b[?2004\x7fl\x1b[\b?2004l\u009b?2004l\x9b?2004l\x1bc" + hostileModes +
	"\x1b[!p\x1b[?2004s\x1b[?2004r\x1b[?" + strings.Repeat("9999;", 20) + "2004l\x1b[?20\x8004l"

// tmuxFlags is what tmux says of a pane's modes, and what they are at a
// clean prompt and while the child of this test has them on.
const (
	tmuxFlags      = "#{alternate_on} #{mouse_any_flag} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag} #{insert_flag} #{origin_flag} #{wrap_flag}"
	tmuxFlagsClean = "0 0 1 0 0 0 0 1"
	tmuxFlagsOn    = "1 1 0 1 1 1 1 0"
)

// As issue 24 tried it in tmux: a child writes what turns bracketed paste
// off at a terminal that reads as terminals do, and sets modes in such
// spellings; a paste of 600 lines (tmux paste-buffer -p) is still saved,
// the child gets the reference, and at the prompt after it every mode
// tmux shows is back. The same when the child resets the terminal (RIS)
// after setting its modes.
func TestTmuxHostileOutput(t *testing.T) {
	for _, tc := range []struct {
		name, out, flags string
	}{
		{"paste off", hostilePaste, tmuxFlagsOn},
		// tmux's RIS leaves the alternate screen on.
		{"modes, then RIS", hostileModes + "\x1bc" + hostileModes + "\x1b[!p\x1bc", "1 0 1 0 0 0 0 1"},
	} {
		t.Run(tc.name, func(t *testing.T) { tmuxHostile(t, tc.out, tc.flags) })
	}
}

// tmuxHostile runs a child that writes out, and checks the pane's flags
// while it runs and after it, and that a large paste is saved meanwhile.
func tmuxHostile(t *testing.T, out, flags string) {
	dir := t.TempDir() // Before tmux: removed after its panes are gone.
	s := startTmux(t, 120, 30)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	for i := range 600 {
		fmt.Fprintf(&big, "log line %d: something happened\n", i)
	}
	bigFile := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(bigFile, []byte(big.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	input, report := filepath.Join(dir, "input"), filepath.Join(dir, "report")
	s.keys(fmt.Sprintf("%s PBWRAP_ROOT=%s PBWRAP_TEST_CHILD=1 PBWRAP_TEST_INPUT=%s PBWRAP_TEST_REPORT=%s pbwrap %s pid raw record '%s' ready block",
		quickExit, filepath.Join(dir, "root"), input, report, self, writeStep(out)))
	s.waitScreen("READY")
	s.waitFlags(flags, "while the child runs")

	s.run("load-buffer", "-b", "big", bigFile)
	s.run("paste-buffer", "-p", "-b", "big")
	waitFileHas(t, input, "[paste saved: ")
	if got := readFile(t, input); strings.Contains(got, "log line") {
		t.Fatalf("the paste reached the child as text: bracketed paste was off (%.200q)", got)
	}

	if pid := reportedPid(t, report); syscall.Kill(pid, syscall.SIGKILL) != nil {
		t.Fatalf("kill -9 the child (%d) failed", pid)
	}
	s.waitPrompt("after kill -9 of the child")
	s.waitFlags(tmuxFlagsClean, "at the prompt after the child")
}

// waitFlags waits until tmux shows the pane's flags (tmuxFlags) as want.
func (s *tmuxSession) waitFlags(want, when string) {
	s.t.Helper()
	s.waitFormat(tmuxFlags, want, when)
}
