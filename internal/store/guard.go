package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Agents can write in the root (Claude Code gets it as a working directory): they can
// remove the root or a session directory, replace either with a symlink,
// and edit or replace a saved paste. Nothing the session finds there is
// trusted: before each write it checks the root and its own directory
// again (Check), and it reuses a paste file only after checking that it
// still holds the text (saved.holds).

// ErrSessionGone is wrapped by the error of Check, CreateTemp, CommitPaste
// and Record when the session directory is no longer the one NewSession
// made: it was removed (alone or with the root), or its name now denotes
// another directory, a symlink or a file, or the session's lock file in it
// was removed or replaced (a cleaner would take the session for an ended
// one). Nothing more is written in it. The caller may start a new session
// (Root.NewSession), under the same id when the name is free.
var ErrSessionGone = errors.New("session gone")

// Check reports whether the session can still be written to, as each
// write checks it: the root passes its safety rules as OpenRoot runs them
// (so a missing root is made again and a root open to group or others is
// tightened, while a symlink, a root that is not a directory or not the
// user's is refused, wrapping ErrUnsafeRoot), and the session directory is
// still the one NewSession made, holding the lock file whose flock the
// session holds (otherwise the error wraps ErrSessionGone). After Close,
// Check fails.
//
// Check makes a few lstat(2) calls: cheap enough to run before every
// paste.
func (s *Session) Check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checkLocked()
}

// checkLocked is Check, with s.mu held.
func (s *Session) checkLocked() error {
	if s.lock == nil {
		return fmt.Errorf("store: check session %s: %w", s.Dir, errSessionClosed)
	}
	if err := newRootProbe(s.root).enforce(onOpen); err != nil {
		return err
	}
	fi, err := os.Lstat(s.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sessionGone(s.Dir, "was removed")
	case err != nil:
		return fmt.Errorf("store: check session: %w", err)
	case !os.SameFile(fi, s.dirInfo):
		return sessionGone(s.Dir, "was replaced")
	}
	lock, err := os.Lstat(filepath.Join(s.Dir, lockName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sessionGone(s.Dir, "lost its lock file")
	case err != nil:
		return fmt.Errorf("store: check session: %w", err)
	case !os.SameFile(lock, s.lockInfo):
		return sessionGone(s.Dir, "had its lock file replaced")
	}
	return nil
}

func sessionGone(dir, why string) error {
	return fmt.Errorf("store: %w: %s %s", ErrSessionGone, dir, why)
}

// ownsDir reports whether the session's name still denotes the directory
// NewSession made.
func (s *Session) ownsDir() bool {
	fi, err := os.Lstat(s.Dir)
	return err == nil && os.SameFile(fi, s.dirInfo)
}

// holds reports whether the paste file p still holds the text whose
// sha256 (hex) is sum: its name opens, without following a symlink, the
// very file CommitPaste linked (same device and inode), a regular file of
// the size it had then, whose content, hashed again, has that sha256. The
// file is read once, through the descriptor checked, in io.Copy's small
// buffer, and never past its recorded size: memory stays flat and a file
// that grows under the hash costs no more than its size.
//
// A file with the same content under a new inode (copied, or written
// anew, by anyone) is not held: it is not the file pbwrap wrote, whoever
// made it may change it next, and the text is saved again to a file of its
// own. (A file made after the paste file was removed may get the same
// inode number; it then passes, as it holds the very text, hashed again.)
func (p saved) holds(sum string) bool {
	f, err := openExisting(p.path) // O_NOFOLLOW, and O_NONBLOCK should it now be a named pipe
	if err != nil {
		return false
	}
	defer f.Close() // Best effort: only read.
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, p.fi) || fi.Size() != p.fi.Size() {
		return false
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, p.fi.Size()+1))
	return err == nil && n == p.fi.Size() && hex.EncodeToString(h.Sum(nil)) == sum
}
