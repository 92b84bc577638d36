package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"
)

var testMeta = Meta{
	PID:     4242,
	Argv0:   "claude",
	Start:   time.Date(2025, 11, 29, 20, 33, 0, 123456789, time.UTC),
	Version: "v0.0.0-test",
}

func TestNewSessionID(t *testing.T) {
	id := mustSessionID(t)
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 || u.String() != id {
		t.Errorf("NewSessionID() = %q (parsed %v, %v), want a canonical UUIDv7", id, u, err)
	}
}

func TestNewSession(t *testing.T) {
	r := newRoot(t)
	id := mustSessionID(t)
	s, err := r.NewSession(id, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	if want := filepath.Join(r.Path, id); s.ID != id || s.Dir != want {
		t.Errorf("session ID, Dir = %q, %q; want %q, %q", s.ID, s.Dir, id, want)
	}
	if got := permOf(t, s.Dir); got != 0o700 {
		t.Errorf("session directory mode %#o, want 0700", got)
	}
	lock := filepath.Join(s.Dir, lockName)
	if got := permOf(t, lock); got != 0o600 {
		t.Errorf("lock file mode %#o, want 0600", got)
	}
	if held := tryLock(t, lock); !held {
		t.Errorf("another descriptor could lock %s: the session does not hold it", lock)
	}
	if live, err := IsLive(s.Dir); !live || err != nil {
		t.Errorf("IsLive of a running session = %v, %v; want true", live, err)
	}

	manifest := filepath.Join(s.Dir, manifestName)
	if got := permOf(t, manifest); got != 0o600 {
		t.Errorf("manifest mode %#o, want 0600", got)
	}
	m, err := ReadManifest(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{Format: ManifestFormat, Session: id, PID: testMeta.PID, Argv0: testMeta.Argv0,
		Start: testMeta.Start, Version: testMeta.Version, Pastes: []PasteRecord{}}
	if !reflect.DeepEqual(m, &want) {
		t.Errorf("initial manifest\n%+v\nwant\n%+v", *m, want)
	}
	checkManifestKeys(t, manifest)
	checkNoTemps(t, s.Dir)
}

// The manifest carries argv[0] and nothing else of the command line, so
// no argument (a token, a prompt) is ever written down.
func checkManifestKeys(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	want := []string{"argv0", "format", "pastes", "pid", "session", "start", "version"}
	if got := slices.Sorted(maps.Keys(top)); !slices.Equal(got, want) {
		t.Errorf("manifest keys %q, want exactly %q", got, want)
	}
}

func TestNewSessionBadID(t *testing.T) {
	r := newRoot(t)
	good := mustSessionID(t)
	for _, id := range []string{"", "..", "../x", "x/y", strings.ToUpper(good), "{" + good + "}", "urn:uuid:" + good} {
		if s, err := r.NewSession(id, testMeta); err == nil {
			s.Close()
			t.Errorf("NewSession(%q) succeeded, want an error", id)
		}
	}
	checkEmpty(t, r.Path)
}

// A session directory is never reused, and the failed attempt leaves the
// existing session as it was.
func TestNewSessionExists(t *testing.T) {
	r := newRoot(t)
	s := newSession(t, r)
	if s2, err := r.NewSession(s.ID, testMeta); err == nil {
		s2.Close()
		t.Fatalf("NewSession(%q) twice succeeded, want an error", s.ID)
	} else if !strings.Contains(err.Error(), s.Dir) {
		t.Errorf("error %q does not name %s", err, s.Dir)
	}
	if _, err := ReadManifest(s.Dir); err != nil {
		t.Errorf("the existing session lost its manifest: %v", err)
	}
	if live, _ := IsLive(s.Dir); !live {
		t.Errorf("the existing session is no longer live")
	}
}

func TestNewSessionRootGone(t *testing.T) {
	r := newRoot(t)
	if err := os.Remove(r.Path); err != nil {
		t.Fatal(err)
	}
	id := mustSessionID(t)
	if s, err := r.NewSession(id, testMeta); err == nil {
		s.Close()
		t.Fatalf("NewSession in a removed root succeeded")
	} else if !strings.Contains(err.Error(), r.Path) {
		t.Errorf("error %q does not name the root %s", err, r.Path)
	}
}

func TestCloseReleasesLock(t *testing.T) {
	r := newRoot(t)
	s := newSession(t, r)
	n, path, _ := commit(t, s, "kept\n")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if live, err := IsLive(s.Dir); live || err != nil {
		t.Errorf("IsLive after Close = %v, %v; want false", live, err)
	}
	if held := tryLock(t, filepath.Join(s.Dir, lockName)); held {
		t.Errorf("the lock is still held after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if got := readFile(t, path); got != "kept\n" {
		t.Errorf("paste-%d.txt after Close = %q, want it kept", n, got)
	}
	if _, err := ReadManifest(s.Dir); err != nil {
		t.Errorf("manifest after Close: %v", err)
	}

	// Without its lock a session could be cleaned up under our feet, so it
	// writes nothing more.
	if tmp, err := s.CreateTemp(); err == nil {
		tmp.Discard()
		t.Errorf("CreateTemp after Close succeeded")
	}
	if err := s.Record(PasteRecord{Outcome: OutcomeInline}); err == nil {
		t.Errorf("Record after Close succeeded")
	}
}

func TestIsLiveWithoutLock(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Join(dir, "missing")} {
		if live, err := IsLive(d); live || err != nil {
			t.Errorf("IsLive(%s) without a .lock = %v, %v; want false, nil", d, live, err)
		}
	}
}

// Probes take a shared lock, so two cleaners probing at once do not take
// each other for a live session.
func TestIsLiveConcurrentProbe(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, lockName)
	f, err := os.OpenFile(lock, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	if live, err := IsLive(dir); live || err != nil {
		t.Errorf("IsLive while another probe holds a shared lock = %v, %v; want false", live, err)
	}
}

func TestCreateTemp(t *testing.T) {
	s := newSession(t, newRoot(t))
	tmp, err := s.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Discard()
	if dir, name := filepath.Split(tmp.Path()); filepath.Clean(dir) != s.Dir || !strings.HasPrefix(name, tempPrefix) {
		t.Errorf("temp path %s, want %s/%s*", tmp.Path(), s.Dir, tempPrefix)
	}
	if got := permOf(t, tmp.Path()); got != 0o600 {
		t.Errorf("temp file mode %#o, want 0600", got)
	}
}

func TestCommitPaste(t *testing.T) {
	s := newSession(t, newRoot(t))
	steps := []struct {
		text   string
		n      int
		reused bool
	}{
		{"first paste\n", 1, false},
		{"second paste\n", 2, false},
		{"first paste\n", 1, true},
		{"third\r\n", 3, false},
		{"second paste\n", 2, true},
	}
	for _, st := range steps {
		n, path, reused := commit(t, s, st.text)
		want := filepath.Join(s.Dir, fmt.Sprintf("paste-%d.txt", st.n))
		if n != st.n || path != want || reused != st.reused {
			t.Errorf("CommitPaste(%q) = %d, %s, reused %v; want %d, %s, reused %v", st.text, n, path, reused, st.n, want, st.reused)
		}
		if got := readFile(t, path); got != st.text {
			t.Errorf("%s holds %q, want %q", path, got, st.text)
		}
		if got := permOf(t, path); got != 0o600 {
			t.Errorf("%s mode %#o, want 0600", path, got)
		}
		checkNoTemps(t, s.Dir)
	}
}

// A paste-N.txt made behind the session's back is never overwritten: the
// paste takes the next free number.
func TestCommitPasteNeverOverwrites(t *testing.T) {
	s := newSession(t, newRoot(t))
	theirs := map[int]string{1: "theirs 1\n", 3: "theirs 3\n", 4: "theirs 4\n"}
	for n, text := range theirs {
		if err := os.WriteFile(filepath.Join(s.Dir, pasteName(n)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []struct {
		text string
		n    int
	}{{"mine a\n", 2}, {"mine b\n", 5}} {
		n, path, _ := commit(t, s, want.text)
		if n != want.n {
			t.Errorf("CommitPaste(%q) = paste-%d.txt, want paste-%d.txt", want.text, n, want.n)
		}
		if got := readFile(t, path); got != want.text {
			t.Errorf("%s holds %q, want %q", path, got, want.text)
		}
	}
	for n, text := range theirs {
		if got := readFile(t, filepath.Join(s.Dir, pasteName(n))); got != text {
			t.Errorf("paste-%d.txt made behind the session's back now holds %q, want %q", n, got, text)
		}
	}
	checkNoTemps(t, s.Dir)
}

// Names taken behind the session's back (the agent can write in the
// session directory) are skipped, however many: a thousand taken names, or
// names taken far ahead, do not make the paste go inline (issue 28). Only a
// name at the highest number stops it; then CommitPaste fails and keeps the
// temp file, so the caller can replay the paste inline: nothing is lost.
func TestCommitPasteSkipsTakenNames(t *testing.T) {
	s := newSession(t, newRoot(t))
	take := func(n int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(s.Dir, pasteName(n)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for n := 1; n <= 1000; n++ {
		take(n)
	}
	if n, _, _ := commit(t, s, "after a thousand\n"); n != 1001 {
		t.Errorf("paste after paste-1..1000.txt were taken got n=%d, want 1001", n)
	}
	take(1002)
	take(1003)
	take(50000)
	if n, _, _ := commit(t, s, "far ahead\n"); n != 1004 {
		t.Errorf("paste after paste-1002,1003.txt were taken got n=%d, want 1004", n)
	}
	for n := 1005; n < 1005+pasteTries; n++ {
		take(n)
	}
	if n, _, _ := commit(t, s, "jumped\n"); n != 50001 {
		t.Errorf("paste after %d names in a row were taken got n=%d, want 50001, after the highest", pasteTries, n)
	}

	take(maxPasteN)
	for n := 50002; n < 50002+pasteTries; n++ {
		take(n)
	}
	const text = "must not be lost\n"
	tmp := writeTemp(t, s, text)
	n, path, _, err := s.CommitPaste(tmp, sum(text))
	if err == nil {
		t.Fatalf("CommitPaste with %s taken = %d, %s; want an error", pasteName(maxPasteN), n, path)
	}
	if !strings.Contains(err.Error(), tmp.Path()) {
		t.Errorf("error %q does not name the temp file", err)
	}
	if got := replay(t, tmp); got != text {
		t.Errorf("replay after a failed commit = %q, want %q", got, text)
	}
	if err := tmp.Discard(); err != nil {
		t.Fatal(err)
	}
	checkNoTemps(t, s.Dir)
}

// A reused paste must still be there; if it was removed, the text is
// saved again.
func TestCommitPasteReusedFileGone(t *testing.T) {
	s := newSession(t, newRoot(t))
	_, path, _ := commit(t, s, "again\n")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	n, path, reused := commit(t, s, "again\n")
	if n != 2 || reused {
		t.Errorf("CommitPaste after paste-1.txt was removed = %d, reused %v; want 2, false", n, reused)
	}
	if got := readFile(t, path); got != "again\n" {
		t.Errorf("%s holds %q", path, got)
	}
}

func TestCommitPasteBadArguments(t *testing.T) {
	r := newRoot(t)
	s := newSession(t, r)
	other := newSession(t, r)
	const text = "text\n"
	tmp := writeTemp(t, s, text)
	defer tmp.Discard()
	for _, sha := range []string{"", "abc", strings.ToUpper(sum(text)), sum(text)[1:] + "g"} {
		if _, _, _, err := s.CommitPaste(tmp, sha); err == nil {
			t.Errorf("CommitPaste with sha256 %q succeeded", sha)
		}
	}
	if _, _, _, err := other.CommitPaste(tmp, sum(text)); err == nil {
		t.Errorf("CommitPaste of another session's temp succeeded")
	}
	if got := replay(t, tmp); got != text {
		t.Errorf("temp after refused commits holds %q, want %q", got, text)
	}
	if _, _, _, err := s.CommitPaste(tmp, sum(text)); err != nil {
		t.Errorf("CommitPaste after refused attempts: %v", err)
	}
	if _, _, _, err := s.CommitPaste(tmp, sum(text)); err == nil {
		t.Errorf("second CommitPaste of the same temp succeeded")
	}
}

func TestTempOpen(t *testing.T) {
	s := newSession(t, newRoot(t))
	tmp := writeTemp(t, s, "abc")
	r1, err := tmp.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	if _, err := tmp.Write([]byte("def")); err != nil {
		t.Fatal(err)
	}
	if got := replay(t, tmp); got != "abcdef" {
		t.Errorf("Open after writing abc, def reads %q, want %q", got, "abcdef")
	}
	if err := tmp.Discard(); err != nil {
		t.Fatal(err)
	}
	// A reader opened before Discard still reads what was written then.
	if got, err := io.ReadAll(r1); string(got) != "abc" || err != nil {
		t.Errorf("Open after writing abc, read after Discard = %q, %v; want %q", got, err, "abc")
	}
	if r, err := tmp.Open(); err == nil {
		r.Close()
		t.Errorf("Open after Discard succeeded")
	}
}

func TestTempOpenBinary(t *testing.T) {
	s := newSession(t, newRoot(t))
	var want []byte
	for i := range 1 << 17 {
		want = append(want, byte(i*7))
	}
	tmp, err := s.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Discard()
	for p := want; len(p) > 0; p = p[min(len(p), 4093):] {
		if _, err := tmp.Write(p[:min(len(p), 4093)]); err != nil {
			t.Fatal(err)
		}
	}
	if got := replay(t, tmp); got != string(want) {
		t.Errorf("replay of %d bytes differs (got %d bytes)", len(want), len(got))
	}
}

func TestDiscard(t *testing.T) {
	s := newSession(t, newRoot(t))
	tmp := writeTemp(t, s, "gone")
	for i := range 2 {
		if err := tmp.Discard(); err != nil {
			t.Errorf("Discard #%d: %v", i+1, err)
		}
	}
	if _, err := os.Lstat(tmp.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp file after Discard: %v, want it gone", err)
	}
	if _, err := tmp.Write([]byte("x")); err == nil {
		t.Errorf("Write after Discard succeeded")
	}

	// After a commit, Discard does nothing.
	tmp = writeTemp(t, s, "kept")
	_, path, _, err := s.CommitPaste(tmp, sum("kept"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tmp.Discard(); err != nil {
		t.Errorf("Discard after CommitPaste: %v", err)
	}
	if got := readFile(t, path); got != "kept" {
		t.Errorf("%s after Discard of its temp = %q, want %q", path, got, "kept")
	}
	checkNoTemps(t, s.Dir)
}

// The Session's methods are safe for concurrent use: run with -race.
func TestSessionConcurrent(t *testing.T) {
	s := newSession(t, newRoot(t))
	const workers = 8
	var wg sync.WaitGroup
	got := make([]int, workers)
	for i := range workers {
		wg.Go(func() {
			text := fmt.Sprintf("worker %d\n", i)
			tmp, err := s.CreateTemp()
			if err != nil {
				t.Error(err)
				return
			}
			defer tmp.Discard()
			if _, err := io.WriteString(tmp, text); err != nil {
				t.Error(err)
				return
			}
			n, path, _, err := s.CommitPaste(tmp, sum(text))
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = n
			if err := s.Record(PasteRecord{N: n, Path: path, SHA256: sum(text), Outcome: OutcomeSaved}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	seen := make(map[int]bool)
	for _, n := range got {
		if n < 1 || n > workers || seen[n] {
			t.Errorf("paste numbers %v, want each of 1..%d once", got, workers)
			break
		}
		seen[n] = true
	}
	m, err := ReadManifest(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pastes) != workers {
		t.Errorf("manifest has %d records, want %d", len(m.Pastes), workers)
	}
	checkNoTemps(t, s.Dir)
}

func newRoot(t *testing.T) *Root {
	t.Helper()
	r, err := OpenRoot(filepath.Join(realDir(t), "root"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newSession(t *testing.T, r *Root) *Session {
	t.Helper()
	s, err := r.NewSession(mustSessionID(t), testMeta)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustSessionID(t *testing.T) string {
	t.Helper()
	id, err := NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func sum(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

func writeTemp(t *testing.T, s *Session, text string) *Temp {
	t.Helper()
	tmp, err := s.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(tmp, text); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// commit saves text as a paste, as capture does.
func commit(t *testing.T, s *Session, text string) (n int, path string, reused bool) {
	t.Helper()
	tmp := writeTemp(t, s, text)
	var err error
	returns(t, "CommitPaste", func() {
		defer tmp.Discard() // Here: it waits for CommitPaste, which may be what blocked.
		n, path, reused, err = s.CommitPaste(tmp, sum(text))
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, path, reused
}

func replay(t *testing.T, tmp *Temp) string {
	t.Helper()
	r, err := tmp.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tryLock reports whether path is locked elsewhere: it opens the file
// again, a new open file description, and tries an exclusive flock.
func tryLock(t *testing.T, path string) (held bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	switch err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); {
	case errors.Is(err, unix.EWOULDBLOCK):
		return true
	case err != nil:
		t.Fatal(err)
	}
	return false
}

func checkNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("%s left in %s", e.Name(), dir)
		}
	}
}

func checkEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left in %s", e.Name(), dir)
	}
}

// A run that saved nothing leaves nothing: End removes a session that
// recorded no paste and holds only its lock and manifest, and the root
// stays.
func TestEndRemovesEmptySession(t *testing.T) {
	r := newRoot(t)
	s := newSession(t, r)
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	if exists(s.Dir) {
		t.Errorf("End left %s: %q", s.Dir, dirNames(t, s.Dir))
	}
	checkEmpty(t, r.Path)
	if got := permOf(t, r.Path); got != 0o700 {
		t.Errorf("root mode %#o after End, want 0700", got)
	}
	if err := s.Record(PasteRecord{Outcome: OutcomeInline}); err == nil {
		t.Errorf("Record after End succeeded")
	}
}

// A session that recorded a paste is kept as Close keeps it, whatever the
// outcome, also one delivered inline that saved no file.
func TestEndKeepsRecordedSession(t *testing.T) {
	for _, outcome := range []string{OutcomeSaved, OutcomeInline, OutcomeFallback} {
		t.Run(outcome, func(t *testing.T) {
			s := newSession(t, newRoot(t))
			rec := PasteRecord{Outcome: outcome}
			if outcome == OutcomeSaved {
				rec.N, rec.Path, _ = commit(t, s, "saved\n")
				rec.SHA256 = sum("saved\n")
			}
			if err := s.Record(rec); err != nil {
				t.Fatal(err)
			}
			if err := s.End(); err != nil {
				t.Fatal(err)
			}
			checkEnded(t, s, 1)
		})
	}
}

// Anything but the lock and the manifest keeps the whole session, as it
// is: pbwrap's own files (a paste saved but not recorded, a temp file, a
// debug log) and anything else.
func TestEndKeepsSessionHoldingMore(t *testing.T) {
	file := func(name string) func(*testing.T, *Session) {
		return func(t *testing.T, s *Session) {
			if err := os.WriteFile(filepath.Join(s.Dir, name), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		add  func(*testing.T, *Session)
	}{
		{"debug.log", file(debugLogName)},
		{"stray file", file("notes.txt")},
		{"temp file", file(tempPrefix + "paste-123")},
		{"paste not recorded", func(t *testing.T, s *Session) { commit(t, s, "x\n") }},
		{"temp being written", func(t *testing.T, s *Session) { writeTemp(t, s, "half a paste") }},
		{"directory", func(t *testing.T, s *Session) {
			if err := os.Mkdir(filepath.Join(s.Dir, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink", func(t *testing.T, s *Session) {
			if err := os.Symlink("/etc/hostname", filepath.Join(s.Dir, "link")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, newRoot(t))
			tc.add(t, s)
			before := snapshot(t, s.Dir)
			if err := s.End(); err != nil {
				t.Fatal(err)
			}
			checkEnded(t, s, 0)
			after := snapshot(t, s.Dir)
			for name := range before {
				if _, ok := after[name]; !ok {
					t.Errorf("End removed %s from a session it kept", name)
				}
			}
		})
	}
}

// The manifest or the lock replaced by a symlink keeps the session, and
// what the symlink points to.
func TestEndKeepsSymlinkedStartFile(t *testing.T) {
	for _, name := range []string{manifestName, lockName} {
		t.Run(name, func(t *testing.T) {
			s := newSession(t, newRoot(t))
			target := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(s.Dir, name)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			if err := s.End(); err != nil {
				t.Fatal(err)
			}
			if !exists(path) || readFile(t, target) != "keep me" {
				t.Errorf("End removed %s, a symlink, or its target", path)
			}
		})
	}
}

func TestEndTwice(t *testing.T) {
	r := newRoot(t)
	kept := newSession(t, r)
	if err := kept.Record(PasteRecord{Outcome: OutcomeInline}); err != nil {
		t.Fatal(err)
	}
	empty := newSession(t, r)
	for _, s := range []*Session{kept, empty} {
		for i := range 2 {
			if err := s.End(); err != nil {
				t.Errorf("End #%d: %v", i+1, err)
			}
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close after End: %v", err)
		}
	}
	checkEnded(t, kept, 1)
	if exists(empty.Dir) {
		t.Errorf("the empty session is still there after End twice")
	}
}

// End after Close does nothing: the session, closed, is kept as Close
// keeps it, even when it saved nothing.
func TestEndAfterClose(t *testing.T) {
	s := newSession(t, newRoot(t))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s.Dir)
	if err := s.End(); err != nil {
		t.Fatalf("End after Close: %v", err)
	}
	checkSame(t, before, snapshot(t, s.Dir))
	checkEnded(t, s, 0)
}

// Sessions ending while others list and clean the root: End, listing and
// cleaning all succeed, whoever removes what, and nothing is left.
func TestEndWhileListingAndCleaning(t *testing.T) {
	r := newRoot(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for _, look := range []func() error{
		func() error { _, err := ListSessions(r.Path); return err },
		func() error {
			_, err := (&Cleaner{Root: r.Path, All: true}).Clean()
			if errors.Is(err, ErrCleanupBusy) {
				return nil
			}
			return err
		},
	} {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := look(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 50 {
		if err := newSession(t, r).End(); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	// A session the cleaner removed before End could is in its record.
	if err := os.Remove(filepath.Join(r.Path, RemovalsName)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	checkEmpty(t, r.Path)
}

// checkEnded checks that s ended and was kept: its directory is there
// with its manifest, holding records pastes, and its lock is free.
func checkEnded(t *testing.T, s *Session, records int) {
	t.Helper()
	m, err := ReadManifest(s.Dir)
	if err != nil {
		t.Fatalf("session kept without its manifest: %v", err)
	}
	if len(m.Pastes) != records {
		t.Errorf("manifest has %d records, want %d", len(m.Pastes), records)
	}
	if live, err := IsLive(s.Dir); live || err != nil {
		t.Errorf("IsLive after End = %v, %v; want false", live, err)
	}
}
