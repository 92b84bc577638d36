//go:build darwin || freebsd || linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// On a terminal, pbwrap setup shows the change and asks: "y" writes it,
// with a backup; anything else writes nothing, exit status 0: declining
// is an answer, not a failure (as for pbwrap clean --all).
func TestSetupAsks(t *testing.T) {
	for _, tc := range []struct {
		name, answer, exit string
		written            bool
	}{
		{"yes", "y\r", "exit 0", true},
		{"no", "n\r", "exit 0", false},
		{"enter", "\r", "exit 0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			settings := filepath.Join(dir, "settings.json")
			old := "{\n  \"model\": \"opus\"\n}\n"
			if err := os.WriteFile(settings, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			term := ptytest.Start(t, ptytest.Job{
				Wrapper: []string{pbwrapBin, "setup", "claude"},
				Command: []string{},
				Env:     []string{"CLAUDE_CONFIG_DIR=" + dir},
			})
			term.WaitOutput("Write this change to " + settings + "? [y/N] ")
			if !strings.Contains(string(term.Output()), "\n+  \"hooks\": {") {
				t.Errorf("no diff shown before the question: %q", term.Output())
			}
			term.Type([]byte(tc.answer), 1)
			if !tc.written {
				// Waited for, not looked up after the exit: the terminal's
				// reader may not have read the last line yet.
				term.WaitOutput("not written\r\n")
			}
			term.WantExit(tc.exit)
			got, err := os.ReadFile(settings)
			if err != nil {
				t.Fatal(err)
			}
			if hooked := strings.Contains(string(got), `pbwrap hook claude",`); hooked != tc.written {
				t.Errorf("after %q the settings are\n%s", tc.answer, got)
			}
			backups, _ := filepath.Glob(settings + ".pbwrap-backup-*")
			if tc.written != (len(backups) == 1) {
				t.Errorf("after %q, backups: %q", tc.answer, backups)
			}
		})
	}
}
