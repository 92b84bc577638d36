//go:build darwin || freebsd || linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// tmuxSession is a detached tmux server of the test's own, driven as a
// user would drive a terminal: keys in, the screen out.
type tmuxSession struct {
	t    *testing.T
	sock string
}

// startTmux starts a private tmux server running an interactive bash with
// a plain prompt in a window of the given size. tmux is required when
// PBWRAP_REQUIRE_TMUX is set (scripts/test sets it and installs tmux).
func startTmux(t *testing.T, cols, rows int) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("PBWRAP_REQUIRE_TMUX") != "" {
			t.Fatal("tmux is required (PBWRAP_REQUIRE_TMUX is set) but not installed")
		}
		t.Skip("tmux not installed; scripts/test installs it")
	}
	s := &tmuxSession{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen at failure:\n%s", s.screen())
		}
		_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
		s.waitPanesGone()
	})
	path := filepath.Dir(pbwrapBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	shell := fmt.Sprintf("env -u PBWRAP_SESSION %s=%q PATH=%q PS1='$ ' bash --norc --noprofile -i", tmuxMarkEnv, s.sock, path)
	s.run("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), shell)
	s.waitScreen("$ ")
	return s
}

// tmuxMarkEnv marks, in their environment, the processes that run in a
// test's tmux panes, so that the test can wait for them to be gone.
const tmuxMarkEnv = "PBWRAP_TEST_TMUX"

// waitPanesGone waits, at most the watchdog, until no process that ran in
// the session's panes is left: a pbwrap that got the hangup of
// kill-server may still be ending its session under the test's root,
// which the test's cleanup is about to remove. Where there is no /proc,
// it does not wait.
func (s *tmuxSession) waitPanesGone() {
	mark := []byte(tmuxMarkEnv + "=" + s.sock + "\x00")
	for deadline := time.Now().Add(ptytest.Watchdog); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		procs, err := filepath.Glob("/proc/[0-9]*/environ")
		if err != nil || len(procs) == 0 {
			return
		}
		left := false
		for _, p := range procs {
			if env, err := os.ReadFile(p); err == nil && bytes.Contains(env, mark) {
				left = true
				break
			}
		}
		if !left {
			return
		}
	}
	s.t.Errorf("processes of the tmux panes still running %v after kill-server", ptytest.Watchdog)
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys types text followed by Enter; key sends one named key (C-z, ...).
func (s *tmuxSession) keys(text string) { s.t.Helper(); s.run("send-keys", "-l", text); s.key("Enter") }
func (s *tmuxSession) key(name string)  { s.t.Helper(); s.run("send-keys", name) }

// screen is the pane's text, scrollback included, wrapped lines joined.
func (s *tmuxSession) screen() string {
	out, _ := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-J", "-S", "-").CombinedOutput()
	return string(out)
}

// waitScreen waits until the screen shows want, and returns the screen.
func (s *tmuxSession) waitScreen(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for {
		screen := s.screen()
		if strings.Contains(screen, want) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("watchdog: the screen never showed %q", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitAfter waits until want shows on the screen after the last mark.
func (s *tmuxSession) waitAfter(mark, want string) {
	s.t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for {
		screen := s.screen()
		if i := strings.LastIndex(screen, mark); i >= 0 && strings.Contains(screen[i:], want) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("watchdog: the screen never showed %q after %q", want, mark)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// As a user in tmux: the child follows a window resize; Ctrl-Z gives the
// shell its prompt back with the terminal sane; fg brings the child back
// and it redraws; Ctrl-C ends it with status 130 and a sane terminal.
func TestTmuxResizeAndJobControl(t *testing.T) {
	s := startTmux(t, 80, 24)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s.keys("cd " + t.TempDir() + " && stty -g > before.stty && echo SAVED$((1+1))")
	s.waitScreen("SAVED2")
	s.keys(fmt.Sprintf("PBWRAP_TEST_CHILD=1 pbwrap %s redraw block", self))
	s.waitScreen("REDRAW 0 24x80")

	s.run("resize-window", "-x", "100", "-y", "30")
	s.waitScreen("30x100")

	s.key("C-z")
	s.waitScreen("Stopped")
	s.keys("stty -g | cmp - before.stty && echo SANE-WHILE-STOPPED$((1+1))")
	s.waitScreen("SANE-WHILE-STOPPED2")

	s.keys("fg")
	s.waitAfter("$ fg", "REDRAW")

	// Keys typed while a program exits may be read by it and lost, with
	// or without pbwrap: wait for the prompt before typing on.
	s.key("C-c")
	s.waitAfter("^C", "$ ")
	s.keys("echo status=$?")
	s.waitScreen("status=130")
	s.keys("stty -g | cmp - before.stty && echo SANE-AFTER$((1+1))")
	s.waitScreen("SANE-AFTER2")
}

// As a user pastes in tmux: tmux sends a bracketed paste because pbwrap
// turned the mode on; a large paste shows up in the program as the
// reference, a small one as its text.
func TestTmuxPaste(t *testing.T) {
	dir := t.TempDir() // Before tmux: removed after its panes are gone.
	s := startTmux(t, 120, 30)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	var big strings.Builder
	for i := range 600 {
		fmt.Fprintf(&big, "log line %d: something happened\n", i)
	}
	bigFile := filepath.Join(dir, "big.txt")
	smallFile := filepath.Join(dir, "small.txt")
	if err := os.WriteFile(bigFile, []byte(big.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(smallFile, []byte("three\nsmall\nlines"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.keys(fmt.Sprintf("PBWRAP_ROOT=%s PBWRAP_TEST_CHILD=1 PBWRAP_TEST_INPUT=%s pbwrap %s raw echo bp:on ready block",
		root, filepath.Join(dir, "input"), self))
	s.waitScreen("READY")

	s.run("load-buffer", "-b", "big", bigFile)
	s.run("paste-buffer", "-p", "-b", "big")
	screen := s.waitScreen("<201~>")
	m := regexp.MustCompile(`<200~>\[paste saved: (\S+/paste-1\.txt)\]<201~>`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("the screen shows no reference:\n%s", screen)
	}
	saved, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != big.String() {
		t.Errorf("the saved file holds %d bytes, want the %d copied", len(saved), big.Len())
	}

	s.run("load-buffer", "-b", "small", smallFile)
	s.run("paste-buffer", "-p", "-b", "small")
	s.waitScreen("<200~>three\nsmall\nlines<201~>")
}
