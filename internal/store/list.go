package store

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pbwrap/pbwrap/internal/printable"
)

// debugLogName is the log pbwrap writes in the session directory with
// PBWRAP_DEBUG=1 and no --log.
const debugLogName = "debug.log"

// sessionStartGrace is how long a session directory without a manifest is
// taken for one that is still being made. NewSession creates the directory,
// then creates and locks .lock, then writes manifest.json: until the
// manifest is there, a probe of the lock (IsLive) could find it not yet
// taken, or take it at the very moment NewSession does and make NewSession
// fail. So such a session is not probed but counted live, and left alone,
// until it is this old. Making a session takes milliseconds, a few seconds
// on a slow disk that must sync; a minute is far beyond that, and short
// enough that `pbwrap clean --all` soon removes what a crash in the middle
// of NewSession left.
const sessionStartGrace = time.Minute

// SessionSummary describes one session directory.
type SessionSummary struct {
	ID       string
	Dir      string
	ModTime  time.Time // the directory's: every saved paste and manifest write refreshes it
	Live     bool      // its lock is held: the session is running (or being made: see ListSessions)
	Bytes    int64     // total size of the regular files in it
	Manifest *Manifest // nil when missing or unreadable
	Err      error     // why Manifest is nil, if it is; with ListSessions, also why the directory could not be read or its lock probed
}

// ListSessions returns the sessions under root, newest first by the
// UUIDv7 order of their ids. root must pass the root's safety rules, as
// for OpenRoot (not a symlink, a directory, the user's, a path references
// can carry; else an error wraps ErrUnsafeRoot), but is never created or
// changed: a root that group or others can only read is listed as it is,
// and one they can write to is refused (ErrUnsafeRoot) until OpenRoot has
// tightened it (see rootRules). A missing root gives an empty list and no
// error.
//
// A session is a directory, not a symlink, whose name is a canonical
// UUID; every other entry is ignored. Reading one session's manifest may
// fail (Err says why) without failing the list. A session whose manifest
// is not written yet and whose directory is less than a minute old is
// reported live without probing its lock, since a probe could make the
// session's start fail.
//
// ListSessions takes no lock: it may run while a cleaner removes
// sessions, and then lists some that are gone when it returns.
func ListSessions(root string) ([]SessionSummary, error) {
	names, err := readRoot(root)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	list := []SessionSummary{}
	for _, name := range names {
		if s, ok := listSession(root, name, now); ok {
			list = append(list, s)
		}
	}
	return list, nil
}

// listSession describes the root's entry name, if it is a session.
func listSession(root, name string, now time.Time) (SessionSummary, bool) {
	if !IsSessionID(name) {
		return SessionSummary{}, false
	}
	d, err := statSession(root, name)
	if err == nil {
		err = d.read()
	}
	var ns *notSessionError
	switch {
	case errors.As(err, &ns), errors.Is(err, fs.ErrNotExist):
		return SessionSummary{}, false // Not a session directory, or gone since the root was read.
	case err != nil:
		s := SessionSummary{ID: name, Dir: filepath.Join(root, name), Err: err}
		if d != nil {
			s.ModTime = d.modTime
		}
		return s, true
	}
	s := d.summary()
	if s.Live, err = d.isLive(now); err != nil {
		s.Err = errors.Join(s.Err, err)
	}
	return s, true
}

// readRoot runs the root's rules for listing and cleaning on the root at
// path (see rootRules), changing nothing, and returns the names in it,
// newest session id first. A missing root has no names and is no error.
func readRoot(path string) ([]string, error) {
	d, err := openExistingRoot(path)
	if err != nil || d == nil {
		return nil, err
	}
	defer d.Close() // Best effort: only read.
	return readNames(d)
}

// readNames returns the names in the root directory d, newest session id
// first.
func readNames(d *os.File) ([]string, error) {
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("store: read root: %w", err)
	}
	// Canonical UUIDv7 strings sort by time: reversed, newest first.
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(b, a) })
	return names, nil
}

// IsSessionID reports whether name is a session id as NewSession makes
// it: a canonical UUID, lowercase, without braces or prefix. Every file
// pbwrap saves is in a session directory of that name in the root.
func IsSessionID(name string) bool {
	u, err := uuid.Parse(name)
	return err == nil && u.String() == name
}

// isOwnName reports whether name is one that pbwrap gives a file in a
// session directory: the lock, the manifest, the debug log, a paste, an
// image (see CommitImage), or a
// temp file (a paste or a manifest being written).
func isOwnName(name string) bool {
	switch name {
	case lockName, manifestName, debugLogName:
		return true
	}
	if strings.HasPrefix(name, tempPrefix) || isImageName(name) {
		return true
	}
	digits, ok := strings.CutPrefix(name, "paste-")
	digits, ok2 := strings.CutSuffix(digits, ".txt")
	if !ok || !ok2 {
		return false
	}
	// Only the names pasteName makes: no sign, no leading zero, from 1.
	n, err := strconv.Atoi(digits)
	return err == nil && n >= 1 && pasteName(n) == name
}

// A sessionDir is what one look at a session directory found.
type sessionDir struct {
	id, dir     string
	modTime     time.Time
	own         []ownFile // pbwrap's files: regular files with pbwrap's names
	foreign     []string  // every other entry, described for a report
	bytes       int64     // all regular files, pbwrap's or not
	hasManifest bool
}

// An ownFile is one of pbwrap's files in a session directory.
type ownFile struct {
	name string
	size int64
}

// notSessionError says why an entry named like a session is not one.
type notSessionError struct{ why string }

func (e *notSessionError) Error() string { return e.why }

// statSession looks at <root>/<id> without following a symlink. Its
// error is a *notSessionError when the entry is not a directory, and
// otherwise names the path; an entry that went away gives an error
// wrapping fs.ErrNotExist. Then read looks inside.
func statSession(root, id string) (*sessionDir, error) {
	dir := filepath.Join(root, id)
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("store: read session: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, &notSessionError{"a symlink, not followed"}
	case !fi.IsDir():
		return nil, &notSessionError{"not a directory"}
	}
	if uid, err := ownerUID(fi); err != nil || uid != os.Geteuid() {
		return nil, &notSessionError{"not owned by you"}
	}
	return &sessionDir{id: id, dir: dir, modTime: fi.ModTime()}, nil
}

// read lists the session directory, without following a symlink put in
// its place, and sorts its entries into pbwrap's files and the others.
func (d *sessionDir) read() error {
	f, err := openDirNoFollow(d.dir)
	if err != nil {
		return fmt.Errorf("store: read session: %w", err)
	}
	defer f.Close() // Best effort: only read.
	entries, err := f.ReadDir(-1)
	if err != nil {
		return fmt.Errorf("store: read session: %w", err)
	}
	for _, e := range entries {
		if err := d.add(e); err != nil {
			return err
		}
	}
	return nil
}

// add sorts the entry e of the session directory into d.
func (d *sessionDir) add(e fs.DirEntry) error {
	fi, err := e.Info() // lstat: never follows a symlink
	if errors.Is(err, fs.ErrNotExist) {
		return nil // Removed since the directory was read.
	}
	if err != nil {
		return fmt.Errorf("store: read session: %w", err)
	}
	name := e.Name()
	if fi.Mode().IsRegular() {
		d.bytes += fi.Size()
	}
	switch {
	case !isOwnName(name):
		d.foreign = append(d.foreign, printable.Quote(name))
	case fi.Mode()&fs.ModeSymlink != 0:
		// pbwrap never makes symlinks, whatever the name says.
		d.foreign = append(d.foreign, printable.Quote(name)+" (a symlink)")
	case fi.IsDir():
		d.foreign = append(d.foreign, printable.Quote(name)+" (a directory)")
	case !fi.Mode().IsRegular():
		d.foreign = append(d.foreign, printable.Quote(name)+" (not a regular file)")
	default:
		d.own = append(d.own, ownFile{name, fi.Size()})
		d.hasManifest = d.hasManifest || name == manifestName
	}
	return nil
}

// summary describes d, with its manifest when it can be read.
func (d *sessionDir) summary() SessionSummary {
	s := SessionSummary{ID: d.id, Dir: d.dir, ModTime: d.modTime, Bytes: d.bytes}
	s.Manifest, s.Err = ReadManifest(d.dir)
	return s
}

// isLive reports whether the session is live. A session whose manifest is
// missing and which is younger than sessionStartGrace (at now) may be
// inside NewSession, and is live without a probe that could disturb it.
func (d *sessionDir) isLive(now time.Time) (bool, error) {
	if !d.hasManifest && now.Sub(d.modTime) <= sessionStartGrace {
		return true, nil
	}
	return IsLive(d.dir)
}

// OpenPaste opens the paste file at path for reading: without following a
// symlink in its last element, without blocking should it be a named pipe,
// and only if it is a regular file. The caller must close it. It does not
// check where path is: the caller names a paste file it found under the
// root (in a manifest, which ReadManifest checked, or by its path).
func OpenPaste(path string) (*os.File, error) {
	f, err := openExisting(path)
	if err != nil {
		return nil, fmt.Errorf("store: open paste: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", path)
	}
	if err != nil {
		_ = f.Close() // Best effort: only opened.
		return nil, fmt.Errorf("store: open paste: %w", err)
	}
	return f, nil
}
