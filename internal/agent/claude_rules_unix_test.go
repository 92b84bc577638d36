//go:build darwin || freebsd || linux

package agent

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A project's settings file is the agent's to write: made a named pipe,
// it denies (its rules cannot be read) at once instead of hanging the
// hook.
func TestClaudeReadRulesFIFO(t *testing.T) {
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, ".claude", "settings.local.json"), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	rules := claudeReadRules(Env{Getenv: func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }})
	done := make(chan bool)
	go func() { _, denied := rules(proj, filepath.Join(proj, "a.txt")); done <- denied }()
	if !<-done {
		t.Fatal("a settings file that is a named pipe was taken for no rules")
	}
}
