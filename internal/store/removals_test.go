package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each session a Cleaner removes is recorded with why: expired (with the
// TTL), trimmed (with the cap), or all; a dry run records nothing.
func TestCleanRecordsRemovals(t *testing.T) {
	f, sessions, sizes := trimFixture(t)
	expired := f.ended(old, "old\n")
	dry := f.cleaner()
	dry.MaxBytes, dry.DryRun = total(sizes)-1, true
	f.clean(dry)
	if exists(filepath.Join(f.root.Path, RemovalsName)) {
		t.Errorf("a dry run wrote %s", RemovalsName)
	}

	c := f.cleaner()
	c.MaxBytes = total(sizes) - 1
	f.clean(c)
	all := f.cleaner()
	all.All = true
	f.clean(all)

	for _, tc := range []struct {
		s    *Session
		want Removal
	}{
		{expired, Removal{ID: expired.ID, Ended: f.now.Add(-old), Removed: f.now, Why: RemovedExpired, TTL: DefaultTTL}},
		{sessions[0], Removal{ID: sessions[0].ID, Ended: f.now.Add(-trimAges[0]), Removed: f.now, Why: RemovedTrimmed, Limit: total(sizes) - 1}},
		{sessions[3], Removal{ID: sessions[3].ID, Ended: f.now.Add(-trimAges[3]), Removed: f.now, Why: RemovedAll}},
	} {
		got, err := FindRemoval(f.root.Path, tc.s.ID)
		if err != nil || got == nil || !got.Ended.Equal(tc.want.Ended) || !got.Removed.Equal(tc.want.Removed) ||
			got.Why != tc.want.Why || got.TTL != tc.want.TTL || got.Limit != tc.want.Limit {
			t.Errorf("FindRemoval(%s) = %+v, %v; want %+v", tc.s.ID, got, err, tc.want)
		}
	}
	if got, err := FindRemoval(f.root.Path, mustSessionID(t)); got != nil || err != nil {
		t.Errorf("FindRemoval of a session never removed = %+v, %v; want nil, nil", got, err)
	}
	if got, err := FindRemoval(filepath.Join(t.TempDir(), "missing"), expired.ID); got != nil || err != nil {
		t.Errorf("FindRemoval in a missing root = %+v, %v; want nil, nil", got, err)
	}
}

// The record keeps the latest maxRemovals, within the bytes it may have.
func TestRemovalsBounded(t *testing.T) {
	f := newFixture(t)
	r := Removals{Format: RemovalsFormat}
	first := mustSessionID(t)
	for i := range maxRemovals {
		id := first
		if i > 0 {
			id = mustSessionID(t)
		}
		r.Sessions = append(r.Sessions, Removal{ID: id, Ended: f.now, Removed: f.now, Why: RemovedTrimmed, Limit: 1 << 62})
	}
	writeRemovals(t, f.root.Path, r)
	s := f.ended(old, "x\n")
	rep := f.clean(f.cleaner())
	if len(rep.Skipped) > 0 {
		t.Errorf("skipped %q", rep.Skipped)
	}
	got, err := readRemovals(filepath.Join(f.root.Path, RemovalsName))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sessions) != maxRemovals || got.Sessions[maxRemovals-1].ID != s.ID || got.Sessions[0].ID == first {
		t.Errorf("record of %d, last %s, first %s; want %d, the last %s, the first dropped", len(got.Sessions),
			got.Sessions[len(got.Sessions)-1].ID, got.Sessions[0].ID, maxRemovals, s.ID)
	}
	fi, err := os.Stat(filepath.Join(f.root.Path, RemovalsName))
	if err != nil || fi.Size() > maxRemovalsBytes {
		t.Errorf("record of %v bytes (%v), want at most %d", fi.Size(), err, maxRemovalsBytes)
	}
}

func writeRemovals(t *testing.T, root string, r Removals) {
	t.Helper()
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, RemovalsName), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A record pbwrap could not have written is refused, and never
// overwritten: the removal still happens, and is reported.
func TestRemovalsForged(t *testing.T) {
	for name, r := range map[string]Removals{
		"format":   {Format: 2},
		"id":       {Format: 1, Sessions: []Removal{{ID: "../etc", Why: RemovedExpired}}},
		"reason":   {Format: 1, Sessions: []Removal{{ID: "01a2363c-a766-716b-88b9-ac29331346d2", Why: "gone"}}},
		"negative": {Format: 1, Sessions: []Removal{{ID: "01a2363c-a766-716b-88b9-ac29331346d2", Why: RemovedExpired, TTL: -1}}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			writeRemovals(t, f.root.Path, r)
			before := snapshot(t, f.root.Path)[RemovalsName]
			s := f.ended(old, "x\n")
			rep := f.clean(f.cleaner())
			if exists(s.Dir) || len(rep.Skipped) != 1 || !strings.HasPrefix(rep.Skipped[0], RemovalsName+": not updated") {
				t.Errorf("removed %v, skipped %q; want the session removed and the record reported", !exists(s.Dir), rep.Skipped)
			}
			if after := snapshot(t, f.root.Path)[RemovalsName]; after != before {
				t.Errorf("the forged record was changed")
			}
			if _, err := FindRemoval(f.root.Path, s.ID); err == nil {
				t.Errorf("FindRemoval read a forged record")
			}
		})
	}
}

// A temp file of the record that a crash left is removed once it is
// stale; a young one, and the record, stay.
func TestRemovalsTempSwept(t *testing.T) {
	f := newFixture(t)
	stale := filepath.Join(f.root.Path, tempPrefix+RemovalsName+"-123")
	young := filepath.Join(f.root.Path, tempPrefix+RemovalsName+"-456")
	for _, p := range []string{stale, young} {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.age(stale, StaleCountersTemp+time.Second)
	f.age(young, time.Second)
	rep := f.clean(f.cleaner())
	if exists(stale) || !exists(young) || rep.RootTemps != 1 || len(rep.Skipped) != 0 {
		t.Errorf("stale left %v, young kept %v, RootTemps %d, skipped %q; want the stale one alone removed",
			exists(stale), exists(young), rep.RootTemps, rep.Skipped)
	}
}

// With Every, a Cleaner goes through the root at most that often, by the
// root's record and the injected clock: between two, Clean changes nothing
// and says so; a clock set back before the last one finds it due.
func TestCleanEvery(t *testing.T) {
	f := newFixture(t)
	start := f.now
	clean := func(at time.Duration) error {
		c := f.cleaner()
		c.Every = time.Hour
		c.Now = func() time.Time { return start.Add(at) }
		_, err := c.Clean()
		return err
	}
	f.ended(time.Hour, "kept\n") // Two sessions to go through, so that the time is recorded.
	a := f.ended(old, "a\n")
	if err := clean(0); err != nil || exists(a.Dir) {
		t.Fatalf("first Clean: %v, expired session left: %v", err, exists(a.Dir))
	}
	b := f.ended(old, "b\n")
	if err := clean(59 * time.Minute); err != ErrNotDue || !exists(b.Dir) {
		t.Errorf("Clean 59m later: %v, removed %v; want ErrNotDue and nothing removed", err, !exists(b.Dir))
	}
	if err := clean(time.Hour); err != nil || exists(b.Dir) {
		t.Errorf("Clean an hour later: %v, expired session left: %v", err, exists(b.Dir))
	}
	c := f.ended(old+3*time.Hour, "c\n")
	if err := clean(-2 * time.Hour); err != nil || exists(c.Dir) {
		t.Errorf("Clean with the clock set back: %v, expired session left: %v", err, exists(c.Dir))
	}
	// A root with at most one session records no time: there is nothing
	// to save by skipping it.
	g := newFixture(t)
	g.ended(old, "e\n")
	e := g.cleaner()
	e.Every = time.Hour
	if _, err := e.Clean(); err != nil {
		t.Fatal(err)
	}
	if r, err := readRemovals(filepath.Join(g.root.Path, RemovalsName)); err != nil || !r.Cleaned.IsZero() {
		t.Errorf("one session gone through: cleaned %v (%v), want no time recorded", r.Cleaned, err)
	}
	// Without Every, every time, and the time is not recorded.
	d := f.ended(old, "d\n")
	if _, err := f.cleaner().Clean(); err != nil || exists(d.Dir) {
		t.Errorf("Clean without Every: %v, expired session left: %v", err, exists(d.Dir))
	}
	r, err := readRemovals(filepath.Join(f.root.Path, RemovalsName))
	if err != nil || !r.Cleaned.Equal(start.Add(-2*time.Hour)) {
		t.Errorf("record: cleaned %v (%v), want the last Clean with Every's time %v", r.Cleaned, err, start.Add(-2*time.Hour))
	}
}
