// Package store keeps saved pastes on disk: the root directory and its
// safety checks, one directory per pbwrap session, no-overwrite atomic
// writes, the session manifest, and the lock that marks a session live.
// It knows nothing of escape sequences or terminals.
//
// The layout under the root is
//
//	<root>/<session-uuidv7>/.lock          flock held while the session runs
//	<root>/<session-uuidv7>/manifest.json  metadata only, never paste text (0600)
//	<root>/<session-uuidv7>/paste-<n>.txt  saved pastes (0600)
//	<root>/<session-uuidv7>/.tmp-*         files being written
//	<root>/<session-uuidv7>/debug.log      pbwrap's log with PBWRAP_DEBUG=1 and no --log
//	<root>/.cleanup.lock                   held while a cleaner removes expired sessions
//	<root>/.counters.json                  pastes per agent and day since the first, for pbwrap stats (0600)
//	<root>/.counters.lock                  flock held while the counters are updated
//	<root>/.removals.json                  the sessions a cleaner removed, when and why, for pbwrap show (0600)
//
// The root and session directories are 0700. Every file is first written
// under a temp name in the directory it ends up in, synced, then given its
// final name: link(2) for pastes, which fails rather than overwrite, and
// rename(2) for the manifest, which is replaced as a whole. Then the
// directory is synced.
//
// The root's safety rules are written once, as a table (rootRules), which
// OpenRoot, ListSessions, Cleaner.Clean and CheckRoot all run; they differ
// only in what they do when the root fails a check: OpenRoot creates a
// missing root and tightens one open to group or others; listing and
// cleaning change nothing, and refuse a root that group or others can
// write to; CheckRoot reports.
//
// A session that saved nothing is removed when it ends (Session.End). A
// Cleaner removes the sessions that no pbwrap runs and nothing has written
// to for longer than a TTL, and only what pbwrap made in them, and from
// the ended sessions it keeps, the temp files a crash left; then, while
// the sessions hold more than a cap, the ended ones written to longest
// ago. It records each removal and why (FindRemoval). ListSessions
// describes the sessions and CheckRoot the root, changing nothing.
//
// Nothing an agent can touch is trusted, and agents can write in the root:
// a session checks the root and its own directory before each write
// (Session.Check; ErrSessionGone when the directory was removed, so that
// the caller, or an Opener for it, can make it again), reuses a paste file only if it still
// holds the text, and ReadManifest checks every value of a manifest it
// reads, within a size limit.
//
// Every failure is an error that names the operation and the path: the
// caller delivers the paste inline instead and logs why.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ErrUnsafeRoot is wrapped by the error of OpenRoot, ListSessions and
// Cleaner.Clean when the root must not hold pastes (a symlink, not a
// directory, another user's, a path a reference cannot carry), or, for
// listing and cleaning, when group or others can write to it. pbwrap then
// refuses to store, list or clean rather than weaken the root.
var ErrUnsafeRoot = errors.New("unsafe root")

const (
	// dirPerm is for the root and session directories: only the user may
	// list them, so no one else learns the names of the pastes.
	dirPerm = 0o700

	// filePerm is for pastes, the manifest and the lock: only the user may
	// read what was pasted.
	filePerm = 0o600

	// groupOtherPerm are the permission bits OpenRoot removes from a root
	// that has them, and that fail CheckRoot's "private (mode 0700)".
	groupOtherPerm = 0o077

	// tempPrefix starts the name of every file still being written, so that
	// listing skips them and cleanup can remove the ones a crash left.
	tempPrefix = ".tmp-"

	// lockName is the file a live session holds an flock on.
	lockName = ".lock"

	// manifestName is the session's metadata file.
	manifestName = "manifest.json"
)

// A Root is a checked root directory, ready to hold sessions.
type Root struct {
	// Path is absolute and, when it came from ResolveRoot, free of symlinks:
	// the path references carry.
	Path string
}

// ResolveRoot makes root absolute and resolves the symlinks in its parent
// directories, but not in the root's own last element, which OpenRoot
// refuses if it is a symlink. On macOS, /tmp/pbwrap-501 becomes
// /private/tmp/pbwrap-501. Parents that do not exist yet are kept as
// written (OpenRoot creates them). The result is the path references
// carry, since agents compare paths as text.
func ResolveRoot(root string) (string, error) {
	if root == "" {
		return "", errors.New("store: resolve root: empty path")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("store: resolve root %s: %w", root, err)
	}
	parent, err := resolveExisting(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("store: resolve root %s: %w", abs, err)
	}
	return filepath.Join(parent, filepath.Base(abs)), nil
}

// resolveExisting resolves the symlinks in the longest prefix of the
// absolute path dir that exists and appends the rest unchanged.
func resolveExisting(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		return real, nil
	}
	parent := filepath.Dir(dir)
	if !errors.Is(err, fs.ErrNotExist) || parent == dir {
		return "", err
	}
	real, err = resolveExisting(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(real, filepath.Base(dir)), nil
}

// OpenRoot checks and prepares the root directory at the absolute path,
// when a session starts, running the root's safety rules (rootRules). It
// creates a missing root (and missing parents) with mode 0700. It refuses,
// with an error wrapping ErrUnsafeRoot that says why, a root that is a
// symlink, is not a directory, is owned by another user, is the filesystem
// root, or whose path a reference cannot carry (relative; a control
// character: a newline typed into the agent would submit its prompt; or
// bytes that are not UTF-8). A root that is the user's but open to group
// or others is tightened: those permission bits are removed, through a
// descriptor of the directory checked.
//
// The root's own last element is never followed if it is a symlink.
func OpenRoot(path string) (*Root, error) {
	p := newRootProbe(path)
	if err := p.enforce(onOpen); err != nil {
		return nil, err
	}
	return &Root{Path: p.path}, nil
}
