//go:build darwin || freebsd || linux

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// newTestOpener is the session opener of a pbwrap run with its root under
// the test's directory, logging into logs.
func newTestOpener(t *testing.T, logs *[]string) *Opener {
	t.Helper()
	s := NewOpener(filepath.Join(realDir(t), "root"), Meta{PID: os.Getpid(), Argv0: "claude", Start: time.Now()})
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	s.SetLog(func(format string, args ...any) { *logs = append(*logs, fmt.Sprintf(format, args...)) })
	t.Cleanup(s.Close)
	return s
}

// mustOpen opens the session and saves text in it, as a large paste does.
func mustOpen(t *testing.T, s *Opener, text string) *Session {
	t.Helper()
	sess, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := sess.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Discard()
	if _, err := tmp.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := sess.CommitPaste(tmp, fmt.Sprintf("%064x", len(text))); err != nil {
		t.Fatal(err)
	}
	return sess
}

// Issue 10, point 3: once the root or the session directory is removed,
// the next open makes the session again, under the run's id, so that
// PBWRAP_SESSION_DIR still names it: a new directory, locked, with its
// manifest. Before the fix open kept returning the session made first,
// and every later paste went inline.
func TestOpenerRecovers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove func(s *Opener) string
	}{
		{"root removed", func(s *Opener) string { return s.Root() }},
		{"session directory removed", func(s *Opener) string { return s.Session().Dir }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs []string
			s := newTestOpener(t, &logs)
			first := mustOpen(t, s, "first")
			if err := os.RemoveAll(tc.remove(s)); err != nil {
				t.Fatal(err)
			}
			again := mustOpen(t, s, "second")
			if again == first || again.ID != s.ID() || again.Dir != filepath.Join(s.Root(), s.ID()) {
				t.Errorf("after the %s: session %s in %s, want a new one named %s", tc.name, again.ID, again.Dir, s.ID())
			}
			if live, err := IsLive(again.Dir); !live || err != nil {
				t.Errorf("the new session is not locked: %v, %v", live, err)
			}
			if m, err := ReadManifest(again.Dir); err != nil || m.Session != s.ID() || m.Argv0 != "claude" {
				t.Errorf("the new session's manifest: %+v, %v", m, err)
			}
			if err := first.Check(); err == nil {
				t.Error("the old session was not let go")
			}
			if !strings.Contains(strings.Join(logs, "\n"), "making it again") {
				t.Errorf("log %q does not say the session was made again", logs)
			}
		})
	}
}

// When the run's session name is taken by what it did not make, the
// session is made again under a new id, and the intruder is left alone.
func TestOpenerNameTaken(t *testing.T) {
	var logs []string
	s := newTestOpener(t, &logs)
	first := mustOpen(t, s, "first")
	if err := os.RemoveAll(first.Dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(first.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(first.Dir, "theirs"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	again := mustOpen(t, s, "second")
	if again.ID == s.ID() || filepath.Dir(again.Dir) != s.Root() {
		t.Errorf("session %s, want a new id under %s", again.Dir, s.Root())
	}
	if !strings.Contains(strings.Join(logs, "\n"), again.ID) {
		t.Errorf("log %q does not name the new session", logs)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(first.Dir, "theirs")); err != nil {
		t.Errorf("the directory that took the name: %v", err)
	}
}

// Issue 10, point 3: a root replaced by a symlink is refused, as at
// start, and the session is kept for when the root is put right.
func TestOpenerRefusesSymlinkedRoot(t *testing.T) {
	var logs []string
	s := newTestOpener(t, &logs)
	first := mustOpen(t, s, "first")
	moved := s.Root() + ".moved"
	if err := os.Rename(s.Root(), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, s.Root()); err != nil {
		t.Fatal(err)
	}
	if sess, err := s.Open(); !errors.Is(err, ErrUnsafeRoot) {
		t.Fatalf("open with the root a symlink = %v, %v; want ErrUnsafeRoot", sess, err)
	}
	if err := os.Remove(s.Root()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, s.Root()); err != nil {
		t.Fatal(err)
	}
	if again := mustOpen(t, s, "second"); again != first {
		t.Errorf("after the root was put right: session %s, want the first one", again.Dir)
	}
}

// open is safe for concurrent use, and after close makes nothing.
func TestOpenerConcurrentAndClosed(t *testing.T) {
	var logs []string
	s := newTestOpener(t, &logs)
	s.SetLog(func(string, ...any) {})
	first := mustOpen(t, s, "first")
	if err := os.RemoveAll(first.Dir); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]*Session, 8)
	for i := range got {
		wg.Go(func() {
			sess, err := s.Open()
			if err != nil {
				t.Error(err)
			}
			got[i] = sess
		})
	}
	wg.Wait()
	for _, sess := range got {
		if sess != got[0] || sess == first {
			t.Fatalf("concurrent opens returned %p and %p, want one new session", sess, got[0])
		}
	}
	s.Close()
	if err := os.RemoveAll(s.Root()); err != nil {
		t.Fatal(err)
	}
	if sess, err := s.Open(); err == nil {
		t.Errorf("open after close = %v, want an error", sess.Dir)
	}
	if _, err := os.Lstat(s.Root()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("open after close made the root again: %v", err)
	}
}
