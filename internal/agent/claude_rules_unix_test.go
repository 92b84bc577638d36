//go:build darwin || freebsd || linux

package agent

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A project's settings file is the agent's to write: made a named pipe,
// it denies (its rules cannot be read) at once instead of hanging the
// hook.
func TestClaudeReadRulesDenyWithoutBlockingWhenSettingsAreANamedPipe(t *testing.T) {
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, ".claude", "settings.local.json"), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	rules := claudeReadRules(Env{Getenv: func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }})
	var denied bool
	returns(t, "the rules of a project whose settings file is a named pipe", func() { _, denied = rules(proj, filepath.Join(proj, "a.txt")) })
	if !denied {
		t.Fatal("a settings file that is a named pipe was taken for no rules")
	}
}

// fifoWatchdog is how long a read that must not block on a named pipe is
// given before the test fails rather than hang: the read is a non-blocking
// open and an fstat, microseconds, so this bounds a machine's stall only.
const fifoWatchdog = 5 * time.Second

// returns runs f, failing the test if it has not returned within
// fifoWatchdog (it is then left behind, blocked).
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }() // Ends when f does, or is left behind at the watchdog.
	select {
	case <-done:
	case <-time.After(fifoWatchdog):
		t.Fatalf("%s: blocked for %v", what, fifoWatchdog)
	}
}
