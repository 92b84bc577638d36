package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// trimAges are trimFixture's ages, oldest first.
var trimAges = []time.Duration{20 * 24 * time.Hour, 10 * 24 * time.Hour, 24 * time.Hour, time.Hour}

// trimFixture is four ended sessions, none expired, each holding one
// paste of 10 000 bytes, last written 20 days, 10 days, a day and an hour
// before the fixture's clock, oldest first.
func trimFixture(t *testing.T) (*fixture, []*Session, []int64) {
	f := newFixture(t)
	var sessions []*Session
	var sizes []int64
	for _, age := range trimAges {
		s := f.ended(age, strings.Repeat("x", 9999)+"\n")
		sessions = append(sessions, s)
		sizes = append(sizes, regularBytes(t, s.Dir))
	}
	return f, sessions, sizes
}

func total(sizes []int64) int64 {
	var n int64
	for _, s := range sizes {
		n += s
	}
	return n
}

// Over the cap, ended sessions go oldest first, and only as many as bring
// the store under it, at the cap exactly included.
func TestCleanTrimOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxBytes func(total int64, sizes []int64) int64
		trimmed  int // how many of the oldest go
	}{
		{"under the cap", func(total int64, _ []int64) int64 { return total + 1 }, 0},
		{"at the cap", func(total int64, _ []int64) int64 { return total }, 0},
		{"a byte over", func(total int64, _ []int64) int64 { return total - 1 }, 1},
		{"the oldest two over", func(total int64, s []int64) int64 { return total - s[0] - s[1] }, 2},
		{"a byte more", func(total int64, s []int64) int64 { return total - s[0] - s[1] - 1 }, 3},
		{"a byte", func(int64, []int64) int64 { return 1 }, 4},
		{"no cap", func(int64, []int64) int64 { return -1 }, 0},
		{"the default cap", func(int64, []int64) int64 { return 0 }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, sessions, sizes := trimFixture(t)
			c := f.cleaner()
			c.MaxBytes = tc.maxBytes(total(sizes), sizes)
			rep := f.clean(c)
			want := &CleanReport{Size: total(sizes[tc.trimmed:])}
			for i, s := range sessions[:tc.trimmed] {
				want.Trimmed = append(want.Trimmed, SessionSummary{ID: s.ID, Dir: s.Dir, ModTime: modTime(f, i), Bytes: sizes[i]})
				want.Bytes += sizes[i]
			}
			checkReport(t, rep, want)
			if rep.Size != want.Size {
				t.Errorf("Size %d, want %d", rep.Size, want.Size)
			}
			for i, s := range sessions {
				if gone := !exists(s.Dir); gone != (i < tc.trimmed) {
					t.Errorf("session %d (oldest first): removed %v, want %v", i, gone, i < tc.trimmed)
				}
			}
		})
	}
}

// modTime is the modification time trimFixture gave session i.
func modTime(f *fixture, i int) time.Time {
	return f.now.Add(-trimAges[i])
}

// A dry run says what the cap would remove and removes nothing.
func TestCleanTrimDryRun(t *testing.T) {
	f, sessions, sizes := trimFixture(t)
	c := f.cleaner()
	c.MaxBytes, c.DryRun = total(sizes)-1, true
	rep := f.clean(c)
	if got := summaryIDs(rep.Trimmed); !slices.Equal(got, []string{sessions[0].ID}) {
		t.Errorf("dry run: would trim %v, want [%s]", got, sessions[0].ID)
	}
	if rep.Size != total(sizes[1:]) || rep.Bytes != sizes[0] {
		t.Errorf("dry run: Size %d, Bytes %d; want %d, %d", rep.Size, rep.Bytes, total(sizes[1:]), sizes[0])
	}
	for _, s := range sessions {
		if !exists(s.Dir) {
			t.Errorf("dry run removed %s", s.Dir)
		}
	}
}

// A live session is never trimmed, however old and however far over the
// cap the store is: the next oldest ended sessions go instead, and the
// store stays over the cap when the live ones alone are.
func TestCleanTrimNeverLive(t *testing.T) {
	f := newFixture(t)
	paste := strings.Repeat("y", 9999) + "\n"
	liveOld := f.live(25*24*time.Hour, paste)
	ended := f.ended(20*24*time.Hour, paste)
	liveNew := f.live(time.Hour, paste)
	// Being made: no manifest yet, its directory a second old.
	making := filepath.Join(f.root.Path, mustSessionID(t))
	if err := os.Mkdir(making, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(making, "paste-1.txt"), []byte(paste), 0o600); err != nil {
		t.Fatal(err)
	}
	f.age(making, time.Second)

	c := f.cleaner()
	c.MaxBytes = 1
	rep := f.clean(c)
	if got := summaryIDs(rep.Trimmed); !slices.Equal(got, []string{ended.ID}) {
		t.Errorf("trimmed %v, want only the ended session [%s]", got, ended.ID)
	}
	for _, dir := range []string{liveOld.Dir, liveNew.Dir, making} {
		if !exists(dir) {
			t.Errorf("%s, live, was trimmed", dir)
		}
	}
	if want := regularBytes(t, liveOld.Dir) + regularBytes(t, liveNew.Dir) + regularBytes(t, making); rep.Size != want {
		t.Errorf("Size %d, want %d: what the live sessions hold, over the cap", rep.Size, want)
	}
}

// Expired sessions go first and count no more; a session holding what
// pbwrap does not make is never trimmed, but counts; with Only nothing is
// trimmed.
func TestCleanTrimAfterExpiry(t *testing.T) {
	f, sessions, sizes := trimFixture(t)
	expired := f.ended(old, strings.Repeat("z", 50000))
	foreign := f.ended(15*24*time.Hour, "mine\n")
	if err := os.WriteFile(filepath.Join(foreign.Dir, "notes.txt"), []byte("n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.age(foreign.Dir, 25*24*time.Hour)
	foreignBytes := regularBytes(t, foreign.Dir)

	only := f.cleaner()
	only.MaxBytes, only.Only = 1, map[string]time.Time{sessions[3].ID: f.now.Add(-time.Hour)}
	if rep := f.clean(only); len(rep.Trimmed) != 0 || len(rep.Removed) != 0 {
		t.Errorf("with Only of a young session: trimmed %v, removed %v; want nothing", summaryIDs(rep.Trimmed), summaryIDs(rep.Removed))
	}

	c := f.cleaner()
	c.MaxBytes = total(sizes) + foreignBytes - sizes[0]
	rep := f.clean(c)
	if got := summaryIDs(rep.Removed); !slices.Equal(got, []string{expired.ID}) {
		t.Errorf("removed %v, want the expired [%s]", got, expired.ID)
	}
	if got := summaryIDs(rep.Trimmed); !slices.Equal(got, []string{sessions[0].ID}) {
		t.Errorf("trimmed %v, want the oldest ended one [%s], not the older one holding a foreign file", got, sessions[0].ID)
	}
	if !exists(foreign.Dir) {
		t.Errorf("the session holding a foreign file was trimmed")
	}
}
