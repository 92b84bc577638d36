//go:build darwin || freebsd || linux

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/store"
)

// earlierSession makes a session under root, ended age ago, holding one
// saved paste of text, as an earlier build would have left it.
func earlierSession(t *testing.T, root string, age time.Duration, text string) *store.Session {
	t.Helper()
	r, err := store.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	id, err := store.NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-age)
	s, err := r.NewSession(id, store.Meta{PID: 1, Argv0: "claude", Start: start, Version: "old"})
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := s.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(text))
	n, path, _, err := s.CommitPaste(tmp, hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Record(store.PasteRecord{N: n, Path: path, Bytes: int64(len(text)), Lines: 1, SHA256: hex.EncodeToString(sum[:]),
		Time: start, Outcome: store.OutcomeSaved, Reference: "[paste saved: " + path + "]"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(s.Dir, start, start); err != nil {
		t.Fatal(err)
	}
	return s
}

// upgraded sets up a user of an earlier build: a home of their own, and
// the earlier builds' root under a TMPDIR of their own, returned with the
// environment in which the root is the default. It skips on macOS, which
// kept its default root.
func upgraded(t *testing.T) (home, earlier string, env []string) {
	t.Helper()
	if runtime.GOOS == "darwin" {
		t.Skip("macOS kept its default root")
	}
	home, tmp := realDir(t), realDir(t)
	earlier = filepath.Join(tmp, "pbwrap-"+strconv.Itoa(os.Geteuid()))
	return home, earlier, []string{"PBWRAP_ROOT=", "HOME=" + home, "XDG_STATE_HOME=", "TMPDIR=" + tmp}
}

// Upgrading (issue 29): the first start that makes the new default root
// says once, before the child starts, where pastes now go; the earlier
// root's sessions stay where their references point, and its expired ones
// are removed by the start-up cleanup.
func TestEarlierRootSaidOnce(t *testing.T) {
	home, earlier, env := upgraded(t)
	kept := earlierSession(t, earlier, 2*time.Hour, "kept\n")
	expired := earlierSession(t, earlier, store.DefaultTTL+time.Hour, "expired\n")
	root := filepath.Join(home, ".local", "state", "pbwrap")
	notice := "pbwrap: pastes are now saved under " + root + ", which a reboot does not empty; the 2 sessions under " +
		earlier + " stay there, and pbwrap list and show find them until they expire\r\n"

	term := startPbwrap(t, ptytest.Job{Env: env, Steps: []string{"ready", "exit:0"}})
	term.WaitOutput("READY")
	term.WantExit("exit 0")
	if out := string(term.Output()); !strings.HasPrefix(out, notice) {
		t.Errorf("first start: the terminal shows %q, want it to start with %q", out, notice)
	}
	if _, err := os.Stat(root); err != nil {
		t.Errorf("the new root was not made: %v", err)
	}
	if _, err := os.Stat(filepath.Join(kept.Dir, "paste-1.txt")); err != nil {
		t.Errorf("the earlier root's session was not left where it was: %v", err)
	}
	if _, err := os.Stat(expired.Dir); !os.IsNotExist(err) {
		t.Errorf("the earlier root's expired session is still there (%v)", err)
	}

	term = startPbwrap(t, ptytest.Job{Env: env, Steps: []string{"ready", "exit:0"}})
	term.WaitOutput("READY")
	term.WantExit("exit 0")
	if out := string(term.Output()); strings.Contains(out, "now saved under") {
		t.Errorf("second start: the terminal shows %q, want the notice said only once", out)
	}
}

// pbwrap clean cleans the earlier root too, as list and show read it:
// what list shows, clean --all removes; a dry run there removes nothing.
func TestCleanEarlierRoot(t *testing.T) {
	_, earlier, env := upgraded(t)
	old := earlierSession(t, earlier, 2*time.Hour, "old\n")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(pbwrapBin, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pbwrap %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := run("list"); !strings.Contains(out, filepath.Base(old.Dir)[len(filepath.Base(old.Dir))-8:]) {
		t.Fatalf("pbwrap list does not show the earlier root's session:\n%s", out)
	}
	out := run("clean", "--all", "--dry-run")
	if !strings.Contains(out, "under the earlier root "+earlier) || !strings.Contains(out, "would remove session "+filepath.Base(old.Dir)) {
		t.Errorf("clean --all --dry-run says:\n%s\nwant the earlier root's session in it", out)
	}
	if _, err := os.Stat(old.Dir); err != nil {
		t.Fatalf("a dry run removed the earlier root's session: %v", err)
	}
	out = run("clean", "--all", "--yes")
	if _, err := os.Stat(old.Dir); !os.IsNotExist(err) {
		t.Errorf("clean --all --yes left the earlier root's session (%v); it said:\n%s", err, out)
	}
	if _, err := os.Stat(earlier); err != nil {
		t.Errorf("the earlier root itself was removed: %v", err)
	}
}
