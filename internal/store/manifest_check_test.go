package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue 10, point 4: the manifest is data that anyone who can write in the
// root can forge, and ReadManifest refuses what Record would not have
// written. Before the fix a manifest path of /etc/passwd made
// `pbwrap show last` print it, and forged sizes printed as
// -9223372036854755814B.
func TestReadManifestRefusesForgedValues(t *testing.T) {
	s := newSession(t, newRoot(t))
	good := savedRecord(s, 1, "text\n")
	other := newSession(t, newRoot(t))
	for _, tc := range []struct {
		name   string
		forge  func(m *Manifest)
		reason string
	}{
		{"path outside the root", func(m *Manifest) { m.Pastes[0].Path = "/etc/passwd" }, `path "/etc/passwd" is not this session's paste-1.txt`},
		{"path of another session", func(m *Manifest) { m.Pastes[0].Path = filepath.Join(other.Dir, "paste-1.txt") }, "is not this session's paste-1.txt"},
		{"path of another paste", func(m *Manifest) { m.Pastes[0].Path = filepath.Join(s.Dir, "paste-2.txt") }, "is not this session's paste-1.txt"},
		{"path through ..", func(m *Manifest) { m.Pastes[0].Path = filepath.Join(s.Dir, "..", s.ID, "paste-1.txt") + "/." }, "is not this session's"},
		{"path with escape sequences", func(m *Manifest) { m.Pastes[0].Path += "\x1b]0;title\a" }, `paste-1.txt\x1b]0;title\a" is not`},
		{"relative path", func(m *Manifest) { m.Pastes[0].Path = "paste-1.txt" }, "is not this session's"},
		{"saved without a path", func(m *Manifest) { m.Pastes[0].Path = "" }, "is not this session's"},
		{"saved paste 0", func(m *Manifest) { m.Pastes[0].N = 0 }, "saved paste number 0"},
		{"negative paste number", func(m *Manifest) { m.Pastes[0].N = -1 }, "saved paste number -1"},
		{"negative size", func(m *Manifest) { m.Pastes[0].Bytes = -9223372036854755814 }, "negative size"},
		{"negative lines", func(m *Manifest) { m.Pastes[0].Lines = -3 }, "negative size"},
		{"more lines than bytes", func(m *Manifest) { m.Pastes[0].Lines = 100 }, "100 lines in 5 bytes"},
		{"bad sha256", func(m *Manifest) { m.Pastes[0].SHA256 = "\x1b[2J" }, `sha256 "\x1b[2J" is not`},
		{"saved without sha256", func(m *Manifest) { m.Pastes[0].SHA256 = "" }, "without its sha256"},
		{"unknown outcome", func(m *Manifest) { m.Pastes[0].Outcome = "stolen" }, `outcome "stolen"`},
		{"inline with a path", func(m *Manifest) { m.Pastes[0].Outcome = OutcomeInline }, "only a saved paste has them"},
		{"another session's id", func(m *Manifest) { m.Session = other.ID }, "not the directory's"},
		{"negative pid", func(m *Manifest) { m.PID = -1 }, "pid -1"},
		{"another format", func(m *Manifest) { m.Format = 2 }, "format 2, want 1"},
		{"too many pastes", func(m *Manifest) {
			m.Pastes = make([]PasteRecord, maxManifestPastes+1)
			for i := range m.Pastes {
				m.Pastes[i] = PasteRecord{Outcome: OutcomeInline}
			}
		}, "more than the 10080 a manifest records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Manifest{Format: ManifestFormat, Session: s.ID, PID: 1, Argv0: "claude", Pastes: []PasteRecord{good}}
			writeManifestJSON(t, s.Dir, &m) // Accepted as written...
			if _, err := ReadManifest(s.Dir); err != nil {
				t.Fatalf("the good manifest: %v", err)
			}
			tc.forge(&m) // ...but not forged.
			writeManifestJSON(t, s.Dir, &m)
			got, err := ReadManifest(s.Dir)
			if err == nil {
				t.Fatalf("ReadManifest of a manifest with %s = %+v, want an error", tc.name, got)
			}
			if !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), filepath.Join(s.Dir, manifestName)) {
				t.Errorf("error %q, want it to name the manifest and say %q", err, tc.reason)
			}
			if strings.ContainsAny(err.Error(), "\x1b\a") {
				t.Errorf("error %q holds a control character from the manifest", err)
			}
			// Record refuses to write a forged record.
			if len(m.Pastes) == 1 && m.Pastes[0] != good {
				if err := s.Record(m.Pastes[0]); err == nil {
					t.Errorf("Record of a record with %s succeeded", tc.name)
				}
			}
		})
	}
}

func writeManifestJSON(t *testing.T, dir string, m *Manifest) {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifestName), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A manifest larger than any Record writes is refused without being read:
// before the fix, listing three 63 MB manifests took 477 MB of memory. A
// named pipe is refused without blocking.
func TestReadManifestBounded(t *testing.T) {
	s := newSession(t, newRoot(t))
	path := filepath.Join(s.Dir, manifestName)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 4 GiB that take no disk.
	if _, err := f.WriteString(`{"format": 1, "session": "` + s.ID + `", "pastes": [`); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err = ReadManifest(s.Dir)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "larger than the") {
		t.Errorf("ReadManifest of a 4 GiB manifest = %v, want refused as too large", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Errorf("refusing a 4 GiB manifest allocated %d bytes, want at most 64 KiB", alloc)
	}
	if took > time.Second {
		t.Errorf("refusing a 4 GiB manifest took %v", took)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(t, path); err != nil {
		t.Fatal(err)
	}
	returns(t, "ReadManifest of a named pipe", func() { _, err = ReadManifest(s.Dir) })
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadManifest of a named pipe = %v, want refused", err)
	}
}

// The limits are derived from what Record writes: a record as capture
// makes it, under a root of some length, with a long reason, takes less
// than maxRecordBytes, so maxManifestPastes of them fit in
// maxManifestBytes.
func TestRecordSize(t *testing.T) {
	root, err := OpenRoot(filepath.Join(realDir(t), strings.Repeat("r", 60)))
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, root)
	text := strings.Repeat("x", 100)
	saved := savedRecord(s, 9999, text)
	saved.Time = time.Now()
	saved.Bracketed = true
	fallback := PasteRecord{Bytes: 1 << 40, Time: time.Now(), Outcome: OutcomeFallback,
		Reason: "store: create temp: open " + filepath.Join(s.Dir, ".tmp-paste-1234567890") + ": no space left on device"}
	for _, r := range []PasteRecord{saved, fallback} {
		data, err := json.MarshalIndent(Manifest{Pastes: []PasteRecord{r}}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > maxRecordBytes {
			t.Errorf("a %s record under a root of %d bytes takes %d bytes, more than maxRecordBytes %d", r.Outcome, len(root.Path), len(data), maxRecordBytes)
		}
		t.Logf("a %s record under a root of %d bytes: %d bytes", r.Outcome, len(root.Path), len(data))
	}
	if maxManifestBytes >= 16<<20 {
		t.Errorf("maxManifestBytes %d, want far below the 64 MiB it was", maxManifestBytes)
	}
}

// Record keeps within the limits that ReadManifest enforces: a manifest
// it wrote is always read back.
func TestRecordLimits(t *testing.T) {
	s := newSession(t, newRoot(t))
	s.manifest.Pastes = make([]PasteRecord, maxManifestPastes-1)
	for i := range s.manifest.Pastes {
		s.manifest.Pastes[i] = PasteRecord{Outcome: OutcomeInline}
	}
	if err := s.Record(PasteRecord{Outcome: OutcomeInline}); err != nil {
		t.Fatalf("Record of paste %d: %v", maxManifestPastes, err)
	}
	if _, err := ReadManifest(s.Dir); err != nil {
		t.Errorf("ReadManifest of a full manifest: %v", err)
	}
	if err := s.Record(PasteRecord{Outcome: OutcomeInline}); err == nil || !strings.Contains(err.Error(), "the most it records") {
		t.Errorf("Record past maxManifestPastes = %v, want refused", err)
	}
	s.manifest.Pastes = s.manifest.Pastes[:1]
	huge := PasteRecord{Outcome: OutcomeFallback, Reason: strings.Repeat("x", maxManifestBytes)}
	if err := s.Record(huge); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("Record past maxManifestBytes = %v, want refused", err)
	}
	if m, err := ReadManifest(s.Dir); err != nil || len(m.Pastes) != maxManifestPastes {
		t.Errorf("after refused Records: ReadManifest = %v; want the full manifest as it was", err)
	}
}
