//go:build darwin || freebsd || linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// Inside tmux, which marks pastes into a pane that asked for them, what
// comes unmarked is typing (TMUX in the environment says so): a script's
// send-keys with its Enter, and tmux paste-buffer without -p, which sends
// text as a program types it, reach the program exactly as sent. With
// --burst on, a large paste-buffer without -p is saved whole, and a small
// one still typed.
func TestTmuxPasteWithoutMarkers(t *testing.T) {
	dir := t.TempDir() // Before tmux: removed after its panes are gone.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
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
	for _, burst := range []string{"auto", "on"} {
		t.Run("--burst "+burst, func(t *testing.T) {
			s := startTmux(t, 120, 30)
			root := filepath.Join(dir, "root-"+burst)
			input := filepath.Join(dir, "input-"+burst)
			s.keys(fmt.Sprintf("PBWRAP_ROOT=%s PBWRAP_TEST_CHILD=1 PBWRAP_TEST_INPUT=%s pbwrap --burst %s %s raw echo bp:on ready block",
				root, input, burst, self))
			s.waitScreen("READY")

			s.run("send-keys", "hello world", "Enter")
			waitFileHas(t, input, "hello world\r")

			s.run("load-buffer", "-b", "big", bigFile)
			s.run("paste-buffer", "-b", "big")
			if burst == "auto" {
				want := "hello world\r" + strings.ReplaceAll(big.String(), "\n", "\r")
				waitFileHas(t, input, want)
			} else {
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
				if strings.Contains(screen, "log line") {
					t.Errorf("the paste's text reached the program:\n%s", screen)
				}
			}

			s.run("load-buffer", "-b", "small", smallFile)
			s.run("paste-buffer", "-b", "small")
			waitFileHas(t, input, "three\rsmall\rlines")
			if got := readFile(t, input); strings.Contains(got, "\x1b[200~three") {
				t.Errorf("the small paste reached the program in markers: %q", got[len(got)-40:])
			}
		})
	}
}

// waitFileHas waits, at most ptytest.Watchdog, until the file holds want.
func waitFileHas(t *testing.T, name, want string) {
	t.Helper()
	deadline := time.Now().Add(ptytest.Watchdog)
	for !strings.Contains(readFile(t, name), want) {
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: %s never held %q; it holds %.200q", name, want, readFile(t, name))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readFile is the file's text, "" when there is none yet.
func readFile(t *testing.T, name string) string {
	t.Helper()
	b, _ := os.ReadFile(name)
	return string(b)
}
