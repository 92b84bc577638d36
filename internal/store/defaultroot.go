package store

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// DefaultRoot returns the root used when none is configured: on Linux and
// the BSDs $XDG_STATE_HOME/pbwrap (~/.local/state/pbwrap), on macOS
// ~/Library/Caches/pbwrap, and $TMPDIR/pbwrap-<uid> when there is no home
// directory of the user's to put it in (see defaultRoot). It is always an
// absolute path: a relative $XDG_STATE_HOME, $HOME or $TMPDIR is ignored.
func DefaultRoot() string {
	return defaultRoot(systemRootEnv())
}

// LegacyRoot returns the default root of earlier builds of pbwrap,
// $TMPDIR/pbwrap-<uid>, when it is not DefaultRoot's answer (on macOS, and
// without a home directory, they are one): the root whose sessions pbwrap
// list and show still read, and the start-up cleanup still ages, until
// they expire. "" when there is none.
func LegacyRoot() string {
	return legacyRoot(systemRootEnv())
}

// A rootEnv is what the default root is chosen from: the system, the
// user, their environment, and who owns what.
type rootEnv struct {
	goos     string
	uid      int
	home     string // $HOME
	xdgState string // $XDG_STATE_HOME
	tmpDir   string // $TMPDIR, or the system's default
	// owner returns the nearest existing directory of an absolute path
	// and the uid owning it (following symlinks), and false when it
	// cannot tell.
	owner func(path string) (nearest string, uid int, ok bool)
}

func systemRootEnv() rootEnv {
	return rootEnv{
		goos:     runtime.GOOS,
		uid:      os.Geteuid(),
		home:     os.Getenv("HOME"),
		xdgState: os.Getenv("XDG_STATE_HOME"),
		tmpDir:   os.TempDir(),
		owner:    nearestOwner,
	}
}

// nearestOwner is rootEnv.owner on this system.
func nearestOwner(path string) (string, int, bool) {
	nearest := fsutil.NearestExisting(path)
	fi, err := os.Stat(nearest)
	if err != nil {
		return nearest, 0, false
	}
	uid, err := ownerUID(fi)
	return nearest, uid, err == nil
}

// defaultRoot chooses the default root in e.
//
// A saved paste must live as long as the conversation that cites it, and
// agents keep conversations for weeks and resume them after a reboot. So
// the root is where the XDG base directory specification puts data that
// "should persist between (application) restarts, but that is not
// important or portable enough to the user that it should be stored in
// $XDG_DATA_HOME": $XDG_STATE_HOME, ~/.local/state when unset. Not
// $XDG_CACHE_HOME, "non-essential (cached) data", which users and cleaning
// tools empty at will, and which holds what can be made again, when a
// paste cannot; not $XDG_DATA_HOME, which users back up and carry to other
// machines, as pastes (logs, keys, what a terminal held) should not be.
// The temporary directory is emptied at boot on most systems.
//
// On macOS the root stays ~/Library/Caches/pbwrap, for the same reason by
// that system's rules: the system empties ~/Library/Caches neither at boot
// nor by age, as it does $TMPDIR and /tmp (after 3 days). ~/Library/
// Application Support, Apple's place for data, would put a space in every
// reference an agent must read back whole, and moving the root would
// strand what is saved there for no gain in how long it lives.
//
// A base directory must be absolute (the specification says to ignore a
// relative one), and the user's: the nearest part of it that exists must
// belong to the user, and be neither the filesystem root nor, for one in
// the home directory, above it. Otherwise (sudo keeping $HOME, a home of
// /nonexistent) pbwrap would make directories where they do not belong,
// or that the user does not own. Then, and without any base, the root is
// the temporary directory's, one per user (see tempRoot).
func defaultRoot(e rootEnv) string {
	var base, within string
	switch {
	case e.goos == "darwin" && filepath.IsAbs(e.home):
		base, within = filepath.Join(e.home, "Library", "Caches"), e.home
	case e.goos == "darwin":
	case filepath.IsAbs(e.xdgState):
		base = e.xdgState
	case filepath.IsAbs(e.home):
		base, within = filepath.Join(e.home, ".local", "state"), e.home
	}
	if base == "" {
		return tempRoot(e)
	}
	base = filepath.Clean(base)
	nearest, uid, ok := e.owner(base)
	switch {
	case !ok || uid != e.uid || filepath.Dir(nearest) == nearest:
	case within != "" && !fsutil.Within(filepath.Clean(within), nearest):
	default:
		return filepath.Join(base, "pbwrap")
	}
	return tempRoot(e)
}

// legacyRoot is LegacyRoot in e.
func legacyRoot(e rootEnv) string {
	if e.goos == "darwin" {
		return "" // Its default root has always been the cache directory.
	}
	if old := tempRoot(e); old != defaultRoot(e) {
		return old
	}
	return ""
}

// tempRoot is the root in the temporary directory, one per user so that
// users sharing /tmp never share a root. A relative temporary directory is
// taken for /tmp, which is what the C library does with a $TMPDIR it
// cannot use.
func tempRoot(e rootEnv) string {
	tmp := e.tmpDir
	if !filepath.IsAbs(tmp) {
		tmp = fallbackTempDir
	}
	return filepath.Join(tmp, fmt.Sprintf("pbwrap-%d", e.uid))
}

// fallbackTempDir is the temporary directory when $TMPDIR is not an
// absolute path: P_tmpdir of the C library on the systems pbwrap runs on.
const fallbackTempDir = "/tmp"
