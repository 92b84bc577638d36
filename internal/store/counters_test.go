package store

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// recordSaved saves text in s and records it, at time at.
func recordSaved(t *testing.T, s *Session, text string, at time.Time) {
	t.Helper()
	n, _, _ := commit(t, s, text)
	r := savedRecord(s, n, text)
	r.Time = at
	if err := s.Record(r); err != nil {
		t.Fatal(err)
	}
}

func recordOutcome(t *testing.T, s *Session, outcome string, at time.Time) {
	t.Helper()
	r := PasteRecord{Bytes: 3, Lines: 1, Time: at, Outcome: outcome}
	if outcome == OutcomeFallback {
		r.Reason = "disk full"
	}
	if err := s.Record(r); err != nil {
		t.Fatal(err)
	}
}

func readCountersOf(t *testing.T, r *Root) *Counters {
	t.Helper()
	c, err := ReadCounters(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Issue 14, point 8: Record counts each paste in the root's counters, per
// agent and local day, and the counters outlive the sessions: pbwrap
// clean --all leaves them, so pbwrap stats counts since the first use.
func TestRecordCountsPastes(t *testing.T) {
	r := newRoot(t)
	if c := readCountersOf(t, r); len(c.Counts) != 0 || !c.First.IsZero() || c.Format != CountersFormat {
		t.Fatalf("counters of a new root = %+v, want none", c)
	}
	day1 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.Local)
	day2 := day1.AddDate(0, 0, 1)
	claude := newSession(t, r)
	recordSaved(t, claude, strings.Repeat("a", 100), day2)
	recordSaved(t, claude, strings.Repeat("b", 50), day1)
	recordOutcome(t, claude, OutcomeInline, day1)
	recordOutcome(t, claude, OutcomeFallback, day1)
	meta := testMeta
	meta.Argv0 = "pi"
	pi, err := r.NewSession(mustSessionID(t), meta)
	if err != nil {
		t.Fatal(err)
	}
	recordSaved(t, pi, strings.Repeat("c", 10), day1)
	recordSaved(t, pi, strings.Repeat("c", 10), day1) // Reused: counted again, as a reference typed again.
	if err := pi.Close(); err != nil {
		t.Fatal(err)
	}
	want := &Counters{Format: CountersFormat, First: day1, Counts: []Count{
		{Day: "2026-11-01", Agent: "claude", Saved: 1, Bytes: 50, Inline: 1, Fallback: 1},
		{Day: "2026-11-01", Agent: "pi", Saved: 2, Bytes: 20},
		{Day: "2026-11-02", Agent: "claude", Saved: 1, Bytes: 100},
	}}
	got := readCountersOf(t, r)
	if !got.First.Equal(want.First) {
		t.Errorf("first = %v, want %v", got.First, want.First)
	}
	got.First = want.First
	if !reflect.DeepEqual(got, want) {
		t.Errorf("counters = %+v\nwant %+v", got, want)
	}

	rep, err := (&Cleaner{Root: r.Path, All: true}).Clean()
	if err != nil || len(rep.Removed) != 1 || len(rep.Skipped) != 0 {
		t.Fatalf("Clean: %+v, %v; want the ended session removed, nothing skipped", rep, err)
	}
	if after := readCountersOf(t, r); !reflect.DeepEqual(after.Counts, want.Counts) {
		t.Errorf("counters after clean --all = %+v, want them unchanged", after.Counts)
	}
	info, err := os.Lstat(filepath.Join(r.Path, CountersName))
	if err != nil || info.Mode().Perm() != filePerm {
		t.Errorf("counters file: %v, %v; want mode %#o", info, err, filePerm)
	}
}

// An agent name that JSON cannot carry as it is (not UTF-8) is kept as
// JSON carries it, so that the next paste adds to the same row instead of
// writing a row twice, which reading would refuse.
func TestCountsAgentNotUTF8(t *testing.T) {
	r := newRoot(t)
	meta := testMeta
	meta.Argv0 = "bad\xffname"
	s, err := r.NewSession(mustSessionID(t), meta)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Now()
	recordOutcome(t, s, OutcomeInline, at)
	recordOutcome(t, s, OutcomeInline, at)
	c := readCountersOf(t, r)
	if len(c.Counts) != 1 || c.Counts[0].Inline != 2 || c.Counts[0].Agent != "bad\uFFFDname" {
		t.Errorf("counts = %+v, want one row of 2 for bad\\uFFFDname", c.Counts)
	}
}

// Agents can write in the root: a counters file that this package did not
// write is refused when read, with the reason, and never overwritten;
// Record keeps the paste in the manifest and says it was not counted.
func TestCountersForged(t *testing.T) {
	valid := `{"format":1,"first":"2026-11-01T12:00:00Z","counts":[%s]}`
	row := func(day, agent string, saved int) string {
		return `{"day":"` + day + `","agent":"` + agent + `","saved":` + strconv.Itoa(saved) + `,"bytes":10,"inline":0,"fallback":0}`
	}
	for _, tc := range []struct {
		name, content, why string
	}{
		{"not JSON", "{", "unexpected end of JSON input"},
		{"another format", `{"format":2}`, "format 2, want 1"},
		{"a negative count", strings.Replace(valid, "%s", row("2026-11-01", "claude", -1), 1), "-1 is not a count"},
		{"a bad day", strings.Replace(valid, "%s", row("2026-13-01", "claude", 1), 1), `day "2026-13-01" is not a date`},
		{"a row twice", strings.Replace(valid, "%s", row("2026-11-01", "claude", 1)+","+row("2026-11-01", "claude", 1), 1), "count 2: not after count 1"},
		{"out of order", strings.Replace(valid, "%s", row("2026-11-02", "claude", 1)+","+row("2026-11-01", "claude", 1), 1), "count 2: not after count 1"},
		{"counts without first", `{"format":1,"counts":[` + row("2026-11-01", "pi", 1) + `]}`, "without the time of the first paste"},
		{"a long agent", strings.Replace(valid, "%s", row("2026-11-01", strings.Repeat("x", 256), 1), 1), "not a name pbwrap writes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRoot(t)
			path := filepath.Join(r.Path, CountersName)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadCounters(r.Path); err == nil || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadCounters: %v; want an error naming %s and saying %q", err, path, tc.why)
			}
			s := newSession(t, r)
			err := s.Record(PasteRecord{Bytes: 3, Lines: 1, Time: time.Now(), Outcome: OutcomeInline})
			if !errors.Is(err, ErrNotCounted) {
				t.Errorf("Record: %v; want ErrNotCounted", err)
			}
			if m, err := ReadManifest(s.Dir); err != nil || len(m.Pastes) != 1 {
				t.Errorf("manifest: %+v, %v; want the paste recorded", m, err)
			}
			if data, _ := os.ReadFile(path); string(data) != tc.content {
				t.Errorf("the counters file is now %q: want it left as it was", data)
			}
		})
	}
}

// The counters file is opened without following a symlink, and read
// within its size limit: a sparse file of 1 GiB is refused unread.
func TestCountersNotRead(t *testing.T) {
	r := newRoot(t)
	path := filepath.Join(r.Path, CountersName)
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(target, []byte(`{"format":1,"counts":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, path)
	if _, err := ReadCounters(r.Path); err == nil {
		t.Error("ReadCounters read through a symlink")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCounters(r.Path); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("ReadCounters of a 1 GiB file: %v; want it refused for its size", err)
	}
}

// A counters lock that another process holds is waited for only so long:
// the paste is recorded, not counted, and Record says why.
func TestCountersLockHeld(t *testing.T) {
	r := newRoot(t)
	f, err := os.OpenFile(filepath.Join(r.Path, CountersLockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := flock(f, lockExclusive); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, r)
	err = s.Record(PasteRecord{Bytes: 3, Lines: 1, Time: time.Now(), Outcome: OutcomeInline})
	if !errors.Is(err, ErrNotCounted) || !strings.Contains(err.Error(), "held by another process") {
		t.Errorf("Record with the counters lock held: %v; want ErrNotCounted, held by another process", err)
	}
	if err := flock(f, lockUnlock); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(PasteRecord{Bytes: 3, Lines: 1, Time: time.Now(), Outcome: OutcomeInline}); err != nil {
		t.Errorf("Record once the lock is free: %v", err)
	}
	if c := readCountersOf(t, r); len(c.Counts) != 1 || c.Counts[0].Inline != 1 {
		t.Errorf("counts = %+v, want the second paste alone", c.Counts)
	}
}

func TestAddCapped(t *testing.T) {
	for _, tc := range []struct{ n, v, want int64 }{
		{0, 1, 1},
		{5, 10, 15},
		{maxCounterValue - 1, 5, maxCounterValue},
		{maxCounterValue, 1 << 62, maxCounterValue},
		{0, 1<<63 - 1, maxCounterValue},
	} {
		if got := addCapped(tc.n, tc.v); got != tc.want {
			t.Errorf("addCapped(%d, %d) = %d, want %d", tc.n, tc.v, got, tc.want)
		}
	}
}
