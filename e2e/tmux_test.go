//go:build e2e

package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmux is a private tmux server with one window, driven as a user drives
// a terminal.
type tmux struct {
	t    *testing.T
	sock string
}

func startTmux(t *testing.T, dir string, env []string, command string) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("the e2e suite needs tmux")
	}
	s := &tmux{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	args := []string{"-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50", "-c", dir, "env", "-i"}
	args = append(args, env...)
	args = append(args, "sh", "-c", command+"; echo EXITED-$?; sleep 600")
	s.run(args...)
	return s
}

// kill ends the window and what runs in it.
func (s *tmux) kill() {
	if s.t.Failed() {
		s.t.Logf("screen at the end:\n%s", s.screen())
	}
	_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
	time.Sleep(time.Second) // Let the agent exit before the next run reads the log.
}

func (s *tmux) run(args ...string) {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// screen is the pane's visible text, wrapped lines joined.
func (s *tmux) screen() string {
	out, _ := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-J").CombinedOutput()
	return string(out)
}

// wait polls until ok holds, for at most d; it returns whether it did.
func wait(d time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if ok() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitScreen waits until the screen shows want.
func (s *tmux) waitScreen(want string, d time.Duration) string {
	s.t.Helper()
	var screen string
	if !wait(d, func() bool { screen = s.screen(); return strings.Contains(screen, want) }) {
		s.t.Fatalf("the screen never showed %q:\n%s", want, screen)
	}
	return screen
}

// paste pastes the file as a user does in tmux: bracketed, when the
// program asked for it.
func (s *tmux) paste(file string) {
	s.t.Helper()
	s.run("load-buffer", "-b", "p", file)
	s.run("paste-buffer", "-p", "-b", "p")
}

func (s *tmux) keys(keys ...string) {
	s.t.Helper()
	s.run(append([]string{"send-keys"}, keys...)...)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%s", k, v))
	}
	return out
}
