package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// errLockMoved says that the lock file changed under a cleaner trying to
// take it: the name it opened was removed or now names another file. The
// cleaner tries once more from the start.
var errLockMoved = errors.New("cleanup lock moved")

// maxLockAttempts bounds how often a cleaner tries to take the cleanup
// lock: once, and once more after it broke a stale lock or the lock moved
// under it (a cleaner finishing at that moment). Then it gives up with
// ErrCleanupBusy: Clean never waits.
const maxLockAttempts = 2

// A cleanupLock is a root's cleanup lock, held: an exclusive flock on the
// file <root>/.cleanup.lock.
//
// Its lifetime: a cleaner creates the file (O_CREATE|O_EXCL|O_NOFOLLOW,
// 0600) and flocks it before it reads the root, and holds it until its last
// removal is done. Then release removes the file, if its name still
// denotes the file locked, and only then lets the flock go: a cleaner that
// opened the old file meanwhile and locks it afterwards finds the name
// gone and starts again. The descriptor is close-on-exec, so the command
// pbwrap runs never inherits the lock.
//
// The flock dies with its process; the file does not. So a cleaner that
// finds the file but can lock it knows the cleaner that made it died, and
// takes the lock over (after checking that the name still denotes the
// file it locked), refreshing its mtime. A file whose flock is held and
// whose mtime is more than StaleCleanupLock old belongs to a cleaner that
// is stuck, such as a pbwrap stopped with Ctrl-Z in the middle of its
// start-up cleanup: the next cleaner removes the name and creates a new
// lock. Should the stuck cleaner go on, its release finds the name taken by
// another file and leaves it alone.
//
// The lock spares cleaners from doing the same work twice and keeps their
// reports apart; it is not what keeps a session safe. A live session is
// safe because its own .lock is probed before anything in it is removed,
// and two cleaners removing the same old session at once (one whose lock
// was broken, say) do no harm: each removal tolerates the other's.
type cleanupLock struct {
	f    *os.File
	fi   fs.FileInfo // of f, to tell whether the name still denotes it
	path string
}

// lockCleanup takes the cleanup lock of root, or returns ErrCleanupBusy
// when another cleaner holds it, without waiting. now decides whether a
// held lock is stale.
func lockCleanup(root string, now time.Time) (*cleanupLock, error) {
	path := filepath.Join(root, CleanupLockName)
	for range maxLockAttempts {
		l, err := tryLockCleanup(path, now)
		if !errors.Is(err, errLockMoved) {
			return l, err
		}
	}
	return nil, ErrCleanupBusy
}

// tryLockCleanup makes one attempt at the lock file path: create it, or
// take it over, or break it. It returns errLockMoved when the caller should
// try again.
func tryLockCleanup(path string, now time.Time) (*cleanupLock, error) {
	f, created, err := openCleanupLock(path)
	if err != nil {
		return nil, err
	}
	return lockOpened(f, path, created, now)
}

// openCleanupLock creates the lock file path, or opens the existing one.
// It returns errLockMoved when the file went away in between.
func openCleanupLock(path string) (f *os.File, created bool, err error) {
	f, err = openNoFollow(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, filePerm)
	if err == nil {
		return f, true, nil
	}
	if errors.Is(err, fs.ErrExist) {
		f, err = openExisting(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, errLockMoved // Released since.
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: lock cleanup: %w", err)
	}
	return f, false, nil
}

// lockOpened takes the lock on f, opened (or created, if created) as the
// lock file path, breaks it if it is stale, or reports it busy. It closes
// f unless it returns the lock.
func lockOpened(f *os.File, path string, created bool, now time.Time) (*cleanupLock, error) {
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close() // Best effort: only opened.
		return nil, fmt.Errorf("store: lock cleanup: %w", err)
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close() // Best effort: only opened.
		return nil, fmt.Errorf("store: lock cleanup %s: not a regular file", path)
	}
	err = flock(f, lockExclusive)
	switch {
	case isWouldBlock(err) && !created && now.Sub(fi.ModTime()) > StaleCleanupLock:
		_ = f.Close() // Best effort: not locked.
		if err := removeIfSame(path, fi); err != nil {
			return nil, err
		}
		return nil, errLockMoved
	case isWouldBlock(err):
		// Held by a live cleaner; or, for a file just created, by one that
		// took it over before it was locked here.
		_ = f.Close() // Best effort: not locked.
		return nil, ErrCleanupBusy
	case err != nil:
		_ = f.Close() // Best effort: not locked.
		if created {
			_ = removeIfSame(path, fi) // Best effort: an unheld file is taken over anyway.
		}
		return nil, fmt.Errorf("store: lock cleanup: %w", err)
	}
	if cur, err := os.Lstat(path); err != nil || !os.SameFile(fi, cur) {
		// Locked a file that a finishing or stale-breaking cleaner removed.
		_ = f.Close() // Best effort: the file is no one's lock now.
		return nil, errLockMoved
	}
	if !created {
		// Taken over from a cleaner that died. Best effort: a lock that
		// looks old may be broken by the next cleaner, which is harmless.
		_ = touch(path)
	}
	return &cleanupLock{f: f, fi: fi, path: path}, nil
}

// release removes the lock file and then releases the flock, in that order
// (see cleanupLock). The file is removed only if its name still denotes
// the file locked: after a stale lock was broken, the name is another
// cleaner's.
func (l *cleanupLock) release() error {
	err := removeIfSame(l.path, l.fi)
	// Closing the descriptor releases the lock; unlocking first releases it
	// even if a copy of the descriptor lives on somewhere.
	uerr := flock(l.f, lockUnlock)
	if cerr := l.f.Close(); uerr == nil {
		uerr = cerr
	}
	if err == nil && uerr != nil {
		err = fmt.Errorf("store: unlock cleanup: %w", uerr)
	}
	return err
}

// removeIfSame removes the file at path if it is the one fi describes.
func removeIfSame(path string, fi fs.FileInfo) error {
	cur, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: remove: %w", err)
	}
	if !os.SameFile(fi, cur) {
		return nil
	}
	if err := unlink(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: remove %s: %w", path, err)
	}
	return nil
}
