//go:build darwin || freebsd || linux

package store

// Removals that fail for root too: each system's own way to make a file
// or a directory unremovable is in immutable_linux_test.go and
// immutable_bsd_test.go.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One session whose files cannot be removed does not stop the cleanup of
// the others; the report names it, the path and why.
func TestCleanUnremovableSession(t *testing.T) {
	f := newFixture(t)
	first := f.ended(old, "a\n")
	bad := f.ended(old+time.Hour, "b\n")
	last := f.ended(old+2*time.Hour, "c\n")
	why := unremovableEntries(t, bad.Dir)
	rep := f.clean(f.cleaner())
	if exists(first.Dir) || exists(last.Dir) || !exists(bad.Dir) {
		t.Errorf("removed %v, want the other sessions removed and %s kept", summaryIDs(rep.Removed), bad.ID)
	}
	if len(rep.Skipped) != 1 || !strings.HasPrefix(rep.Skipped[0], bad.ID+": store: remove "+bad.Dir+"/") ||
		!strings.Contains(rep.Skipped[0], why) {
		t.Errorf("Skipped = %q, want %s, the path that could not be removed and why", rep.Skipped, bad.ID)
	}
	if got := summaryIDs(rep.Removed); len(got) != 2 {
		t.Errorf("Removed = %v, want 2 sessions", got)
	}
}

// A removal that stops half-way counts the bytes it freed, says which
// file it could not remove, and gives the directory its age back, so that
// the next cleanup finishes the job instead of waiting a whole TTL: the
// files removed changed the directory's modification time.
func TestCleanRemovalStopsHalfWay(t *testing.T) {
	f := newFixture(t)
	s := f.ended(old, "first paste\n", "second paste\n")
	pastes := int64(len("first paste\n") + len("second paste\n"))
	manifest := filepath.Join(s.Dir, manifestName)
	immutable(t, manifest)
	f.age(s.Dir, old)

	rep := f.clean(f.cleaner())
	if rep.Bytes != pastes || len(rep.Removed) != 0 {
		t.Errorf("report %+v, want the %d bytes of the pastes freed and no session removed", rep, pastes)
	}
	want := s.ID + ": store: remove " + manifest + ": operation not permitted"
	if len(rep.Skipped) != 1 || rep.Skipped[0] != want {
		t.Errorf("Skipped = %q, want [%q]", rep.Skipped, want)
	}
	// The manifest and the lock go last: the session still says what it was.
	if got := dirNames(t, s.Dir); strings.Join(got, " ") != lockName+" "+manifestName {
		t.Errorf("left in the session: %q, want the lock and the manifest", got)
	}
	fi, err := os.Lstat(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := f.now.Add(-old); !fi.ModTime().Equal(want) {
		t.Errorf("session directory's mtime after a failed removal %v, want its age back: %v", fi.ModTime(), want)
	}

	mutable(t, manifest)
	rep = f.clean(f.cleaner())
	if len(rep.Removed) != 1 || exists(s.Dir) {
		t.Errorf("the next cleanup removed %v, want %s", summaryIDs(rep.Removed), s.ID)
	}
}

// When End cannot remove the directory of a session that saved nothing,
// the session is kept, ended, and still says what it was: its manifest is
// written back. The error names the directory.
func TestEndCannotRemove(t *testing.T) {
	r := newRoot(t)
	s := newSession(t, r)
	immutable(t, r.Path) // No entry of the root can be removed.
	err := s.End()
	if err == nil || !strings.Contains(err.Error(), "store: remove "+s.Dir+": operation not permitted") {
		t.Errorf("End with an immutable root = %v, want the removal's error naming %s", err, s.Dir)
	}
	checkEnded(t, s, 0)
	if got := dirNames(t, s.Dir); strings.Join(got, " ") != manifestName {
		t.Errorf("left in the session: %q, want the manifest", got)
	}
}
