package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A fixture is a root with sessions of chosen ages, and a clock for the
// cleaner. Ages are made by setting modification times, never by sleeping.
type fixture struct {
	t    *testing.T
	root *Root
	now  time.Time // whole seconds, so that ages are exact on any filesystem
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{t: t, root: newRoot(t), now: time.Now().Truncate(time.Second)}
}

// ended makes a session that has ended, holding pastes, last written age
// before f.now.
func (f *fixture) ended(age time.Duration, pastes ...string) *Session {
	f.t.Helper()
	s, err := f.root.NewSession(mustSessionID(f.t), testMeta)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, p := range pastes {
		commit(f.t, s, p)
	}
	if err := s.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.age(s.Dir, age)
	return s
}

// live makes a session that runs until the test ends, holding pastes,
// last written age before f.now.
func (f *fixture) live(age time.Duration, pastes ...string) *Session {
	f.t.Helper()
	s := newSession(f.t, f.root)
	for _, p := range pastes {
		commit(f.t, s, p)
	}
	f.age(s.Dir, age)
	return s
}

// age sets the modification time of path to age before f.now.
func (f *fixture) age(path string, age time.Duration) {
	f.t.Helper()
	mtime := f.now.Add(-age)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) cleaner() *Cleaner {
	return &Cleaner{Root: f.root.Path, TTL: DefaultTTL, Now: func() time.Time { return f.now }}
}

func (f *fixture) clean(c *Cleaner) *CleanReport {
	f.t.Helper()
	var rep *CleanReport
	var err error
	returns(f.t, "Clean", func() { rep, err = c.Clean() })
	if err != nil {
		f.t.Fatalf("Clean: %v", err)
	}
	return rep
}

const (
	old   = DefaultTTL + time.Hour
	fresh = time.Hour
)

func TestCleanExpiry(t *testing.T) {
	// A session exactly TTL old is kept: the TTL is how long a session is
	// kept, and it has not been kept longer yet.
	const ttl = 36 * time.Hour
	tests := []struct {
		name        string
		age         time.Duration
		all         bool
		wantRemoved bool
	}{
		{"just written", 0, false, false},
		{"younger than TTL", ttl - time.Second, false, false},
		{"exactly TTL", ttl, false, false},
		{"a second over TTL", ttl + time.Second, false, true},
		{"a month", 30 * 24 * time.Hour, false, true},
		{"written in the future", -time.Hour, false, false},
		{"All, just written", 0, true, true},
		{"All, exactly TTL", ttl, true, true},
		{"All, a month", 30 * 24 * time.Hour, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.ended(tc.age, "some paste\n")
			bytes := regularBytes(t, s.Dir)
			c := f.cleaner()
			c.TTL, c.All = ttl, tc.all
			rep := f.clean(c)

			gone := !exists(s.Dir)
			if gone != tc.wantRemoved {
				t.Errorf("session aged %v (TTL %v, All %v): removed %v, want %v", tc.age, ttl, tc.all, gone, tc.wantRemoved)
			}
			want := &CleanReport{}
			if tc.wantRemoved {
				want.Removed = []SessionSummary{{ID: s.ID, Dir: s.Dir, ModTime: f.now.Add(-tc.age), Bytes: bytes}}
				want.Bytes = bytes
			}
			checkReport(t, rep, want)
			if !exists(f.root.Path) {
				t.Errorf("the root %s was removed", f.root.Path)
			}
		})
	}
}

func TestCleanZeroTTLIsDefault(t *testing.T) {
	f := newFixture(t)
	young := f.ended(DefaultTTL - time.Second)
	expired := f.ended(DefaultTTL + time.Second)
	c := f.cleaner()
	c.TTL = 0
	rep := f.clean(c)
	if !exists(young.Dir) || exists(expired.Dir) {
		t.Errorf("with TTL 0: kept %v, removed %v; want the DefaultTTL applied", exists(young.Dir), !exists(expired.Dir))
	}
	if got := summaryIDs(rep.Removed); !slices.Equal(got, []string{expired.ID}) {
		t.Errorf("removed %v, want [%s]", got, expired.ID)
	}
}

func TestCleanNegativeTTL(t *testing.T) {
	f := newFixture(t)
	s := f.ended(old)
	c := f.cleaner()
	c.TTL = -time.Hour
	if rep, err := c.Clean(); err == nil {
		t.Errorf("Clean with TTL -1h = %+v, want an error", rep)
	}
	if !exists(s.Dir) {
		t.Errorf("Clean with a negative TTL removed %s", s.Dir)
	}
}

// Every file pbwrap makes goes with its session, and the bytes are
// counted; nothing outside the session is touched.
func TestCleanRemovesPbwrapFiles(t *testing.T) {
	f := newFixture(t)
	s, err := f.root.NewSession(mustSessionID(t), testMeta)
	if err != nil {
		t.Fatal(err)
	}
	commit(t, s, "first paste\n")
	commit(t, s, strings.Repeat("second paste\n", 1000))
	if err := s.Record(savedRecord(s, 1, "first paste\n")); err != nil {
		t.Fatal(err)
	}
	// What a crash leaves: a paste and a manifest half written, a debug log.
	leftover, err := s.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { leftover.Discard() })
	if _, err := leftover.Write([]byte("half a paste")); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		tempPrefix + manifestName + "-1234567": "{",
		debugLogName:                           "start: claude\n",
	} {
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	keep := f.ended(fresh, "kept\n")
	f.age(s.Dir, old)
	bytes := regularBytes(t, s.Dir)
	before := snapshot(t, keep.Dir)

	rep := f.clean(f.cleaner())
	if exists(s.Dir) {
		t.Errorf("%s is still there: %v", s.Dir, dirNames(t, s.Dir))
	}
	checkReport(t, rep, &CleanReport{
		Removed: []SessionSummary{{ID: s.ID, Dir: s.Dir, ModTime: f.now.Add(-old), Bytes: bytes}},
		Bytes:   bytes,
	})
	if bytes < 13000 {
		t.Errorf("the session had %d bytes, want the pastes' 13000 and more: the test is wrong", bytes)
	}
	if m := rep.Removed[0].Manifest; m == nil || len(m.Pastes) != 1 || m.Argv0 != testMeta.Argv0 {
		t.Errorf("removed session's manifest = %+v, %v; want the one recorded", m, rep.Removed[0].Err)
	}
	checkSame(t, before, snapshot(t, keep.Dir))
	// The root's counters outlive the sessions (issue 14), as does the
	// record of the removal (issue 29).
	if got := dirNames(t, f.root.Path); !slices.Equal(got, []string{CountersName, CountersLockName, RemovalsName, keep.ID}) {
		t.Errorf("root holds %q, want only the counters, the removals and the fresh session", got)
	}
}

// A session holding anything pbwrap does not make is left whole, and
// reported; what the entry points to is not touched either.
func TestCleanForeignEntries(t *testing.T) {
	outside := t.TempDir()
	target := filepath.Join(outside, "target.txt")
	if err := os.WriteFile(target, []byte("not pbwrap's"), 0o644); err != nil {
		t.Fatal(err)
	}
	targetDir := filepath.Join(outside, "dir")
	if err := os.Mkdir(targetDir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := func(name string) func(string) error {
		return func(dir string) error { return os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600) }
	}
	symlink := func(name, to string) func(string) error {
		return func(dir string) error { return os.Symlink(to, filepath.Join(dir, name)) }
	}
	mkdir := func(name string) func(string) error {
		return func(dir string) error { return os.Mkdir(filepath.Join(dir, name), 0o700) }
	}
	tests := []struct {
		name, entry string
		make        func(dir string) error
		shown       string // how the report shows the entry: its name, escaped, then what it is
	}{
		{"foreign file", "notes.txt", file("notes.txt"), "notes.txt"},
		{"paste name with a leading zero", "paste-01.txt", file("paste-01.txt"), "paste-01.txt"},
		{"paste 0", "paste-0.txt", file("paste-0.txt"), "paste-0.txt"},
		{"paste with a sign", "paste-+1.txt", file("paste-+1.txt"), "paste-+1.txt"},
		{"paste in another format", "paste-1.md", file("paste-1.md"), "paste-1.md"},
		{"symlink named like a paste", "paste-9.txt", symlink("paste-9.txt", target), "paste-9.txt (a symlink)"},
		{"symlink named like a temp", ".tmp-paste-1", symlink(".tmp-paste-1", target), ".tmp-paste-1 (a symlink)"},
		{"dangling symlink", "debug.log", symlink("debug.log", filepath.Join(outside, "missing")), "debug.log (a symlink)"},
		{"symlink to a directory", "paste-8.txt", symlink("paste-8.txt", targetDir), "paste-8.txt (a symlink)"},
		{"directory named like a paste", "paste-7.txt", mkdir("paste-7.txt"), "paste-7.txt (a directory)"},
		{"directory named like a temp", ".tmp-x", mkdir(".tmp-x"), ".tmp-x (a directory)"},
		{"foreign directory", "sub", mkdir("sub"), "sub"},
		{"named pipe", "paste-6.txt", func(dir string) error { return mkfifo(t, filepath.Join(dir, "paste-6.txt")) }, "paste-6.txt (not a regular file)"},
		{"control characters", "evil\x1b[2J", file("evil\x1b[2J"), `"evil\x1b[2J"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.ended(old, "paste one\n", "paste two\n")
			if err := tc.make(s.Dir); err != nil {
				t.Fatal(err)
			}
			f.age(s.Dir, old)
			before, outsideBefore := snapshot(t, f.root.Path), snapshot(t, outside)

			for _, c := range []*Cleaner{f.cleaner(), {Root: f.root.Path, All: true}} {
				rep := f.clean(c)
				checkSame(t, before, snapshot(t, f.root.Path))
				checkSame(t, outsideBefore, snapshot(t, outside))
				if len(rep.Removed) != 0 || len(rep.Live) != 0 || rep.Bytes != 0 {
					t.Errorf("report %+v, want nothing removed", rep)
				}
				want := s.ID + ": holds what pbwrap does not make, so nothing in it was removed: " + tc.shown
				if len(rep.Skipped) != 1 || rep.Skipped[0] != want {
					t.Errorf("Skipped = %q, want [%q]", rep.Skipped, want)
				}
			}
		})
	}
}

// A session full of foreign files is reported in one line of bounded
// length.
func TestCleanManyForeignEntries(t *testing.T) {
	f := newFixture(t)
	s := f.ended(old)
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(s.Dir, fmt.Sprintf("f%03d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.age(s.Dir, old)
	rep := f.clean(f.cleaner())
	if len(rep.Skipped) != 1 || !strings.HasSuffix(rep.Skipped[0], "and 95 more") || len(rep.Skipped[0]) > 200 {
		t.Errorf("Skipped = %q, want one short line ending %q", rep.Skipped, "and 95 more")
	}
}

// Only session directories pbwrap made are candidates: whatever else is in
// the root stays, however old, and a symlink is never followed.
func TestCleanRootEntries(t *testing.T) {
	f := newFixture(t)
	removed := f.ended(old, "expired\n")

	// A session-like directory elsewhere, linked into the root under a
	// session's name.
	outside := t.TempDir()
	elsewhere := filepath.Join(outside, "session")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"paste-1.txt", manifestName, lockName} {
		if err := os.WriteFile(filepath.Join(elsewhere, name), []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	linkID := mustSessionID(t)
	if err := os.Symlink(elsewhere, filepath.Join(f.root.Path, linkID)); err != nil {
		t.Fatal(err)
	}
	fileID := mustSessionID(t)
	upper := strings.ToUpper(mustSessionID(t))
	braced := "{" + mustSessionID(t) + "}"
	for _, dir := range []string{"not-a-session", upper, braced} {
		if err := os.Mkdir(filepath.Join(f.root.Path, dir), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.root.Path, dir, "paste-1.txt"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"notes.txt", fileID, ".tmp-paste-1"} {
		if err := os.WriteFile(filepath.Join(f.root.Path, file), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(f.root.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		mtime := f.now.Add(-old)
		ts := unix.NsecToTimespec(mtime.UnixNano())
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, filepath.Join(f.root.Path, e.Name()), []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(elsewhere, f.now.Add(-old), f.now.Add(-old)); err != nil {
		t.Fatal(err)
	}
	before, outsideBefore := snapshot(t, f.root.Path), snapshot(t, outside)
	delete(before, removed.ID)
	for p := range before {
		if strings.HasPrefix(p, removed.ID+"/") {
			delete(before, p)
		}
	}

	for _, all := range []bool{false, true} {
		c := f.cleaner()
		c.All = all
		rep := f.clean(c)
		after := snapshot(t, f.root.Path)
		delete(after, RemovalsName) // The record of the removal.
		checkSame(t, before, after)
		checkSame(t, outsideBefore, snapshot(t, outside))
		if all {
			continue
		}
		if got := summaryIDs(rep.Removed); !slices.Equal(got, []string{removed.ID}) {
			t.Errorf("removed %v, want [%s]", got, removed.ID)
		}
		want := []string{
			linkID + ": a symlink, not followed",
			fileID + ": not a directory",
			"not-a-session: not a session pbwrap made",
			"notes.txt: not a session pbwrap made",
			braced + ": not a session pbwrap made",
			upper + ": not a session pbwrap made",
			".tmp-paste-1: not a session pbwrap made",
		}
		got := slices.Sorted(slices.Values(rep.Skipped))
		if slices.Sort(want); !slices.Equal(got, want) {
			t.Errorf("Skipped\n%q\nwant\n%q", got, want)
		}
	}
}

// A live session is kept however old, with All too, and reported; its
// files are not touched.
func TestCleanLiveKept(t *testing.T) {
	f := newFixture(t)
	veryOld := f.live(10*365*24*time.Hour, "still needed\n")
	oldLive := f.live(old, "also needed\n")
	freshLive := f.live(0)
	expired := f.ended(old, "gone\n")
	before := snapshot(t, f.root.Path)

	for _, all := range []bool{false, true} {
		c := f.cleaner()
		c.All = all
		rep := f.clean(c)
		wantLive := []string{oldLive.ID, veryOld.ID} // newest first
		if all {
			wantLive = []string{freshLive.ID, oldLive.ID, veryOld.ID}
		}
		if got := summaryIDs(rep.Live); !slices.Equal(got, wantLive) {
			t.Errorf("All %v: Live = %v, want %v", all, got, wantLive)
		}
		for _, s := range rep.Live {
			if !s.Live || s.Manifest == nil || s.Bytes == 0 {
				t.Errorf("All %v: Live entry %+v, want Live set, the manifest read and the bytes counted", all, s)
			}
		}
		for _, s := range []*Session{veryOld, oldLive, freshLive} {
			checkSame(t, subSnapshot(before, s.ID), subSnapshot(snapshot(t, f.root.Path), s.ID))
			if live, err := IsLive(s.Dir); !live || err != nil {
				t.Errorf("IsLive(%s) after Clean = %v, %v; want true", s.Dir, live, err)
			}
		}
	}
	if exists(expired.Dir) {
		t.Errorf("the expired session that ended was kept")
	}
	// The sessions still work.
	commit(t, veryOld, "one more\n")
}

// A session being made, with its directory but no manifest yet, is not
// probed (a probe could make NewSession fail) but counted live, for a
// minute; after that it is what a crash left, and goes.
func TestCleanSessionBeingMade(t *testing.T) {
	for _, tc := range []struct {
		age         time.Duration
		withLock    bool
		wantRemoved bool
	}{
		{0, false, false},
		{0, true, false},
		{sessionStartGrace, true, false},
		{sessionStartGrace + time.Second, false, true},
		{sessionStartGrace + time.Second, true, true},
	} {
		f := newFixture(t)
		dir := filepath.Join(f.root.Path, mustSessionID(t))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if tc.withLock {
			if err := os.WriteFile(filepath.Join(dir, lockName), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		f.age(dir, tc.age)
		c := f.cleaner()
		c.All = true
		rep := f.clean(c)
		name := fmt.Sprintf("session without a manifest aged %v (.lock %v)", tc.age, tc.withLock)
		if got := !exists(dir); got != tc.wantRemoved {
			t.Errorf("%s: removed %v, want %v", name, got, tc.wantRemoved)
		}
		if !tc.wantRemoved && len(rep.Live) != 1 {
			t.Errorf("%s: Live = %+v, want it there", name, rep.Live)
		}
	}
}

// A dry run reports exactly what a real run then does, and changes
// nothing, not even by taking the lock: it runs while another cleaner
// holds it.
func TestCleanDryRun(t *testing.T) {
	f := newFixture(t)
	f.ended(old, "a\n")
	f.ended(old+time.Hour, "b\n", "c\n")
	f.ended(fresh, "kept\n")
	f.live(old, "live\n")
	foreign := f.ended(old)
	if err := os.WriteFile(filepath.Join(foreign.Dir, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f.age(foreign.Dir, old)
	if err := os.WriteFile(filepath.Join(f.root.Path, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	holder := holdLock(t, f.root.Path)
	before := snapshot(t, f.root.Path)
	c := f.cleaner()
	c.DryRun = true
	dry := f.clean(c)
	checkSame(t, before, snapshot(t, f.root.Path))
	if _, err := c.Clean(); err != nil {
		t.Errorf("a second dry run: %v", err)
	}
	holder.Close()
	if !exists(filepath.Join(f.root.Path, CleanupLockName)) {
		t.Errorf("the dry run removed the lock it did not hold")
	}
	if err := os.Remove(filepath.Join(f.root.Path, CleanupLockName)); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, f.root.Path)

	done := f.clean(f.cleaner())
	checkReport(t, done, dry)
	if len(dry.Removed) != 2 || len(dry.Live) != 1 || len(dry.Skipped) != 2 || dry.Bytes == 0 {
		t.Errorf("dry run report %+v, want 2 removed, 1 live, 2 skipped", dry)
	}
	for _, s := range dry.Removed {
		if _, ok := before[s.ID]; !ok {
			t.Errorf("dry run says it would remove %s, which is not there", s.ID)
		}
	}
}

// holdLock holds the cleanup lock of root as another cleaner would,
// through another open file description, until the returned file is
// closed.
func holdLock(t *testing.T, root string) *os.File {
	t.Helper()
	path := filepath.Join(root, CleanupLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCleanMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "missing", "root")
	for _, c := range []*Cleaner{{Root: root}, {Root: root, All: true}, {Root: root, DryRun: true}} {
		rep, err := c.Clean()
		if err != nil || !reflect.DeepEqual(rep, &CleanReport{}) {
			t.Errorf("Clean of a missing root = %+v, %v; want an empty report", rep, err)
		}
	}
	if exists(filepath.Dir(root)) {
		t.Errorf("Clean created %s", filepath.Dir(root))
	}
}

// The root stays, even when everything in it goes, and no lock file is
// left: only the record of the removals.
func TestCleanRootStays(t *testing.T) {
	f := newFixture(t)
	first := f.ended(0, "x\n")
	second := f.ended(old, "y\n")
	c := f.cleaner()
	c.All = true
	rep := f.clean(c)
	if got, want := summaryIDs(rep.Removed), []string{second.ID, first.ID}; !slices.Equal(got, want) {
		t.Errorf("removed %v, want newest first %v", got, want)
	}
	if got := dirNames(t, f.root.Path); !slices.Equal(got, []string{RemovalsName}) {
		t.Errorf("root holds %v, want only %s", got, RemovalsName)
	}
	if got := permOf(t, f.root.Path); got != 0o700 {
		t.Errorf("root mode %#o after Clean, want 0700", got)
	}
}

// An unsafe root is refused as OpenRoot refuses it, and nothing is
// changed: not the root, not where a symlink points.
func TestCleanUnsafeRoot(t *testing.T) {
	f := newFixture(t)
	s := f.ended(old, "x\n")
	link := filepath.Join(realDir(t), "link")
	if err := os.Symlink(f.root.Path, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{link, file, "/", filepath.Join(t.TempDir(), "new\nline")} {
		for _, c := range []*Cleaner{{Root: root, All: true}, {Root: root, All: true, DryRun: true}} {
			rep, err := c.Clean()
			if !errors.Is(err, ErrUnsafeRoot) || rep != nil {
				t.Errorf("Clean(%q) = %+v, %v; want an error wrapping ErrUnsafeRoot", root, rep, err)
			}
		}
	}
	if rep, err := (&Cleaner{Root: "relative"}).Clean(); err == nil {
		t.Errorf("Clean of a relative root = %+v, want an error", rep)
	}
	if !exists(s.Dir) || exists(filepath.Join(f.root.Path, CleanupLockName)) {
		t.Errorf("Clean through a symlinked root changed the root")
	}
}

func TestCleanOtherOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	f := newFixture(t)
	s := f.ended(old, "x\n")
	if err := os.Chown(f.root.Path, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	rep, err := (&Cleaner{Root: f.root.Path, All: true}).Clean()
	if !errors.Is(err, ErrUnsafeRoot) || !strings.Contains(err.Error(), "owned by uid 12345") {
		t.Errorf("Clean of another user's root = %+v, %v; want ErrUnsafeRoot saying %q", rep, err, "owned by uid 12345")
	}
	if !exists(s.Dir) {
		t.Errorf("Clean removed a session from another user's root")
	}
}

// A root others can read but not write is cleaned, and left as it is:
// tightening it is OpenRoot's business. One others can write to is refused:
// they could swap a session for a symlink between the checks and the
// removals.
func TestCleanOpenRoot(t *testing.T) {
	f := newFixture(t)
	s := f.ended(old, "x\n")
	if err := os.Chmod(f.root.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	f.clean(f.cleaner())
	if exists(s.Dir) {
		t.Errorf("expired session kept in a 0755 root")
	}
	if got := permOf(t, f.root.Path); got != 0o755 {
		t.Errorf("Clean changed the root's mode from 0755 to %#o", got)
	}
	s = f.ended(old, "y\n")
	for _, mode := range []os.FileMode{0o775, 0o757, 0o777} {
		if err := os.Chmod(f.root.Path, mode); err != nil {
			t.Fatal(err)
		}
		rep, err := (&Cleaner{Root: f.root.Path, All: true}).Clean()
		if !errors.Is(err, ErrUnsafeRoot) || !strings.Contains(err.Error(), "others can write") {
			t.Errorf("Clean of a %#o root = %+v, %v; want ErrUnsafeRoot", mode, rep, err)
		}
		if _, err := ListSessions(f.root.Path); !errors.Is(err, ErrUnsafeRoot) {
			t.Errorf("ListSessions of a %#o root: %v, want ErrUnsafeRoot", mode, err)
		}
	}
	if !exists(s.Dir) {
		t.Error("Clean removed a session from a root others can write to")
	}
}

// A session directory another user owns is not pbwrap's to remove, even
// in the user's own root.
func TestCleanSessionOfAnotherOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	f := newFixture(t)
	s := f.ended(old, "x\n")
	if err := os.Chown(s.Dir, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	rep := f.clean(&Cleaner{Root: f.root.Path, All: true, Now: func() time.Time { return f.now }})
	if !exists(s.Dir) || len(rep.Removed) != 0 {
		t.Errorf("Clean removed a session another user owns: %+v", rep)
	}
	if !slices.ContainsFunc(rep.Skipped, func(s string) bool { return strings.Contains(s, "not owned by you") }) {
		t.Errorf("Skipped %q does not say why", rep.Skipped)
	}
}

// The TTL counts from the end of a session: closing it refreshes its time,
// so a long session whose last paste is old survives its end.
func TestCloseRefreshesAge(t *testing.T) {
	f := newFixture(t)
	s := f.live(old, "x\n") // Last written long ago, still running.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rep := f.clean(&Cleaner{Root: f.root.Path, TTL: time.Hour})
	if !exists(s.Dir) || len(rep.Removed) != 0 {
		t.Errorf("a session removed the moment it ended: %+v", rep)
	}
}

// One session that cannot be read does not stop the cleanup of the
// others; the report names it and why.
func TestCleanUnreadableSession(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads any directory; TestCleanUnremovableSession covers a session that fails as root")
	}
	f := newFixture(t)
	first := f.ended(old, "a\n")
	bad := f.ended(old+time.Hour, "b\n")
	last := f.ended(old+2*time.Hour, "c\n")
	if err := os.Chmod(bad.Dir, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(bad.Dir, 0o700) })
	rep := f.clean(f.cleaner())
	if exists(first.Dir) || exists(last.Dir) || !exists(bad.Dir) {
		t.Errorf("removed %v, want the readable sessions removed and the other kept", summaryIDs(rep.Removed))
	}
	if len(rep.Skipped) != 1 || !strings.HasPrefix(rep.Skipped[0], bad.ID+": ") || !strings.Contains(rep.Skipped[0], bad.Dir) ||
		!strings.Contains(rep.Skipped[0], "permission denied") {
		t.Errorf("Skipped = %q, want %s with the error naming the path", rep.Skipped, bad.ID)
	}
}

// Clean takes no lock when another cleaner holds it, fresh: it returns
// ErrCleanupBusy and changes nothing, also right at StaleCleanupLock.
func TestCleanBusy(t *testing.T) {
	for _, lockAge := range []time.Duration{0, time.Minute, StaleCleanupLock} {
		f := newFixture(t)
		f.ended(old, "x\n")
		holder := holdLock(t, f.root.Path)
		f.age(holder.Name(), lockAge)
		before := snapshot(t, f.root.Path)
		for _, all := range []bool{false, true} {
			c := f.cleaner()
			c.All = all
			rep, err := c.Clean()
			if !errors.Is(err, ErrCleanupBusy) || rep != nil {
				t.Errorf("Clean while another holds a lock %v old = %+v, %v; want ErrCleanupBusy", lockAge, rep, err)
			}
			checkSame(t, before, snapshot(t, f.root.Path))
		}
	}
}

// A lock held for more than StaleCleanupLock belongs to a stuck cleaner:
// it is broken, and when the stuck cleaner goes on it does not remove the
// new lock.
func TestCleanBreaksStaleLock(t *testing.T) {
	f := newFixture(t)
	s := f.ended(old, "x\n")
	path := filepath.Join(f.root.Path, CleanupLockName)
	stuck, err := lockCleanup(f.root.Path, f.now)
	if err != nil {
		t.Fatal(err)
	}
	f.age(path, StaleCleanupLock+time.Second)

	// A cleaner finds the stale lock while another one holds the new lock.
	newer, err := lockCleanup(f.root.Path, f.now)
	if err != nil {
		t.Fatalf("taking a stale lock: %v", err)
	}
	if err := stuck.release(); err != nil {
		t.Errorf("the stuck cleaner's release: %v", err)
	}
	if !exists(path) || !sameFile(t, newer.f, path) {
		t.Fatalf("the stuck cleaner's release removed the new cleaner's lock")
	}
	if err := newer.release(); err != nil {
		t.Fatal(err)
	}

	// And through Clean.
	stuck2 := holdLock(t, f.root.Path)
	f.age(path, StaleCleanupLock+time.Second)
	rep := f.clean(f.cleaner())
	if len(rep.Removed) != 1 || exists(s.Dir) {
		t.Errorf("Clean past a stale lock removed %v, want %s", summaryIDs(rep.Removed), s.ID)
	}
	if exists(path) {
		t.Errorf("Clean left %s", path)
	}
	stuck2.Close()
}

// A lock whose holder died (the file is there, nobody holds the flock) is
// taken over at once, however fresh, and made fresh: the next cleaner does
// not break it.
func TestCleanTakesOverDeadLock(t *testing.T) {
	for _, lockAge := range []time.Duration{0, StaleCleanupLock + time.Hour} {
		f := newFixture(t)
		s := f.ended(old, "x\n")
		path := filepath.Join(f.root.Path, CleanupLockName)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		f.age(path, lockAge)
		l, err := lockCleanup(f.root.Path, f.now)
		if err != nil {
			t.Fatalf("taking over a lock %v old: %v", lockAge, err)
		}
		if fi, err := os.Lstat(path); err != nil || time.Since(fi.ModTime()) > time.Minute {
			t.Errorf("the lock taken over was not made fresh: %v, %v", fi.ModTime(), err)
		}
		if _, err := lockCleanup(f.root.Path, f.now); !errors.Is(err, ErrCleanupBusy) {
			t.Errorf("locking again a lock taken over: %v, want ErrCleanupBusy", err)
		}
		if err := l.release(); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		f.age(path, lockAge)
		if rep := f.clean(f.cleaner()); len(rep.Removed) != 1 || exists(s.Dir) {
			t.Errorf("Clean with a dead lock %v old removed %v, want %s", lockAge, summaryIDs(rep.Removed), s.ID)
		}
		if exists(path) {
			t.Errorf("Clean left %s", path)
		}
	}
}

// The lock is removed at the end only if its name still denotes the file
// locked.
func TestCleanupLockReleaseKeepsAnotherFile(t *testing.T) {
	root := newRoot(t).Path
	path := filepath.Join(root, CleanupLockName)
	l, err := lockCleanup(root, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("another's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.release(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "another's" {
		t.Errorf("release removed or changed a lock file that was not its own")
	}
}

// A lock file that is not a regular file is an error naming it, never
// followed, never a hang.
func TestCleanRefusesALockThatIsNotAFileWithoutFollowingOrBlocking(t *testing.T) {
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, mk := range map[string]func(string) error{
		"directory":  func(p string) error { return os.Mkdir(p, 0o700) },
		"symlink":    func(p string) error { return os.Symlink(target, p) },
		"named pipe": func(p string) error { return mkfifo(t, p) },
	} {
		f := newFixture(t)
		s := f.ended(old, "x\n")
		path := filepath.Join(f.root.Path, CleanupLockName)
		if err := mk(path); err != nil {
			t.Fatal(err)
		}
		var rep *CleanReport
		var err error
		returns(t, "Clean with a "+name+" for a lock", func() { rep, err = f.cleaner().Clean() })
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Clean with a %s for a lock = %+v, %v; want an error naming %s", name, rep, err, path)
		}
		if !exists(s.Dir) || !exists(path) {
			t.Errorf("Clean with a %s for a lock changed the root", name)
		}
	}
	if fi, err := os.Lstat(target); err != nil || fi.Size() != 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("the symlink's target changed: %v, %v", fi, err)
	}
}

// Cleaners in one process exclude each other too (the flock is per open
// file description); run with -race.
func TestCleanConcurrentGoroutines(t *testing.T) {
	f := newFixture(t)
	var want []string
	for range 10 {
		want = append(want, f.ended(old, "x\n").ID)
	}
	live := f.live(old)
	kept := f.ended(fresh)
	var (
		mu      sync.Mutex
		removed []string
		ran     int
		wg      sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			rep, err := f.cleaner().Clean()
			if errors.Is(err, ErrCleanupBusy) {
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ran++
			removed = append(removed, summaryIDs(rep.Removed)...)
		})
	}
	wg.Wait()
	slices.Sort(want)
	slices.Sort(removed)
	if ran == 0 || !slices.Equal(removed, want) {
		t.Errorf("%d cleaners ran and removed %v, want each of %v once", ran, removed, want)
	}
	if got, wantLeft := dirNames(t, f.root.Path), slices.Sorted(slices.Values([]string{live.ID, kept.ID, RemovalsName})); !slices.Equal(got, wantLeft) {
		t.Errorf("root holds %v, want %v", got, wantLeft)
	}
}

// checkReport compares reports, the manifests by whether they were read.
func checkReport(t *testing.T, got, want *CleanReport) {
	t.Helper()
	norm := func(r *CleanReport) string {
		var b strings.Builder
		for _, l := range []struct {
			name string
			list []SessionSummary
		}{{"removed", r.Removed}, {"trimmed", r.Trimmed}, {"live", r.Live}} {
			for _, s := range l.list {
				fmt.Fprintf(&b, "%s %s %s %v live=%v %d bytes\n", l.name, s.ID, s.Dir, s.ModTime.UTC(), s.Live, s.Bytes)
			}
		}
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "skipped %s\n", s)
		}
		fmt.Fprintf(&b, "%d bytes\n", r.Bytes)
		return b.String()
	}
	if g, w := norm(got), norm(want); g != w {
		t.Errorf("report\n%swant\n%s", g, w)
	}
	for _, s := range append(slices.Clone(got.Removed), got.Live...) {
		if s.Manifest == nil && s.Err == nil {
			t.Errorf("session %s: neither a manifest nor why not", s.ID)
		}
	}
}

func summaryIDs(list []SessionSummary) []string {
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

// regularBytes sums the sizes of the regular files in dir.
func regularBytes(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A fileState is what a test compares to tell a file untouched.
type fileState struct {
	mode   fs.FileMode
	size   int64
	mtime  time.Time
	ino    uint64
	target string // of a symlink
}

// snapshot records the state of everything below dir (not dir itself,
// whose mtime the cleanup lock changes), without following symlinks.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	snap := make(map[string]fileState)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime(), ino: fi.Sys().(*syscall.Stat_t).Ino}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if st.target, err = os.Readlink(path); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(dir, path)
		snap[rel] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// subSnapshot returns the part of snap at or below the relative path sub.
func subSnapshot(snap map[string]fileState, sub string) map[string]fileState {
	part := make(map[string]fileState)
	for p, st := range snap {
		if p == sub || strings.HasPrefix(p, sub+"/") {
			part[p] = st
		}
	}
	return part
}

func checkSame(t *testing.T, before, after map[string]fileState) {
	t.Helper()
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Errorf("%s was removed", p)
		case a != b:
			t.Errorf("%s changed: %+v, was %+v", p, a, b)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		}
	}
}

func sameFile(t *testing.T, f *os.File, path string) bool {
	t.Helper()
	a, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// The races of taking the lock, played out step by step: the lock file
// opened, then something happens, then the flock.
func TestCleanupLockRaces(t *testing.T) {
	root := newRoot(t).Path
	path := filepath.Join(root, CleanupLockName)
	now := time.Now()

	// A cleaner finishes between the open and the flock: the flock is on a
	// file that is no one's lock any more.
	finishing, err := lockCleanup(root, now)
	if err != nil {
		t.Fatal(err)
	}
	f, created, err := openCleanupLock(path)
	if err != nil || created {
		t.Fatalf("openCleanupLock of a held lock = %v, %v", created, err)
	}
	if err := finishing.release(); err != nil {
		t.Fatal(err)
	}
	if l, err := lockOpened(f, path, created, now); !errors.Is(err, errLockMoved) {
		t.Errorf("locking a lock file released meanwhile = %v, %v; want errLockMoved", l, err)
	}

	// The name comes to denote another file between the open and the
	// flock: the lock is not taken, and the other file stays.
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if f, created, err = openCleanupLock(path); err != nil || created {
		t.Fatalf("openCleanupLock of a dead lock = %v, %v", created, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	other := holdLock(t, root)
	if l, err := lockOpened(f, path, created, now); !errors.Is(err, errLockMoved) {
		t.Errorf("locking a lock file replaced meanwhile = %v, %v; want errLockMoved", l, err)
	}
	if !sameFile(t, other, path) {
		t.Errorf("the lock file that replaced the opened one is gone")
	}
	other.Close()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}

	// A file just created is taken over (by a cleaner that took it for a
	// dead one's) before it is locked: busy, and the file is left to the
	// cleaner that holds it.
	if f, created, err = openCleanupLock(path); err != nil || !created {
		t.Fatalf("openCleanupLock of no lock = %v, %v", created, err)
	}
	taker, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer taker.Close()
	if err := unix.Flock(int(taker.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if l, err := lockOpened(f, path, created, now); !errors.Is(err, ErrCleanupBusy) {
		t.Errorf("locking a new lock file another took over = %v, %v; want ErrCleanupBusy", l, err)
	}
	if !sameFile(t, taker, path) {
		t.Errorf("the lock file another took over was removed")
	}
}

// Only: a cleaner limited to the sessions a user confirmed removes those
// and nothing else, also with All: not a session listed as live that ended
// meanwhile, not one made meanwhile, not one modified since it was listed
// (reported), and not a confirmed one that is live now. An empty Only
// removes nothing.
func TestCleanOnly(t *testing.T) {
	f := newFixture(t)
	confirmed := f.ended(old, "confirmed\n")
	endedSince := f.ended(fresh, "was live when listed\n")
	madeSince := f.ended(fresh, "made after the listing\n")
	modified := f.ended(old, "listed\n")
	liveNow := f.live(old, "started again\n")
	only := map[string]time.Time{
		confirmed.ID: f.now.Add(-old),
		modified.ID:  f.now.Add(-old - time.Minute), // Listed before it was last written.
		liveNow.ID:   f.now.Add(-old),
	}
	for _, dryRun := range []bool{true, false} {
		c := f.cleaner()
		c.All, c.DryRun, c.Only = true, dryRun, only
		rep := f.clean(c)
		if got := summaryIDs(rep.Removed); !slices.Equal(got, []string{confirmed.ID}) {
			t.Errorf("DryRun %v: Removed %v, want [%s]", dryRun, got, confirmed.ID)
		}
		if got := summaryIDs(rep.Live); !slices.Equal(got, []string{liveNow.ID}) {
			t.Errorf("DryRun %v: Live %v, want [%s]", dryRun, got, liveNow.ID)
		}
		if want := []string{modified.ID + ": changed since it was listed, so it was kept"}; !slices.Equal(rep.Skipped, want) {
			t.Errorf("DryRun %v: Skipped %q, want %q", dryRun, rep.Skipped, want)
		}
	}
	for _, s := range []*Session{endedSince, madeSince, modified, liveNow} {
		if !exists(s.Dir) {
			t.Errorf("session %s, not confirmed or not removable now, was removed", s.ID)
		}
	}
	if exists(confirmed.Dir) {
		t.Errorf("the confirmed session was kept")
	}

	c := f.cleaner()
	c.All, c.Only = true, map[string]time.Time{}
	if rep := f.clean(c); len(rep.Removed) != 0 || len(rep.Live) != 0 || len(rep.Skipped) != 0 {
		t.Errorf("empty Only: report %+v, want nothing done or reported", rep)
	}
	if !exists(endedSince.Dir) || !exists(madeSince.Dir) {
		t.Errorf("empty Only removed a session")
	}
}

// The temp file that a crash in the middle of a write of the counters left
// in the root is removed, as a session's are, once it is StaleCountersTemp
// old and the counters lock is free: not a younger one, which a write may
// still rename, nor one while the lock is held (its writer may be stopped,
// not dead). A symlink under such a name is reported, never followed; the
// counters and their lock stay.
func TestCleanCountersTemp(t *testing.T) {
	f := newFixture(t)
	write := func(name string, age time.Duration) string {
		path := filepath.Join(f.root.Path, name)
		if err := os.WriteFile(path, []byte("half a counters file"), 0o600); err != nil {
			t.Fatal(err)
		}
		f.age(path, age)
		return path
	}
	counters := write(CountersName, time.Hour)
	stale := write(tempPrefix+CountersName+"-1234", StaleCountersTemp+time.Second)
	young := write(tempPrefix+CountersName+"-5678", StaleCountersTemp)
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(f.root.Path, tempPrefix+CountersName+"-link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	wantSkipped := []string{filepath.Base(link) + ": a symlink, not followed"}

	// While a writer holds the counters lock, nothing is removed.
	unlock, err := lockCounters(f.root.Path)
	if err != nil {
		t.Fatal(err)
	}
	rep := f.clean(f.cleaner())
	unlock()
	if rep.RootTemps != 0 || !exists(stale) || !slices.Equal(rep.Skipped, wantSkipped) {
		t.Errorf("counters lock held: RootTemps %d, Skipped %q, stale temp file there %v; want 0, %q, true", rep.RootTemps, rep.Skipped, exists(stale), wantSkipped)
	}

	for _, dryRun := range []bool{true, false} {
		c := f.cleaner()
		c.DryRun = dryRun
		rep := f.clean(c)
		if rep.RootTemps != 1 || rep.Bytes != int64(len("half a counters file")) || !slices.Equal(rep.Skipped, wantSkipped) {
			t.Errorf("DryRun %v: RootTemps %d, Bytes %d, Skipped %q; want 1, %d, %q", dryRun, rep.RootTemps, rep.Bytes, rep.Skipped, len("half a counters file"), wantSkipped)
		}
		if exists(stale) == !dryRun {
			t.Errorf("DryRun %v: the stale temp file there: %v", dryRun, exists(stale))
		}
	}
	for _, path := range []string{counters, young, link, target, filepath.Join(f.root.Path, CountersLockName)} {
		if _, err := os.Lstat(path); err != nil {
			t.Errorf("%s: %v; want it kept", path, err)
		}
	}
}

// Issue 37: start-up cleanup took a live session for a dead one once its
// .lock was deleted, which the agent it runs can do, and removed its
// pastes. The session's lock is on its directory too, which nothing in it
// can take away: the session and its pastes survive, All or not.
func TestCleanKeepsLiveSessionWithoutLockFile(t *testing.T) {
	f := newFixture(t)
	s := f.live(old, "the user's paste\n")
	if err := os.Remove(filepath.Join(s.Dir, lockName)); err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-old) // The removal made it look fresh: it is as old as before.
	if err := os.Chtimes(s.Dir, then, then); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, f.root.Path)
	if live, err := IsLive(s.Dir); !live || err != nil {
		t.Fatalf("IsLive without .lock = %v, %v; want true", live, err)
	}
	for _, all := range []bool{false, true} {
		c := f.cleaner()
		c.All = all
		rep := f.clean(c)
		if got := summaryIDs(rep.Live); !slices.Contains(got, s.ID) {
			t.Errorf("All %v: Live = %v, want the session in it", all, got)
		}
		if !exists(s.Dir) {
			t.Fatalf("All %v: the live session was removed", all)
		}
		checkSame(t, subSnapshot(before, s.ID), subSnapshot(snapshot(t, f.root.Path), s.ID))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if live, err := IsLive(s.Dir); live || err != nil {
		t.Errorf("IsLive after Close = %v, %v; want false", live, err)
	}
}
