package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A record says when its paste came as a burst, without markers (issue
// 12); a record of a bracketed paste is written as before.
func TestRecordBurst(t *testing.T) {
	s := newSession(t, newRoot(t))
	burst := savedRecord(s, 1, "one\ntwo\n")
	burst.Burst = true
	if err := s.Record(burst); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(PasteRecord{Bytes: 3, Lines: 1, Outcome: OutcomeInline}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pastes) != 2 || !m.Pastes[0].Burst || m.Pastes[1].Burst {
		t.Errorf("read back %+v, want the first a burst and the second not", m.Pastes)
	}
	data := readFile(t, filepath.Join(s.Dir, manifestName))
	if n := strings.Count(data, `"burst"`); n != 1 {
		t.Errorf("the manifest says burst %d times, want once (only for the burst):\n%s", n, data)
	}
}

// A manifest written before records had the burst field reads as it did,
// its pastes not bursts.
func TestReadManifestWithoutBurst(t *testing.T) {
	s := newSession(t, newRoot(t))
	path := filepath.Join(s.Dir, "paste-1.txt")
	old := `{
  "format": 1,
  "session": "` + s.ID + `",
  "pid": 4242,
  "argv0": "claude",
  "start": "2026-01-02T03:04:05Z",
  "version": "0.9",
  "pastes": [
    {
      "n": 1,
      "path": ` + jsonString(t, path) + `,
      "bytes": 8,
      "lines": 2,
      "sha256": "` + sum("one\ntwo\n") + `",
      "time": "2026-01-02T03:05:00Z",
      "bracketed": true,
      "reference": "[paste saved: x]",
      "outcome": "saved"
    }
  ]
}
`
	if err := os.WriteFile(filepath.Join(s.Dir, manifestName), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(s.Dir)
	if err != nil {
		t.Fatalf("ReadManifest of a manifest without the burst field: %v", err)
	}
	if len(m.Pastes) != 1 || m.Pastes[0].Burst || m.Pastes[0].Path != path || !m.Pastes[0].Bracketed {
		t.Errorf("read %+v", m.Pastes)
	}
}

// A burst's record stays within maxRecordBytes, as TestRecordSize
// requires of the others.
func TestRecordSizeBurst(t *testing.T) {
	root, err := OpenRoot(filepath.Join(realDir(t), strings.Repeat("r", 60)))
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, root)
	r := savedRecord(s, 9999, strings.Repeat("x", 100))
	r.Time, r.Bracketed, r.Burst = time.Now(), true, true
	data, err := json.MarshalIndent(Manifest{Pastes: []PasteRecord{r}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > maxRecordBytes {
		t.Errorf("a saved burst's record under a root of %d bytes takes %d bytes, more than maxRecordBytes %d", len(root.Path), len(data), maxRecordBytes)
	}
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
