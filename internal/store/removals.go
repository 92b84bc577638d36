package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// The root's record of the sessions a Cleaner removed, so that pbwrap
// show, asked for a paste whose file is gone, can say whether pbwrap
// removed it and why, rather than a bare "no such file".
const (
	// RemovalsName is the record's file in the root, replaced as a whole
	// (writeFileAtomic) by a Cleaner holding the cleanup lock. Cleaning
	// never removes it.
	RemovalsName = ".removals.json"

	// RemovalsFormat is the version of the record this package writes and
	// reads.
	RemovalsFormat = 1

	// maxRemovals is how many removals the record keeps, the latest: a
	// session a day for eleven years. Older ones are dropped.
	maxRemovals = 4096

	// maxRemovalBytes is what one removal may take, indented as it is
	// written (about 160 bytes).
	maxRemovalBytes = 256

	// maxRemovalsBytes bounds what ReadRemovals reads: 1 MiB.
	maxRemovalsBytes = maxRemovals * maxRemovalBytes
)

// Why a Cleaner removed a session, for Removal.Why.
const (
	RemovedExpired = "expired" // ended longer ago than the TTL
	RemovedTrimmed = "trimmed" // the oldest ended session while the store was over its cap
	RemovedAll     = "all"     // removed by Cleaner.All (pbwrap clean --all), whatever its age
)

// A Removal is the record of one session a Cleaner removed.
type Removal struct {
	ID      string        `json:"id"`
	Ended   time.Time     `json:"ended"`   // the session's last write
	Removed time.Time     `json:"removed"` // when the Cleaner removed it (its Now)
	Why     string        `json:"why"`     // RemovedExpired, RemovedTrimmed or RemovedAll
	TTL     time.Duration `json:"ttl,omitempty"`
	Limit   int64         `json:"limit,omitempty"` // the cap, for RemovedTrimmed
}

// Removals is the whole record.
type Removals struct {
	Format   int       `json:"format"`           // RemovalsFormat
	Cleaned  time.Time `json:"cleaned,omitzero"` // when a Cleaner with Every last went through the root
	Sessions []Removal `json:"sessions"`         // oldest removal first
}

// isRemovalsName reports whether name, in the root, is the record or the
// temp file of a write of it.
func isRemovalsName(name string) bool {
	return name == RemovalsName || strings.HasPrefix(name, tempPrefix+RemovalsName+"-")
}

// FindRemoval returns the record of the removal of the session id from
// the root at path, or nil when the record has none: pbwrap did not
// remove it, or removed it longer ago than the record goes back. It runs
// the root's rules for listing first, and refuses a record it could not
// have written, as ReadCounters does.
func FindRemoval(root, id string) (*Removal, error) {
	d, err := openExistingRoot(root)
	if err != nil || d == nil {
		return nil, err
	}
	_ = d.Close() // Only read.
	r, err := readRemovals(filepath.Join(root, RemovalsName))
	if err != nil {
		return nil, err
	}
	for i := len(r.Sessions) - 1; i >= 0; i-- {
		if r.Sessions[i].ID == id {
			return &r.Sessions[i], nil
		}
	}
	return nil, nil
}

// readRemovals reads and checks the record at path; a missing file gives
// an empty record.
func readRemovals(path string) (*Removals, error) {
	data, _, err := fsutil.ReadRegularNoFollow(path, maxRemovalsBytes)
	var notRegular *fsutil.NotRegularError
	var tooLarge *fsutil.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Removals{Format: RemovalsFormat}, nil
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("store: read removals %s: not a regular file", path)
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("store: read removals %s: more than the %d bytes the record may have", path, maxRemovalsBytes)
	case err != nil:
		return nil, fmt.Errorf("store: read removals: %w", err)
	}
	var r Removals
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("store: read removals %s: %w", path, err)
	}
	if err := checkRemovals(&r); err != nil {
		return nil, fmt.Errorf("store: read removals %s: %w (remove it to start a new record)", path, err)
	}
	return &r, nil
}

// checkRemovals reports why r is not a record this package could have
// written.
func checkRemovals(r *Removals) error {
	if r.Format != RemovalsFormat {
		return fmt.Errorf("format %d, want %d", r.Format, RemovalsFormat)
	}
	if len(r.Sessions) > maxRemovals {
		return fmt.Errorf("%d removals, more than the %d the record keeps", len(r.Sessions), maxRemovals)
	}
	for i, s := range r.Sessions {
		switch {
		case !IsSessionID(s.ID):
			return fmt.Errorf("removal %d: %q is not a session id", i+1, s.ID)
		case s.Why != RemovedExpired && s.Why != RemovedTrimmed && s.Why != RemovedAll:
			return fmt.Errorf("removal %d: unknown reason %q", i+1, s.Why)
		case s.TTL < 0 || s.Limit < 0:
			return fmt.Errorf("removal %d: a negative TTL or cap", i+1)
		}
	}
	return nil
}

// addRemovals adds the removals rs to the record of root, keeping the
// latest maxRemovals, and, unless cleaned is zero, sets the time of the
// last cleaning to it. The caller holds the cleanup lock, which every
// writer of the record takes. A record this package could not have
// written is not overwritten: the error says why.
func addRemovals(root string, rs []Removal, cleaned time.Time) error {
	if len(rs) == 0 && cleaned.IsZero() {
		return nil
	}
	path := filepath.Join(root, RemovalsName)
	r, err := readRemovals(path)
	if err != nil {
		return err
	}
	if !cleaned.IsZero() {
		r.Cleaned = cleaned
	}
	r.Sessions = append(r.Sessions, rs...)
	if n := len(r.Sessions) - maxRemovals; n > 0 {
		r.Sessions = slices.Delete(r.Sessions, 0, n)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	// Not synced: a crash loses at most the reasons of the last removals,
	// and pbwrap show then says it has no record of them.
	if err := writeFileAtomic(path, append(data, '\n'), false); err != nil {
		return fmt.Errorf("store: write removals: %w", err)
	}
	return nil
}
