//go:build darwin || freebsd || linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// As a user pastes in tmux with a binding that does not bracket: tmux
// paste-buffer without -p sends the text as a terminal without bracketed
// paste does, newlines as CR, although the program has bracketed paste on.
// pbwrap takes the burst for a paste (issue 12): a large one shows up in
// the program as the reference, a small one as one bracketed paste, so
// that its newlines do not submit.
func TestTmuxPasteWithoutMarkers(t *testing.T) {
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
	s.run("paste-buffer", "-b", "big")
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

	s.run("load-buffer", "-b", "small", smallFile)
	s.run("paste-buffer", "-b", "small")
	s.waitScreen("<200~>three\nsmall\nlines<201~>")
}
