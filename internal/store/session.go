package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// errSessionClosed is returned by the methods of a closed Session: without
// its lock, the session may be removed by a cleaner while being written.
var errSessionClosed = errors.New("session closed")

// Meta is the session metadata written to the manifest.
type Meta struct {
	PID     int
	Argv0   string // argv[0] only, never the other arguments
	Start   time.Time
	Version string // pbwrap's version
}

// A Session is one pbwrap run's directory, <root>/<id>/, and the lock that
// marks it live. Its methods are safe for concurrent use.
//
// Agents can write in the root, so the session trusts nothing it finds
// there: before each write (CreateTemp, CommitPaste, Record) it checks the
// root and its own directory again (see Check), and it reuses a paste file
// only if the file still holds the text (see CommitPaste).
type Session struct {
	ID  string // UUIDv7, so that session directories sort by start time
	Dir string // <root>/<id>

	root     string      // the root's path, as OpenRoot checked it
	dirInfo  fs.FileInfo // Dir's, as NewSession made it: Check compares
	lockInfo fs.FileInfo // Dir/.lock's, the file whose flock is held

	mu       sync.Mutex
	lock     *os.File // holds the flock on Dir/.lock; nil once closed
	dirLock  *os.File // holds the flock on Dir itself, which no agent can delete while the session runs
	manifest Manifest
	next     int // the lowest paste number not yet tried
	// nextImage is the lowest image number not yet tried (see
	// CommitImage); 0 before the first.
	nextImage int
	saved     map[string]saved // committed pastes by sha256 hex
}

// saved is a paste file committed in this session.
type saved struct {
	n    int
	path string
	fi   fs.FileInfo // the file's as linked: device, inode and size
}

// NewSessionID returns a new session id, a UUIDv7 string, so that the
// caller can export it (PBWRAP_SESSION) before the directory exists.
func NewSessionID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("store: new session id: %w", err)
	}
	return u.String(), nil
}

// NewSession creates the session directory <root>/<id>/ with mode 0700,
// takes an exclusive non-blocking flock on its .lock file, held until
// Close, and writes the initial manifest. id must be a canonical UUID
// string as NewSessionID returns; a directory that already exists is an
// error wrapping fs.ErrExist, never reused. An id whose directory is gone
// (see ErrSessionGone) may be given again: that makes a new session, with
// a new lock and manifest, under the same name. On error nothing is left
// behind.
//
// The caller must End (or Close) the session.
func (r *Root) NewSession(id string, meta Meta) (_ *Session, err error) {
	if u, perr := uuid.Parse(id); perr != nil || u.String() != id {
		return nil, fmt.Errorf("store: new session in %s: id %q is not a canonical UUID", r.Path, id)
	}
	dir := filepath.Join(r.Path, id)
	if err := os.Mkdir(dir, dirPerm); err != nil {
		return nil, fmt.Errorf("store: create session: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir) // Best effort.
		}
	}()
	dirInfo, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("store: create session: %w", err)
	}
	dirLock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	lock, err := lockSession(dir)
	if err != nil {
		_ = dirLock.Close() // Best effort: the directory is removed.
		return nil, err
	}
	lockInfo, err := lock.Stat()
	if err != nil {
		_ = lock.Close()    // Best effort: the directory is removed.
		_ = dirLock.Close() // As above.
		return nil, fmt.Errorf("store: lock session: %w", err)
	}
	s := &Session{
		ID:       id,
		Dir:      dir,
		root:     r.Path,
		dirInfo:  dirInfo,
		lockInfo: lockInfo,
		lock:     lock,
		dirLock:  dirLock,
		next:     1,
		saved:    make(map[string]saved),
		manifest: Manifest{
			Format:  ManifestFormat,
			Session: id,
			PID:     meta.PID,
			Argv0:   meta.Argv0,
			Start:   meta.Start,
			Version: meta.Version,
			Pastes:  []PasteRecord{},
		},
	}
	// The manifest comes after the lock: a manifest in the directory tells
	// listing and cleanup that probing the lock cannot disturb NewSession.
	// It is not synced to disk: it records no paste yet, so a crash loses
	// nothing with it, and the two fsyncs took longer than all the rest of
	// pbwrap's start (doc/performance.md); Record syncs the first paste's.
	if err := s.writeManifest(false); err != nil {
		_ = s.Close() // Best effort: the directory is removed.
		return nil, err
	}
	return s, nil
}

// lockSession creates dir/.lock and takes an exclusive flock on it without
// waiting. The descriptor is close-on-exec, so the lock ends with pbwrap
// and is never held by the command it runs.
func lockSession(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := openNoFollow(path, os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return nil, fmt.Errorf("store: lock session: %w", err)
	}
	if err := flock(f, lockExclusive); err != nil {
		_ = f.Close() // Best effort.
		return nil, fmt.Errorf("store: lock session: %w", err)
	}
	return f, nil
}

// lockDir takes an exclusive flock on the session directory itself,
// without waiting: the mark of a live session that an agent, which may
// delete any file in the directory (.lock among them), cannot take away
// while the directory exists. Close-on-exec, as .lock's.
func lockDir(dir string) (*os.File, error) {
	d, err := openDirNoFollow(dir)
	if err != nil {
		return nil, fmt.Errorf("store: lock session: %w", err)
	}
	if err := flock(d, lockExclusive); err != nil {
		_ = d.Close() // Best effort.
		return nil, fmt.Errorf("store: lock session %s: %w", dir, err)
	}
	return d, nil
}

// Close releases the session's lock, after which a cleaner may remove the
// session once it is old enough. The files are kept, even when the session
// saved nothing (End removes those). Later calls to the session's methods
// fail; Close itself may be called again, and so may End, which then does
// nothing.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeLocked()
}

// closeLocked is Close, with s.mu held.
func (s *Session) closeLocked() error {
	if s.lock == nil {
		return nil
	}
	// The TTL counts from the end of a session, not from its last paste:
	// a long conversation that ended a minute ago keeps its files a TTL
	// more. Best effort: a failure only shortens that. A directory that is
	// no longer the session's is left as it is.
	if s.ownsDir() {
		_ = touch(s.Dir)
	}
	return s.unlockLocked()
}

// unlockLocked releases the session's lock, with s.mu held.
func (s *Session) unlockLocked() error {
	f, d := s.lock, s.dirLock
	s.lock, s.dirLock = nil, nil
	// Closing a descriptor releases its lock; unlocking first releases it
	// even if a copy of the descriptor lives on somewhere.
	var errs []error
	for _, l := range []*os.File{f, d} {
		if l == nil {
			continue
		}
		uerr := flock(l, lockUnlock)
		if err := l.Close(); err != nil {
			errs = append(errs, err)
		} else if uerr != nil {
			errs = append(errs, uerr)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("store: unlock session: %w", errors.Join(errs...))
	}
	return nil
}

// End ends the session as Close does and, so that a run that saved
// nothing leaves nothing, removes it when no paste was recorded (Record)
// and the directory holds nothing but the two files NewSession made, .lock
// and manifest.json, both regular files: End removes them and the
// directory. Anything else in the directory keeps the whole session, as
// Close keeps it: a paste, a temp file, a debug.log, any entry pbwrap does
// not make, or a symlink under one of those two names. Only those two
// names and the directory are removed, with unlink(2) and rmdir(2), which
// follow no symlink. The caller should End the session after closing
// whatever writes in the directory (pbwrap's debug.log), or that keeps the
// session.
//
// The session stays live until it is gone, as far as one look can tell.
// The manifest goes first, while the lock is held; then the lock file's
// name, while its flock is still held; then the directory; and only then
// is the flock released. A listing or a cleaner that looks meanwhile finds
// the lock held, or a directory without a manifest that was just modified,
// which they count as a session being made and leave alone (see
// sessionStartGrace). Only one that read the directory before the manifest
// went and probes the lock after its name went finds the session ended, as
// it is a moment later: a cleaner then removes the same two files and the
// directory, and the removals tolerate each other. Should something be
// added to the directory meanwhile, rmdir fails, the manifest is written
// back, and the session is kept, without its lock file, as an ended
// session; End returns the error.
//
// End after End or Close does nothing: the session is kept as it is. End
// of a session whose directory is gone or was replaced (see
// ErrSessionGone) only releases the lock: whatever now has the name is not
// the session's, and is left alone.
func (s *Session) End() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return nil
	}
	if !s.ownsDir() {
		return s.unlockLocked()
	}
	if len(s.manifest.Pastes) == 0 {
		switch gone, err := s.removeIfBare(); {
		case gone:
			return s.unlockLocked()
		case err != nil:
			return errors.Join(err, s.closeLocked())
		}
	}
	return s.closeLocked()
}

// removeIfBare removes the session directory if it holds nothing but what
// NewSession made, and reports whether it is gone. s.mu and the lock are
// held. When the removal fails half-way, the manifest is written back.
func (s *Session) removeIfBare() (gone bool, err error) {
	// A removal that fails sets the directory's modification time back to
	// modTime: now, the end of the session, from which the TTL counts.
	d := &sessionDir{id: s.ID, dir: s.Dir, modTime: time.Now()}
	if err := d.read(); err != nil || !d.isBare() {
		return false, err
	}
	// remove takes the manifest before the lock (removalRank).
	if _, err := d.remove(); err != nil {
		_ = s.writeManifest(true) // Best effort: the session says what it was.
		return false, err
	}
	return true, nil
}

// isBare reports whether the session directory d read holds nothing but
// what NewSession makes: .lock and manifest.json, regular files.
func (d *sessionDir) isBare() bool {
	if len(d.foreign) > 0 {
		return false
	}
	for _, f := range d.own {
		if f.name != lockName && f.name != manifestName {
			return false
		}
	}
	return true
}

// IsLive reports whether a process holds the lock of the session in
// sessionDir, that is, whether the session is running, in this process or
// another. It takes a shared lock on sessionDir itself, then on
// sessionDir/.lock (which pbwrap before 37 alone held), without waiting,
// and lets each go at once, so concurrent probes do not see each other.
// The directory's lock is what an agent cannot take away: it may delete
// .lock, but not the directory while the session's files are in it.
//
// A missing sessionDir means not live, and so does a missing .lock
// when the directory's lock is free. A session
// creates its .lock just after its directory, and a probe at the moment it
// takes the lock makes NewSession fail, so a cleaner must check that a
// session is old before it calls IsLive, and remove only old ones.
func IsLive(sessionDir string) (bool, error) {
	d, err := openDirNoFollow(sessionDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: check session: %w", err)
	}
	err = flock(d, lockSharedProbe)
	_ = d.Close() // Best effort: closing releases the probe's lock.
	switch {
	case isWouldBlock(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("store: check session: %w", err)
	}
	path := filepath.Join(sessionDir, lockName)
	f, err := openNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: check session: %w", err)
	}
	defer f.Close() // Best effort: closing releases the probe's lock.
	switch err := flock(f, lockSharedProbe); {
	case isWouldBlock(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("store: check session: %w", err)
	}
	return false, nil
}

// CreateTemp creates a file to write a paste into, in the session
// directory, with mode 0600 and a name starting with ".tmp-", after
// checking the root and the session directory as Check does (and failing
// as it does). The caller must either CommitPaste it or Discard it.
func (s *Session) CreateTemp() (*Temp, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLocked(); err != nil {
		return nil, err
	}
	// os.CreateTemp opens with O_CREATE|O_EXCL and mode 0600.
	f, err := os.CreateTemp(s.Dir, tempPrefix+"paste-*")
	if err != nil {
		return nil, fmt.Errorf("store: create temp: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()           // Best effort.
		_ = os.Remove(f.Name()) // Best effort.
		return nil, fmt.Errorf("store: create temp: %w", err)
	}
	return &Temp{s: s, f: f, path: f.Name(), fi: fi}, nil
}

// Paste names that exist already are skipped: the agent, a process of the
// user's, can write in the session directory, and may have taken the next
// names (by mistake, or to make every paste go inline). CommitPaste tries
// the next few names one by one (pasteTries), then jumps past the highest
// paste-<n>.txt in the directory, a few times (pasteJumps); only a name at
// maxPasteN stops it, since no higher one can follow.
const (
	pasteTries = 16
	pasteJumps = 4
	maxPasteN  = 1 << 30
)

// CommitPaste turns t into the session's next paste file, paste-<n>.txt
// with n counting from 1, mode 0600, and returns n and its path. It checks
// the root and the session directory as Check does (and fails as it
// does), syncs and closes t, links it to the final name — a name that
// exists already, made behind the session's back, is skipped for the next
// n, never overwritten —, makes sure the name denotes the file written,
// syncs the directory and removes the temp name.
//
// When a paste with the same sha256 (hex, as the caller computed it while
// writing t) was already committed in this session and its file still
// holds that text (see saved.holds: the very file linked, unchanged), t is
// discarded and the existing paste returned with reused true. A file that
// changed, was replaced or is gone is never reused again: t becomes a new
// paste file, and the old one is left as it is.
//
// On error t is kept, so that the caller can still Open it to deliver the
// paste another way; the caller must then Discard it. On success t is
// done: Discard does nothing.
func (s *Session) CommitPaste(t *Temp, sha256hex string) (n int, path string, reused bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock == nil {
		return 0, "", false, fmt.Errorf("store: commit paste %s: %w", t.path, errSessionClosed)
	}
	if t.s != s {
		return 0, "", false, fmt.Errorf("store: commit paste %s: temp file of another session", t.path)
	}
	if !isSHA256Hex(sha256hex) {
		return 0, "", false, fmt.Errorf("store: commit paste %s: sha256 %q is not 64 lowercase hex digits", t.path, sha256hex)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return 0, "", false, fmt.Errorf("store: commit paste %s: %w", t.path, errTempDone)
	}
	if err := s.checkLocked(); err != nil {
		return 0, "", false, err
	}
	if p, ok := s.saved[sha256hex]; ok {
		if p.holds(sha256hex) {
			_ = t.discardLocked() // Best effort: cleanup removes a temp file left behind.
			return p.n, p.path, true, nil
		}
		delete(s.saved, sha256hex)
	}
	p, err := s.link(t)
	if err != nil {
		return 0, "", false, err
	}
	t.done = true
	s.saved[sha256hex] = p
	return p.n, p.path, false, nil
}

// link gives the synced, closed temp file the next free paste name, makes
// sure the name denotes the file written, and makes the name durable. On
// error no paste name of the file is left and the temp file is still
// there.
func (s *Session) link(t *Temp) (saved, error) {
	return s.linkWith(t, func() (int, string, error) { return s.linkNext(t) })
}

// linkWith is link with next giving the name: it links the closed temp
// file to the next free name and returns that name's number and path.
func (s *Session) linkWith(t *Temp, next func() (int, string, error)) (saved, error) {
	if err := t.closeLocked(); err != nil {
		return saved{}, fmt.Errorf("store: commit paste: %w", err)
	}
	n, path, err := next()
	if err != nil {
		return saved{}, err
	}
	fi, err := os.Lstat(path)
	switch {
	case err != nil || !os.SameFile(fi, t.fi):
		// The directory changed under the link: the name is not the file
		// written, and not pbwrap's to remove.
		return saved{}, fmt.Errorf("store: commit paste %s: the name does not denote the file written", path)
	case fi.Size() != t.written:
		_ = os.Remove(path) // Best effort: pbwrap's link to a file changed behind its back.
		return saved{}, fmt.Errorf("store: commit paste %s: %d bytes, but %d were written", path, fi.Size(), t.written)
	}
	// Sync the directory while the temp name still holds the file, so that
	// on error the paste name can go and the caller can replay the temp.
	if err := fsutil.SyncDir(s.Dir); err != nil {
		_ = os.Remove(path) // Best effort.
		return saved{}, fmt.Errorf("store: commit paste %s: %w", path, err)
	}
	// A temp name left behind only costs cleanup a removal; the paste is
	// safely in place, so this is best effort.
	_ = os.Remove(t.path)
	return saved{n: n, path: path, fi: fi}, nil
}

// linkNext links the temp file to the first paste name from s.next that
// does not exist, skipping the names taken behind the session's back (see
// pasteTries), and returns its number and path.
func (s *Session) linkNext(t *Temp) (n int, path string, err error) {
	first := s.next
	for range pasteJumps + 1 {
		for range pasteTries {
			if s.next >= maxPasteN {
				return 0, "", fmt.Errorf("store: commit paste %s: paste names are taken up to %s", t.path, pasteName(maxPasteN))
			}
			n, path = s.next, filepath.Join(s.Dir, pasteName(s.next))
			s.next++
			err = os.Link(t.path, path)
			if !errors.Is(err, fs.ErrExist) {
				if err != nil {
					return 0, "", fmt.Errorf("store: commit paste: %w", err)
				}
				return n, path, nil
			}
		}
		if high := highestPaste(s.Dir); high >= s.next {
			s.next = min(high+1, maxPasteN)
		}
	}
	return 0, "", fmt.Errorf("store: commit paste %s: %s to %s and those after them are taken", t.path, pasteName(first), pasteName(n))
}

// highestPaste returns the highest n of the paste-<n>.txt names in dir, 0
// when there is none or dir cannot be read.
func highestPaste(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	high := 0
	for _, e := range entries {
		num, ok := strings.CutPrefix(e.Name(), "paste-")
		if num, ok = strings.CutSuffix(num, ".txt"); !ok {
			continue
		}
		if n, err := strconv.Atoi(num); err == nil && n > high && num == strconv.Itoa(n) {
			high = min(n, maxPasteN)
		}
	}
	return high
}

func pasteName(n int) string { return fmt.Sprintf("paste-%d.txt", n) }

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
