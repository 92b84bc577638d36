package capture

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/store"
)

// newRecoveringRig is a rig whose Open behaves as store.Opener does
// for pbwrap: it returns the session in use while it passes its check,
// refuses what the check refuses, and makes a new session when the old
// one is gone.
func newRecoveringRig(t *testing.T) *rig {
	var r *rig
	r = newRig(t, Config{Open: func() (*store.Session, error) {
		if r.sess != nil {
			err := r.sess.Check()
			if !errors.Is(err, store.ErrSessionGone) {
				return r.sess, err
			}
			r.sess.Close()
			r.sess = nil
		}
		return r.open()
	}})
	return r
}

var savedRef = regexp.MustCompile(`^\[paste saved: (.+)\]$`)

// pasteSaved pastes body, large, and returns the path of the file it was
// saved to, failing unless the child got a reference to a file holding
// its text.
func (r *rig) pasteSaved(body string) string {
	r.t.Helper()
	r.child.Reset()
	r.feed(start+body+end, 4096)
	m := savedRef.FindStringSubmatch(strings.TrimSuffix(strings.TrimPrefix(r.child.String(), start), end))
	if m == nil {
		r.t.Fatalf("child got %.100q, want a reference; log %q", r.child.String(), r.logs)
	}
	text, err := os.ReadFile(m[1])
	if err != nil {
		r.t.Fatal(err)
	}
	if want := strings.ReplaceAll(body, "\r", "\n"); string(text) != want {
		r.t.Errorf("%s holds %d bytes, want the %d pasted", m[1], len(text), len(want))
	}
	return m[1]
}

// Issue 10, point 3: the store recovers. Before the fix, once the root or
// the session directory was removed mid-session, every later large paste
// went inline for the rest of the session: the session opened first was
// kept, and never opened again.
func TestStoreRecoversAfterRemoval(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remove func(r *rig) string
	}{
		{"root removed", func(r *rig) string { return r.root }},
		{"session directory removed", func(r *rig) string { return r.sess.Dir }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecoveringRig(t)
			first := r.pasteSaved(lines(300, "\r"))
			if err := os.RemoveAll(tc.remove(r)); err != nil {
				t.Fatal(err)
			}
			second := r.pasteSaved(lines(301, "\r"))
			if filepath.Dir(filepath.Dir(second)) != r.root || second == first {
				t.Errorf("saved to %s after %s, want a new paste file under %s", second, tc.name, r.root)
			}
			if fi, err := os.Lstat(r.root); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("root after recovery: %v, %v; want a directory of mode 0700", fi, err)
			}
			if m := r.manifest(); len(m.Pastes) != 1 || m.Pastes[0].Path != second {
				t.Errorf("the new session's manifest records %+v, want the paste saved", m.Pastes)
			}
			r.pasteSaved(lines(302, "\r")) // And on.
		})
	}
}

// Issue 10, point 3: a root replaced by a symlink between pastes is
// refused as at start, and nothing is written through it: the paste goes
// inline exactly as the terminal sent it. Before the fix pbwrap wrote
// through the symlink into the directory it named, and typed a reference
// whose path resolved there.
func TestRootSwappedForSymlinkRefused(t *testing.T) {
	for _, mode := range []bool{false, true} {
		r := newRecoveringRig(t)
		r.mode = mode
		r.pasteSaved(lines(300, "\r"))
		moved := r.root + ".moved"
		if err := os.Rename(r.root, moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(moved, r.root); err != nil {
			t.Fatal(err)
		}
		before := tree(t, moved)
		r.child.Reset()
		body := lines(400, "\r")
		r.feed("a"+start+body+end+"b", 1000)
		r.pause(NoteGap)
		note := UnsavedNote("the root is unsafe")
		want := "a" + body + "b" + note // The note waits for a pause; the key does not.
		if mode {
			want = "a" + start + body + end + start + note + end + "b"
		}
		if got := r.child.String(); got != want {
			t.Errorf("mode %v: child got %.100q, want the %d bytes pasted, inline", mode, got, len(want))
		}
		if after := tree(t, moved); after != before {
			t.Errorf("mode %v: written through the symlink:\nbefore %s\nafter  %s", mode, before, after)
		}
		if log := strings.Join(r.logs, "\n"); !strings.Contains(log, "unsafe root") || !strings.Contains(log, "symlink") {
			t.Errorf("mode %v: log %q does not say why", mode, log)
		}
		// Put right, the root is used again.
		if err := os.Remove(r.root); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(moved, r.root); err != nil {
			t.Fatal(err)
		}
		r.pasteSaved(lines(500, "\r"))
	}
}

// tree describes every entry under dir: name, size and modification time.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(strings.TrimPrefix(path, dir) + " " + fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + "; ")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
