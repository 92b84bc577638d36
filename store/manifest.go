package store

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ManifestFormat is the version of manifest.json this package writes and
// reads. A change that old readers would misread gets a new number.
const ManifestFormat = 1

// maxManifestBytes bounds what ReadManifest reads. A record takes a few
// hundred bytes, so this is some hundred thousand pastes; anything larger
// is not a manifest this package wrote.
const maxManifestBytes = 64 << 20

// Outcomes of a paste, for PasteRecord.Outcome.
const (
	OutcomeSaved    = "saved"    // written to a paste file, reference typed
	OutcomeInline   = "inline"   // small enough to pass through as pasted
	OutcomeFallback = "fallback" // meant to be saved, delivered inline instead (Reason says why)
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
// directory synced), mode 0600. On error the manifest, on disk and in
// memory, is as before.
func (s *Session) Record(p PasteRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return fmt.Errorf("store: record paste in %s: %w", s.Dir, errSessionClosed)
	}
	s.manifest.Pastes = append(s.manifest.Pastes, p)
	if err := s.writeManifest(); err != nil {
		s.manifest.Pastes = s.manifest.Pastes[:len(s.manifest.Pastes)-1]
		return err
	}
	return nil
}

// writeManifest replaces the manifest file with s.manifest.
func (s *Session) writeManifest() error {
	path := filepath.Join(s.Dir, manifestName)
	data, err := json.MarshalIndent(&s.manifest, "", "  ")
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	if err := writeFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("store: write manifest: %w", err)
	}
	return nil
}

// ReadManifest reads the manifest of the session in sessionDir. It refuses
// a manifest of another format than ManifestFormat.
func ReadManifest(sessionDir string) (*Manifest, error) {
	path := filepath.Join(sessionDir, manifestName)
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("store: read manifest: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("store: read manifest: %w", err)
	}
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("store: read manifest %s: larger than %d bytes", path, maxManifestBytes)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("store: read manifest %s: %w", path, err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("store: read manifest %s: format %d, want %d", path, m.Format, ManifestFormat)
	}
	return &m, nil
}
