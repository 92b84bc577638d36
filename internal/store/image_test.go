package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Images get their own numbers and the extension asked for, 0600; a name
// made behind the session's back is skipped, never overwritten; the
// manifest records them and reads back; listing takes them for pbwrap's.
func TestCommitImage(t *testing.T) {
	s := newSession(t, newRoot(t))
	theirs := filepath.Join(s.Dir, "image-2.png")
	if err := os.WriteFile(theirs, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		ext, data, name string
		n               int
	}{
		{"png", "\x89PNG one", "image-1.png", 1},
		{"png", "\x89PNG two", "image-3.png", 3},
		{"jpg", "\xff\xd8\xff", "image-4.jpg", 4},
	} {
		tmp, err := s.CreateTemp()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tmp.Write([]byte(want.data)); err != nil {
			t.Fatal(err)
		}
		n, path, err := s.CommitImage(tmp, want.ext)
		if err != nil || n != want.n || path != filepath.Join(s.Dir, want.name) {
			t.Fatalf("CommitImage(%s) = %d, %s, %v; want %d, %s", want.ext, n, path, err, want.n, want.name)
		}
		if got := readFile(t, path); got != want.data {
			t.Errorf("%s holds %q", path, got)
		}
		if got := permOf(t, path); got != 0o600 {
			t.Errorf("%s mode %#o, want 0600", path, got)
		}
		if err := s.Record(PasteRecord{N: n, Path: path, Bytes: int64(len(want.data)), Time: time.Now(), Outcome: OutcomeImage}); err != nil {
			t.Fatalf("Record: %v", err)
		}
		if !isOwnName(want.name) {
			t.Errorf("%s is not taken for pbwrap's own", want.name)
		}
	}
	if got := readFile(t, theirs); got != "theirs" {
		t.Errorf("image-2.png made behind the session's back now holds %q", got)
	}
	checkNoTemps(t, s.Dir)
	m, err := ReadManifest(s.Dir)
	if err != nil || len(m.Pastes) != 3 || m.Pastes[2].Outcome != OutcomeImage {
		t.Fatalf("ReadManifest: %+v, %v", m, err)
	}
	tmp, _ := s.CreateTemp()
	defer tmp.Discard()
	if _, _, err := s.CommitImage(tmp, "svg"); err == nil {
		t.Error("CommitImage(svg): no error")
	}
	if err := s.Record(PasteRecord{N: 9, Path: filepath.Join(s.Dir, "paste-9.txt"), Outcome: OutcomeImage}); err == nil {
		t.Error("an image record with a paste's name: no error")
	}
	for _, name := range []string{"image-0.png", "image-01.png", "image-1.svg", "image-1", "image-.png"} {
		if isImageName(name) {
			t.Errorf("isImageName(%q) = true", name)
		}
	}
}
