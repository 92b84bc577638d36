package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// probePrefix names the directory TrySave makes in place of a root that
// does not exist yet.
const probePrefix = ".pbwrap-doctor-"

// TrySave saves a test paste of size bytes in the root at path as a
// session saves one, for pbwrap doctor, and takes it all away again: it
// makes a session directory with its lock (flock) and manifest, writes the
// paste to a temp file, syncs it, links it to its paste name, syncs the
// directory, writes the manifest again durably (rename, sync), then
// removes the paste and ends the session, which leaves nothing. So it
// fails exactly where saving a paste would: a read-only file system, a
// full disk, no free inodes, a quota, a directory the user cannot write
// in, an immutable attribute, no file locks, an I/O error. Its error
// names what failed; store.Why says it in a few words.
//
// The root must have passed CheckRoot. A root that does not exist yet is
// not made: the same is done in a directory made for the purpose where it
// would be made (in its nearest parent that exists) and removed after.
// The session is recorded nowhere (no counters, no removals), and a run of
// pbwrap list at that moment may see it, as a session that saved nothing.
func TrySave(path string, size int) (err error) {
	root := filepath.Clean(path)
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		parent := fsutil.NearestExisting(filepath.Dir(root))
		dir, err := os.MkdirTemp(parent, probePrefix)
		if err != nil {
			return fmt.Errorf("store: try saving: create the root in %s: %w", parent, err)
		}
		defer func() {
			if rerr := os.Remove(dir); rerr != nil && err == nil {
				err = fmt.Errorf("store: try saving: %w", rerr)
			}
		}()
		root = dir
	}
	r, err := OpenRoot(root)
	if err != nil {
		return err
	}
	id, err := NewSessionID()
	if err != nil {
		return err
	}
	s, err := r.NewSession(id, Meta{PID: os.Getpid(), Argv0: "pbwrap doctor", Start: time.Now()})
	if err != nil {
		return err
	}
	defer func() {
		if eerr := s.End(); eerr != nil && err == nil {
			err = eerr
		}
	}()
	return trySaveIn(s, size)
}

// trySaveIn saves the test paste in s, then removes it.
func trySaveIn(s *Session, size int) error {
	t, err := s.CreateTemp()
	if err != nil {
		return err
	}
	text := bytes.Repeat([]byte("pbwrap doctor tries saving a paste\n"), size/35+1)[:size]
	if _, err := t.Write(text); err != nil {
		_ = t.Discard() // Best effort: End keeps a session with a temp file in it.
		return fmt.Errorf("store: try saving: %w", err)
	}
	sum := sha256.Sum256(text)
	_, path, _, err := s.CommitPaste(t, hex.EncodeToString(sum[:]))
	if err != nil {
		_ = t.Discard() // Best effort, as above.
		return err
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("store: try saving: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeManifest(true)
}
