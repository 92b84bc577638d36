package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// crashLeftovers puts in dir what a pbwrap killed mid-paste leaves: a
// paste and a manifest half written, under pbwrap's temp names, and
// returns their bytes.
func crashLeftovers(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for name, data := range map[string]string{
		tempPrefix + "paste-123456":          "half a paste",
		tempPrefix + "manifest.json-7890123": `{"format": 1`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		n += int64(len(data))
	}
	return n
}

// Issue 10, point 7: after a crash, the next cleanup (pbwrap runs one at
// start) removes the temp files of sessions whose lock is free, and keeps
// the sessions until their TTL. Before the fix they stayed a week: a crash
// in the middle of a 1 GB paste cost 2 GB of disk until then.
func TestCleanRemovesTempsOfEndedSessions(t *testing.T) {
	for _, dryRun := range []bool{false, true} {
		f := newFixture(t)
		crashed := f.ended(fresh, "kept\n")
		bytes := crashLeftovers(t, crashed.Dir)
		// Not pbwrap's: a directory and a symlink with temp names, and a
		// name that only looks like one.
		foreign := []string{tempPrefix + "dir", tempPrefix + "link", "tmp-paste-1"}
		if err := os.Mkdir(filepath.Join(crashed.Dir, foreign[0]), 0o700); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(t.TempDir(), "target")
		if err := os.WriteFile(target, []byte("not pbwrap's"), 0o600); err != nil {
			t.Fatal(err)
		}
		symlink(t, target, filepath.Join(crashed.Dir, foreign[1]))
		if err := os.WriteFile(filepath.Join(crashed.Dir, foreign[2]), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		f.age(crashed.Dir, fresh)
		live := f.live(fresh, "running\n")
		crashLeftovers(t, live.Dir)
		f.age(live.Dir, fresh)
		liveBefore := snapshot(t, live.Dir)

		c := f.cleaner()
		c.DryRun = dryRun
		rep := f.clean(c)
		if rep.Temps != 2 || rep.Bytes != bytes || len(rep.Removed) != 0 || len(rep.Skipped) != 0 {
			t.Errorf("dry run %v: report %+v, want 2 temp files, %d bytes, nothing else", dryRun, rep, bytes)
		}
		want := slices.Sorted(slices.Values(append([]string{lockName, manifestName, "paste-1.txt"}, foreign...)))
		if !dryRun {
			if got := dirNames(t, crashed.Dir); !slices.Equal(got, want) {
				t.Errorf("the crashed session holds %v, want %v", got, want)
			}
		} else if got := len(dirNames(t, crashed.Dir)); got != len(want)+2 {
			t.Errorf("dry run: the crashed session holds %d entries, want %d", got, len(want)+2)
		}
		if fi, err := os.Stat(crashed.Dir); err != nil || !fi.ModTime().Equal(f.now.Add(-fresh)) {
			t.Errorf("the crashed session's age changed: %v, %v", fi.ModTime(), err)
		}
		if got := readFile(t, target); got != "not pbwrap's" {
			t.Errorf("the symlink's target now holds %q", got)
		}
		checkSame(t, liveBefore, snapshot(t, live.Dir))
		commit(t, live, "the live session still works\n")
	}
}

// The temp files of a session being made (no manifest yet, younger than
// sessionStartGrace) are not touched: its lock is not even probed.
func TestCleanKeepsTempsOfSessionBeingMade(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.root.Path, mustSessionID(t))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	crashLeftovers(t, dir)
	f.age(dir, 0)
	before := snapshot(t, dir)
	if rep := f.clean(f.cleaner()); rep.Temps != 0 {
		t.Errorf("report %+v, want no temp file removed", rep)
	}
	checkSame(t, before, snapshot(t, dir))
	f.age(dir, sessionStartGrace+time.Second)
	if rep := f.clean(f.cleaner()); rep.Temps != 2 {
		t.Errorf("after the grace: report %+v, want the 2 temp files removed", rep)
	}
}
