//go:build darwin || freebsd || linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/store"
)

// savedAfter is a reference typed alone, with or without paste markers.
var savedAfter = regexp.MustCompile(`^(?:` + regexp.QuoteMeta(pasteStart) + `)?\[paste saved: ([^\]]+)\](?:` + regexp.QuoteMeta(pasteEnd) + `)?$`)

// pasteSaved types mark, pastes body, then types mark again, and returns
// the path of the reference the child got in between, checking that the
// file holds the text copied.
func (term *terminal) pasteSaved(mark, body string) string {
	term.t.Helper()
	got := term.pasteBetween(mark, body)
	m := savedAfter.FindStringSubmatch(got)
	if m == nil {
		term.t.Fatalf("between %q and %q the child got %q, want a reference", mark, mark, ptytest.Tail([]byte(got), 200))
	}
	text, err := os.ReadFile(m[1])
	if err != nil {
		term.t.Fatal(err)
	}
	if want := strings.ReplaceAll(body, "\r", "\n"); string(text) != want {
		term.t.Errorf("%s holds %d bytes, want the %d copied", m[1], len(text), len(want))
	}
	return m[1]
}

// pasteBetween types mark, pastes body, then types mark again, and
// returns what the child got between the two marks.
func (term *terminal) pasteBetween(mark, body string) string {
	term.t.Helper()
	term.Type([]byte(mark), 0)
	term.paste(body, 4096)
	term.Type([]byte(mark), 0)
	var got string
	term.WaitFor("the paste between the marks", func() bool {
		got = term.File("input")
		return strings.Count(got, mark) >= 2
	})
	return got[strings.Index(got, mark)+len(mark) : strings.LastIndex(got, mark)]
}

// Issue 10, point 3, end to end: after the root, or the session
// directory, is removed mid-session, the next large paste is saved again,
// in a session made again under the same id (the one PBWRAP_SESSION_DIR
// names), locked, with its manifest. Before the fix every later large
// paste went inline for the rest of the session, contrary to the README.
func TestStoreRecoversEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove func(term *terminal, sessDir string) string
	}{
		{"root removed", func(term *terminal, _ string) string { return term.root() }},
		{"session directory removed", func(_ *terminal, sessDir string) string { return sessDir }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := startCapture(t, false)
			first := term.pasteSaved("#1#", ptytest.Lines(300, "first"))
			sessDir := filepath.Dir(first)
			if err := os.RemoveAll(tc.remove(term, sessDir)); err != nil {
				t.Fatal(err)
			}
			second := term.pasteSaved("#2#", ptytest.Lines(300, "second"))
			if want := filepath.Join(sessDir, "paste-1.txt"); second != want {
				t.Errorf("after the %s the paste was saved to %s, want %s: the same session, made again", tc.name, second, want)
			}
			if live, err := store.IsLive(sessDir); !live || err != nil {
				t.Errorf("the session made again is not locked: %v, %v", live, err)
			}
			m, err := store.ReadManifest(sessDir)
			if err != nil || len(m.Pastes) != 1 || m.Pastes[0].Path != second {
				t.Errorf("the manifest made again: %+v, %v; want the second paste recorded", m, err)
			}
			wantMode(t, term.root(), 0o700)
			wantMode(t, sessDir, 0o700)
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// Issue 10, point 3, end to end: a root replaced by a symlink between
// pastes is refused as at start: the paste reaches the child inline,
// exactly as sent, and nothing is written through the symlink. Before the
// fix pbwrap saved the paste through it.
func TestSymlinkedRootRefusedEndToEnd(t *testing.T) {
	term := startCapture(t, true)
	first := term.pasteSaved("#1#", ptytest.Lines(300, "first"))
	moved := term.root() + ".moved"
	if err := os.Rename(term.root(), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, term.root()); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, moved)
	body := ptytest.Lines(400, "second")
	term.Type([]byte("<"), 0)
	term.paste(body, 4096)
	term.Type([]byte(">"), 0)
	got := term.waitInputHas(">")
	got = got[strings.LastIndex(got, "<"):]
	if want := "<" + pasteStart + body + pasteEnd + unsavedNote(true, "the root is unsafe") + ">"; got != want {
		t.Errorf("child got %q, want the paste inline, exactly, and the note", ptytest.Tail([]byte(got), 200))
	}
	if after := listTree(t, moved); after != before {
		t.Errorf("written through the symlink:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(first), "paste-2.txt")); err == nil {
		t.Error("paste-2.txt was saved through the symlink")
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// listTree names every entry under dir with its size and modification
// time.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(strings.TrimPrefix(path, dir) + " " + fi.Mode().String() + " " + fi.ModTime().String() + "; ")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
