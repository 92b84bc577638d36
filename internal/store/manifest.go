package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// ManifestFormat is the version of manifest.json this package writes and
// reads. A change that old readers would misread gets a new number.
const ManifestFormat = 1

// The manifest's limits. The manifest is data that agents can write
// (the root is theirs to write in), so a reader bounds what it reads and
// checks every value (see checkManifest); the writer keeps within the same
// bounds, so that a manifest it wrote is always read back.
const (
	// maxManifestPastes is the most pastes a manifest records: one a
	// minute, day and night, for a week of one session. No one pastes
	// that much into one conversation; Record refuses more.
	maxManifestPastes = 7 * 24 * 60

	// maxRecordBytes is what one record may take on average, indented as
	// Record writes it: under a root of 94 bytes, about 730 bytes for a
	// saved paste (its path twice: path and reference) and 550 for a
	// fallback with its reason (TestRecordSize); the default roots are
	// shorter. 1 KiB leaves room for a longer reference template or
	// reason.
	maxRecordBytes = 1 << 10

	// maxManifestBytes bounds what ReadManifest reads, and what Record
	// writes: maxManifestPastes records of maxRecordBytes, under 10 MiB.
	// Anything larger is not a manifest this package wrote, and is
	// refused before it is read: listing three forged 63 MB manifests took
	// 477 MB of memory when they were read whole.
	maxManifestBytes = maxManifestPastes * maxRecordBytes
)

// Outcomes of a paste, for PasteRecord.Outcome.
const (
	OutcomeSaved    = "saved"    // written to a paste file, reference typed
	OutcomeInline   = "inline"   // small enough to pass through as pasted
	OutcomeFallback = "fallback" // meant to be saved, delivered inline instead (Reason says why)
	OutcomeImage    = "image"    // an image from the terminal's clipboard, saved, its path typed (see CommitImage)
)

// A PasteRecord is the manifest's entry for one paste: metadata only,
// never the paste's text nor what was typed.
type PasteRecord struct {
	N         int       `json:"n"` // 0 when nothing was saved (inline, fallback)
	Path      string    `json:"path,omitempty"`
	Bytes     int64     `json:"bytes"`
	Lines     int64     `json:"lines"`
	SHA256    string    `json:"sha256"`
	Time      time.Time `json:"time"`
	Bracketed bool      `json:"bracketed"` // whether the child had bracketed paste (mode 2004) on
	Reference string    `json:"reference,omitempty"`
	Outcome   string    `json:"outcome"` // OutcomeSaved, OutcomeInline, OutcomeFallback
	Reason    string    `json:"reason,omitempty"`
	// Burst says that the paste came without paste markers, as a burst of
	// input faster than typing (capture.BurstMode); manifests written
	// before it existed lack it, and read as false.
	Burst bool `json:"burst,omitempty"`
}

// Manifest is the whole of a session's manifest.json.
type Manifest struct {
	Format  int           `json:"format"` // ManifestFormat
	Session string        `json:"session"`
	PID     int           `json:"pid"`
	Argv0   string        `json:"argv0"`
	Start   time.Time     `json:"start"`
	Version string        `json:"version"`
	Pastes  []PasteRecord `json:"pastes"`
}

// Record appends p to the session's manifest and replaces manifest.json
// atomically (a temp file, synced, renamed over the old one, then the
// directory synced), mode 0600, after checking the root and the session
// directory as Check does (and failing as it does). It refuses a record
// that ReadManifest would refuse (see checkRecord: a saved paste's path
// is the session's paste-<n>.txt), and a record past the manifest's
// limits (maxManifestPastes records, maxManifestBytes bytes). On error the
// manifest, on disk and in memory, is as before.
//
// Once the manifest holds the record, Record adds the paste to the root's
// counters (CountersName), which outlive the session, for pbwrap stats.
// When only that fails (the counters lock held by another process for
// longer than countersLockWait, a counters file this package did not
// write), the manifest keeps the record and the error wraps ErrNotCounted.
func (s *Session) Record(p PasteRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLocked(); err != nil {
		return err
	}
	if err := checkRecord(s.Dir, p); err != nil {
		return fmt.Errorf("store: record paste in %s: %w", s.Dir, err)
	}
	if len(s.manifest.Pastes) >= maxManifestPastes {
		return fmt.Errorf("store: record paste in %s: the manifest holds %d pastes, the most it records", s.Dir, maxManifestPastes)
	}
	s.manifest.Pastes = append(s.manifest.Pastes, p)
	if err := s.writeManifest(true); err != nil {
		s.manifest.Pastes = s.manifest.Pastes[:len(s.manifest.Pastes)-1]
		return err
	}
	if err := countPaste(s.root, s.manifest.Argv0, p, time.Now()); err != nil {
		return fmt.Errorf("%w: %w", ErrNotCounted, err)
	}
	return nil
}

// writeManifest replaces the manifest file with s.manifest, synced to
// disk if durable (see writeFileAtomic).
func (s *Session) writeManifest(durable bool) error {
	path := filepath.Join(s.Dir, manifestName)
	data, err := json.MarshalIndent(&s.manifest, "", "  ")
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	if len(data)+1 > maxManifestBytes {
		return fmt.Errorf("store: write %s: %d bytes, more than the %d a manifest may have", path, len(data)+1, maxManifestBytes)
	}
	if err := writeFileAtomic(path, append(data, '\n'), durable); err != nil {
		return fmt.Errorf("store: write manifest: %w", err)
	}
	return nil
}

// ReadManifest reads the manifest of the session in sessionDir and checks
// it, since anyone who can write in the root could have written it (see
// checkManifest): it refuses a manifest that is a symlink or not a regular
// file (opened without following a symlink, and without blocking should
// it be a named pipe), one larger than maxManifestBytes (refused before it
// is read, so memory stays bounded), one that is not JSON, and one whose
// values are not what Record writes: another format than ManifestFormat,
// another session's id, a negative number, an unknown outcome, a saved
// paste whose path is not that session's paste-<n>.txt. The error names
// the manifest and says why; values from the manifest in it are quoted
// (%q), so that it prints safely.
func ReadManifest(sessionDir string) (*Manifest, error) {
	sessionDir = filepath.Clean(sessionDir)
	path := filepath.Join(sessionDir, manifestName)
	data, err := readManifestFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("store: read manifest %s: %w", path, err)
	}
	if err := checkManifest(sessionDir, &m); err != nil {
		return nil, fmt.Errorf("store: read manifest %s: %w", path, err)
	}
	return &m, nil
}

// readManifestFile reads the manifest file at path, a regular file of at
// most maxManifestBytes, not a symlink (fsutil.ReadRegularNoFollow).
func readManifestFile(path string) ([]byte, error) {
	data, _, err := fsutil.ReadRegularNoFollow(path, maxManifestBytes)
	var notRegular *fsutil.NotRegularError
	var tooLarge *fsutil.TooLargeError
	switch {
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("store: read manifest %s: not a regular file", path)
	case errors.As(err, &tooLarge) && tooLarge.Size < 0:
		return nil, fmt.Errorf("store: read manifest %s: grew past the %d bytes a manifest may have while being read", path, maxManifestBytes)
	case errors.As(err, &tooLarge):
		return nil, manifestTooLarge(path, tooLarge.Size)
	case err != nil:
		return nil, fmt.Errorf("store: read manifest: %w", err)
	}
	return data, nil
}

func manifestTooLarge(path string, size int64) error {
	return fmt.Errorf("store: read manifest %s: %d bytes, larger than the %d a manifest may have", path, size, maxManifestBytes)
}

// checkManifest reports why m, read from the session directory dir, is not
// a manifest that Record could have written there.
func checkManifest(dir string, m *Manifest) error {
	switch {
	case m.Format != ManifestFormat:
		return fmt.Errorf("format %d, want %d", m.Format, ManifestFormat)
	case m.Session != filepath.Base(dir):
		return fmt.Errorf("session %q, not the directory's %s", m.Session, filepath.Base(dir))
	case m.PID < 0:
		return fmt.Errorf("pid %d", m.PID)
	case len(m.Pastes) > maxManifestPastes:
		return fmt.Errorf("%d pastes, more than the %d a manifest records", len(m.Pastes), maxManifestPastes)
	}
	for i, r := range m.Pastes {
		if err := checkRecord(dir, r); err != nil {
			return fmt.Errorf("paste record %d: %w", i+1, err)
		}
	}
	return nil
}

// checkRecord reports why r is not a record that Record writes in the
// session directory dir: sizes and line counts are not negative, and
// there are no more lines than bytes; a sha256 is 64 lowercase hex digits;
// a saved paste has a number from 1, its sha256, and the path of that
// paste file in dir, exactly; a paste that was not saved has neither
// number nor path.
func checkRecord(dir string, r PasteRecord) error {
	switch {
	case r.Bytes < 0 || r.Lines < 0:
		return fmt.Errorf("negative size: %d bytes, %d lines", r.Bytes, r.Lines)
	case r.Lines > r.Bytes:
		return fmt.Errorf("%d lines in %d bytes", r.Lines, r.Bytes)
	case r.SHA256 != "" && !isSHA256Hex(r.SHA256):
		return fmt.Errorf("sha256 %q is not 64 lowercase hex digits", r.SHA256)
	}
	switch r.Outcome {
	case OutcomeSaved:
		return checkSaved(dir, r)
	case OutcomeImage:
		if r.N < 1 || r.Lines != 0 || filepath.Dir(r.Path) != dir || !isImageName(filepath.Base(r.Path)) || r.Path != filepath.Join(dir, filepath.Base(r.Path)) {
			return fmt.Errorf("image %d at %q is not this session's image-<n>.<ext>", r.N, r.Path)
		}
		return nil
	case OutcomeInline, OutcomeFallback:
		if r.N != 0 || r.Path != "" {
			return fmt.Errorf("outcome %s with n %d and path %q: only a saved paste has them", r.Outcome, r.N, r.Path)
		}
		return nil
	}
	return fmt.Errorf("outcome %q, want %s, %s, %s or %s", r.Outcome, OutcomeSaved, OutcomeInline, OutcomeFallback, OutcomeImage)
}

// checkSaved is checkRecord for a saved paste.
func checkSaved(dir string, r PasteRecord) error {
	switch {
	case r.N < 1:
		return fmt.Errorf("saved paste number %d, want 1 or more", r.N)
	case r.Path != filepath.Join(dir, pasteName(r.N)):
		return fmt.Errorf("path %q is not this session's %s", r.Path, pasteName(r.N))
	case r.SHA256 == "":
		return errors.New("saved paste without its sha256")
	}
	return nil
}
