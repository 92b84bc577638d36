package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRecord(t *testing.T) {
	s := newSession(t, newRoot(t))
	const text = "SECRET-PASTE-TEXT\nline 2\n"
	n, path, _ := commit(t, s, text)
	recs := []PasteRecord{
		{
			N: n, Path: path, Bytes: int64(len(text)), Lines: 2, SHA256: sum(text),
			Time: time.Date(2025, 11, 29, 21, 0, 0, 5, time.UTC), Bracketed: true,
			Reference: "[paste saved: " + path + "]", Outcome: OutcomeSaved,
		},
		{
			Bytes: 9000, Lines: 1, SHA256: sum("x"), Time: time.Date(2025, 11, 29, 21, 0, 1, 0, time.UTC),
			Outcome: OutcomeFallback, Reason: "store: commit paste: link: no space left on device",
		},
	}
	manifest := filepath.Join(s.Dir, manifestName)
	for i, rec := range recs {
		before := inode(t, manifest)
		if err := s.Record(rec); err != nil {
			t.Fatal(err)
		}
		if inode(t, manifest) == before {
			t.Errorf("Record #%d rewrote manifest.json in place, want it replaced by rename", i+1)
		}
		if got := permOf(t, manifest); got != 0o600 {
			t.Errorf("manifest mode after Record #%d: %#o, want 0600", i+1, got)
		}
		checkNoTemps(t, s.Dir)
	}

	m, err := ReadManifest(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	want := &Manifest{Format: ManifestFormat, Session: s.ID, PID: testMeta.PID, Argv0: testMeta.Argv0,
		Start: testMeta.Start, Version: testMeta.Version, Pastes: recs}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("ReadManifest after two Records\n%+v\nwant\n%+v", *m, *want)
	}
	if data := readFile(t, manifest); strings.Contains(data, "SECRET-PASTE-TEXT") {
		t.Errorf("the manifest contains the paste's text:\n%s", data)
	}
}

// A Record that cannot be written leaves the manifest, on disk and in
// memory, as it was.
func TestRecordFailure(t *testing.T) {
	s := newSession(t, newRoot(t))
	if err := s.Record(savedRecord(s, 1, "paste 1\n")); err != nil {
		t.Fatal(err)
	}
	away := s.Dir + ".away"
	if err := os.Rename(s.Dir, away); err != nil {
		t.Fatal(err)
	}
	err := s.Record(savedRecord(s, 2, "paste 2\n"))
	if err == nil || !strings.Contains(err.Error(), s.Dir) {
		t.Errorf("Record into a missing directory = %v, want an error naming %s", err, s.Dir)
	}
	if err := os.Rename(away, s.Dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(savedRecord(s, 3, "paste 3\n")); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []int
	for _, p := range m.Pastes {
		ns = append(ns, p.N)
	}
	if !reflect.DeepEqual(ns, []int{1, 3}) {
		t.Errorf("records after a failed Record: n = %v, want [1 3]", ns)
	}
}

func TestReadManifestErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, manifestName)
	if _, err := ReadManifest(dir); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadManifest without a manifest = %v, want ErrNotExist naming %s", err, path)
	}
	for _, data := range []string{
		``,
		`not json`,
		`{"format": 2, "session": "x", "pastes": []}`,
		`{"session": "x", "pastes": []}`,
		`{"format": 1, "pastes": "x"}`,
	} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if m, err := ReadManifest(dir); err == nil {
			t.Errorf("ReadManifest of %q = %+v, want an error", data, m)
		} else if !strings.Contains(err.Error(), path) {
			t.Errorf("ReadManifest of %q: %q does not name %s", data, err, path)
		}
	}

	// A manifest that is a symlink is not followed.
	real := filepath.Join(t.TempDir(), "real.json")
	if err := os.WriteFile(real, []byte(`{"format": 1, "pastes": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadManifest(dir); err == nil {
		t.Errorf("ReadManifest through a symlink = %+v, want an error", m)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(fi.Sys().(*syscall.Stat_t).Ino)
}
