package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestListSessions(t *testing.T) {
	f := newFixture(t)
	a := f.ended(old, "first\n")
	b := f.live(fresh, "second\n", "third\n")
	if err := b.Record(savedRecord(b, 1, "second\n")); err != nil {
		t.Fatal(err)
	}
	c := f.ended(0)
	broken := f.ended(fresh, "its manifest is broken\n")
	if err := os.WriteFile(filepath.Join(broken.Dir, manifestName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	noManifest := f.ended(old)
	if err := os.Remove(filepath.Join(noManifest.Dir, manifestName)); err != nil {
		t.Fatal(err)
	}
	f.age(noManifest.Dir, old)

	// Entries that are not sessions pbwrap made.
	elsewhere := f.ended(old, "elsewhere\n")
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(elsewhere.Dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, elsewhere.Dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"notes.txt", mustSessionID(t)} {
		if err := os.WriteFile(filepath.Join(f.root.Path, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"not-a-session", strings.ToUpper(mustSessionID(t))} {
		if err := os.Mkdir(filepath.Join(f.root.Path, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	holdLock(t, f.root.Path) // a cleaner at work
	before := snapshot(t, f.root.Path)

	list, err := ListSessions(f.root.Path)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, before, snapshot(t, f.root.Path))

	want := []*Session{a, b, c, broken, noManifest}
	slices.SortFunc(want, func(x, y *Session) int { return strings.Compare(y.ID, x.ID) })
	if got := summaryIDs(list); !slices.Equal(got, sessionIDs(want)) {
		t.Fatalf("ListSessions = %v, want newest first %v", got, sessionIDs(want))
	}
	// Newest first is the order the sessions were made in, reversed.
	for i := 1; i < len(list); i++ {
		ti := uuidTime(t, list[i-1].ID)
		tj := uuidTime(t, list[i].ID)
		if ti.Before(tj) {
			t.Errorf("%s (made %v) listed before %s (made %v)", list[i-1].ID, ti, list[i].ID, tj)
		}
	}
	for i, s := range list {
		w := want[i]
		if s.Dir != w.Dir {
			t.Errorf("%s: Dir %q, want %q", s.ID, s.Dir, w.Dir)
		}
		if wantLive := w == b; s.Live != wantLive {
			t.Errorf("%s: Live %v, want %v", s.ID, s.Live, wantLive)
		}
		if bytes := regularBytes(t, w.Dir); s.Bytes != bytes {
			t.Errorf("%s: Bytes %d, want %d", s.ID, s.Bytes, bytes)
		}
		fi, err := os.Lstat(w.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if !s.ModTime.Equal(fi.ModTime()) {
			t.Errorf("%s: ModTime %v, want %v", s.ID, s.ModTime, fi.ModTime())
		}
		switch w {
		case broken, noManifest:
			if s.Manifest != nil || s.Err == nil || !strings.Contains(s.Err.Error(), filepath.Join(w.Dir, manifestName)) {
				t.Errorf("%s: Manifest %+v, Err %v; want no manifest and an error naming it", s.ID, s.Manifest, s.Err)
			}
		default:
			if s.Err != nil || s.Manifest == nil || s.Manifest.Session != w.ID || s.Manifest.Argv0 != testMeta.Argv0 {
				t.Errorf("%s: Manifest %+v, Err %v; want its manifest", s.ID, s.Manifest, s.Err)
			}
		}
	}
	if m := list[slices.IndexFunc(list, func(s SessionSummary) bool { return s.ID == b.ID })].Manifest; len(m.Pastes) != 1 {
		t.Errorf("live session's manifest has %d pastes, want the 1 recorded", len(m.Pastes))
	}
}

// A session being made (no manifest yet, a fresh directory) is reported
// live without its lock being probed; an old one without a manifest is
// probed.
func TestListSessionBeingMade(t *testing.T) {
	r := newRoot(t)
	young := filepath.Join(r.Path, mustSessionID(t))
	oldDir := filepath.Join(r.Path, mustSessionID(t))
	for _, dir := range []string{young, oldDir} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, lockName), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mtime := time.Now().Add(-sessionStartGrace - time.Minute)
	if err := os.Chtimes(oldDir, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	list, err := ListSessions(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	for _, s := range list {
		live[s.Dir] = s.Live
	}
	if len(list) != 2 || !live[young] || live[oldDir] {
		t.Errorf("ListSessions = %+v, want the young session live and the old one not", list)
	}
}

func TestListSessionsMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "missing", "root")
	list, err := ListSessions(root)
	if err != nil || list == nil || len(list) != 0 {
		t.Errorf("ListSessions of a missing root = %#v, %v; want an empty list", list, err)
	}
	if exists(filepath.Dir(root)) {
		t.Errorf("ListSessions created %s", filepath.Dir(root))
	}
}

func TestListSessionsEmptyRoot(t *testing.T) {
	r := newRoot(t)
	if list, err := ListSessions(r.Path); err != nil || len(list) != 0 {
		t.Errorf("ListSessions of an empty root = %v, %v; want an empty list", list, err)
	}
}

// An unsafe root is refused as OpenRoot refuses it; a root open to others
// is listed and not changed.
func TestListSessionsRootChecks(t *testing.T) {
	r := newRoot(t)
	s := newSession(t, r)
	link := filepath.Join(realDir(t), "link")
	if err := os.Symlink(r.Path, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{link, file, "/"} {
		if list, err := ListSessions(root); !errors.Is(err, ErrUnsafeRoot) {
			t.Errorf("ListSessions(%q) = %v, %v; want an error wrapping ErrUnsafeRoot", root, list, err)
		}
	}
	if list, err := ListSessions("relative"); err == nil {
		t.Errorf("ListSessions of a relative root = %v, want an error", list)
	}

	if err := os.Chmod(r.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	list, err := ListSessions(r.Path)
	if err != nil || len(list) != 1 || list[0].ID != s.ID {
		t.Errorf("ListSessions of a 0755 root = %v, %v; want its session", list, err)
	}
	if got := permOf(t, r.Path); got != 0o755 {
		t.Errorf("ListSessions changed the root's mode from 0755 to %#o", got)
	}
}

func sessionIDs(list []*Session) []string {
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

func uuidTime(t *testing.T, id string) time.Time {
	t.Helper()
	u, err := uuid.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	sec, nsec := u.Time().UnixTime()
	return time.Unix(sec, nsec)
}
