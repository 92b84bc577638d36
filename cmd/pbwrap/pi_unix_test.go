//go:build darwin || freebsd || linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPiAgent pastes into the real Pi coding agent through pbwrap, in
// tmux, and reads its editor off the screen: a 600-line paste shows as the
// reference, a 3-line paste as its text. It is opt-in, since it needs npm:
// PBWRAP_E2E_PI=1 installs @earendil-works/pi-coding-agent (pinned, as in
// scripts/e2e-agents; Pi's package moved there from @mariozechner) into a
// temporary prefix, PBWRAP_E2E_PI=/path/to/pi uses an installed one. scripts/e2e-pi
// runs it. Pi needs no key and no network to show its editor: a dummy key,
// and PI_OFFLINE=1 so that it does not try to download helper tools.
func TestPiAgent(t *testing.T) {
	pi := os.Getenv("PBWRAP_E2E_PI")
	if pi == "" {
		t.Skip("opt-in: set PBWRAP_E2E_PI=1 (npm install) or PBWRAP_E2E_PI=/path/to/pi; scripts/e2e-pi does")
	}
	if pi == "1" {
		pi = installPi(t)
	}
	home := t.TempDir()
	root := filepath.Join(realDir(t), "root") // The reference names it resolved.
	s := startTmux(t, 140, 45)
	// Pi's directory first on PATH: an npm install puts the Node.js that
	// Pi needs beside it.
	s.keys(fmt.Sprintf("PATH=%s:$PATH HOME=%s PI_OFFLINE=1 ANTHROPIC_API_KEY=sk-ant-dummy PBWRAP_ROOT=%s pbwrap %s",
		filepath.Dir(pi), home, root, pi))
	s.waitScreen("ctrl+c")

	dir := t.TempDir()
	var big strings.Builder
	for i := range 600 {
		fmt.Fprintf(&big, "2026-11-29T12:00:%02d service[42]: request %d served in %d ms\n", i%60, i, i%97)
	}
	bigFile := filepath.Join(dir, "big.txt")
	smallFile := filepath.Join(dir, "small.txt")
	if err := os.WriteFile(bigFile, []byte(big.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(smallFile, []byte("first small line\nsecond small line\nthird small line"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.run("load-buffer", "-b", "big", bigFile)
	s.run("paste-buffer", "-p", "-b", "big")
	screen := s.waitScreen("paste-1.txt]")
	m := regexp.MustCompile(`\[paste saved: (\S+/paste-1\.txt)\]`).FindStringSubmatch(screen)
	if m == nil || !strings.HasPrefix(m[1], root) {
		t.Fatalf("Pi's editor shows no reference under %s:\n%s", root, screen)
	}
	if strings.Contains(screen, "request 599 served") {
		t.Error("the pasted text reached Pi's editor")
	}
	if saved, err := os.ReadFile(m[1]); err != nil || string(saved) != big.String() {
		t.Errorf("the saved file does not hold the paste (%d bytes, %v)", len(saved), err)
	}

	s.run("load-buffer", "-b", "small", smallFile)
	s.run("paste-buffer", "-p", "-b", "small")
	s.waitScreen("third small line")
	s.waitScreen("first small line")
}

// installPi installs the Pi coding agent with npm into a temporary prefix,
// with the Node.js it needs (22 or later; the pin is scripts/e2e-agents'),
// and returns its binary.
func installPi(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("PBWRAP_E2E_PI=1 needs npm")
	}
	prefix := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "@earendil-works/pi-coding-agent@1.6.0", "node@22.23.3")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	return filepath.Join(prefix, "node_modules", ".bin", "pi")
}
