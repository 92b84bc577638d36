package store

import (
	"path/filepath"
	"testing"
)

// owners is a filesystem as defaultRoot sees it: the owner of each
// directory that exists. Its owner method finds the nearest one.
type owners map[string]int

func (o owners) owner(path string) (string, int, bool) {
	for {
		if uid, ok := o[path]; ok {
			return path, uid, true
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path, 0, false
		}
		path = parent
	}
}

// ann's machine: her home and its state directory are hers; / and /tmp
// are root's.
var annFS = owners{"/": 0, "/tmp": 0, "/home/ann": 501, "/home/ann/.local/state": 501, "/srv/state": 501, "/Users/ann": 501}

// The default root on each system, as data: XDG_STATE_HOME set, unset,
// relative; HOME unset, relative, another user's, missing; TMPDIR odd.
func TestDefaultRootBySystem(t *testing.T) {
	for _, tc := range []struct {
		goos, home, xdgState, tmp string
		uid                       int
		want                      string
	}{
		// The XDG base directory specification's state directory.
		{"linux", "/home/ann", "", "/tmp", 501, "/home/ann/.local/state/pbwrap"},
		{"freebsd", "/home/ann", "", "/var/tmp", 501, "/home/ann/.local/state/pbwrap"},
		{"linux", "/home/ann", "/srv/state", "/tmp", 501, "/srv/state/pbwrap"},
		{"linux", "/home/ann", "/srv/state/", "/tmp", 501, "/srv/state/pbwrap"},
		// Not made yet: its nearest existing parent is hers.
		{"linux", "/home/ann", "/home/ann/new/state", "/tmp", 501, "/home/ann/new/state/pbwrap"},
		// A relative XDG_STATE_HOME is ignored, as the specification says.
		{"linux", "/home/ann", "state", "/tmp", 501, "/home/ann/.local/state/pbwrap"},
		{"linux", "/home/ann", "./.local/state", "/tmp", 501, "/home/ann/.local/state/pbwrap"},
		// No home: the temporary directory, one root per user.
		{"linux", "", "", "/tmp", 501, "/tmp/pbwrap-501"},
		{"linux", "rel", "", "/tmp", 501, "/tmp/pbwrap-501"},
		{"linux", "", "/srv/state", "/tmp", 501, "/srv/state/pbwrap"},
		// A home that is not the user's: sudo keeping HOME, a daemon's
		// /nonexistent (whose nearest existing parent is /).
		{"linux", "/home/ann", "", "/tmp", 0, "/tmp/pbwrap-0"},
		{"linux", "/nonexistent", "", "/tmp", 501, "/tmp/pbwrap-501"},
		{"linux", "/home/ann", "/srv/state", "/tmp", 1000, "/tmp/pbwrap-1000"},
		// Nor one that does not exist, even for root, who owns /.
		{"linux", "/nonexistent", "", "/tmp", 0, "/tmp/pbwrap-0"},
		{"linux", "/", "", "/tmp", 0, "/tmp/pbwrap-0"},
		{"linux", "/home/ann", "/nonexistent/state", "/tmp", 0, "/tmp/pbwrap-0"},
		{"linux", "/home/ann", "/", "/tmp", 0, "/tmp/pbwrap-0"},
		{"darwin", "/nonexistent", "", "/var/folders/x7/abc/T/", 0, "/var/folders/x7/abc/T/pbwrap-0"},
		// A relative or empty TMPDIR, when it is needed, is /tmp.
		{"linux", "", "", "rel", 501, "/tmp/pbwrap-501"},
		{"freebsd", "rel", "", "./tmp", 501, "/tmp/pbwrap-501"},
		// macOS: the cache directory, which the system does not empty.
		{"darwin", "/Users/ann", "", "/var/folders/x7/abc/T/", 501, "/Users/ann/Library/Caches/pbwrap"},
		{"darwin", "/Users/ann", "/srv/state", "/var/folders/x7/abc/T/", 501, "/Users/ann/Library/Caches/pbwrap"},
		{"darwin", "", "", "/var/folders/x7/abc/T/", 501, "/var/folders/x7/abc/T/pbwrap-501"},
		{"darwin", "rel", "", "/var/folders/x7/abc/T/", 501, "/var/folders/x7/abc/T/pbwrap-501"},
		{"darwin", "/Users/ann", "", "/var/folders/x7/abc/T/", 0, "/var/folders/x7/abc/T/pbwrap-0"},
		{"darwin", "rel", "", "rel", 501, "/tmp/pbwrap-501"},
	} {
		e := rootEnv{goos: tc.goos, uid: tc.uid, home: tc.home, xdgState: tc.xdgState, tmpDir: tc.tmp, owner: annFS.owner}
		if got := defaultRoot(e); got != tc.want {
			t.Errorf("%s HOME=%q XDG_STATE_HOME=%q TMPDIR=%q uid %d: default root %q, want %q",
				tc.goos, tc.home, tc.xdgState, tc.tmp, tc.uid, got, tc.want)
		}
	}
}

// The root before the XDG default, $TMPDIR/pbwrap-<uid>, is the legacy
// root exactly when the default moved away from it.
func TestLegacyRoot(t *testing.T) {
	for _, tc := range []struct {
		goos, home string
		want       string
	}{
		{"linux", "/home/ann", "/tmp/pbwrap-501"},
		{"freebsd", "/home/ann", "/tmp/pbwrap-501"},
		{"linux", "", ""},            // The default is still there.
		{"darwin", "/Users/ann", ""}, // macOS kept its root.
		{"darwin", "", ""},
	} {
		e := rootEnv{goos: tc.goos, uid: 501, home: tc.home, tmpDir: "/tmp", owner: annFS.owner}
		if got := legacyRoot(e); got != tc.want {
			t.Errorf("%s HOME=%q: legacy root %q, want %q", tc.goos, tc.home, got, tc.want)
		}
	}
}

// DefaultRoot is absolute whatever the environment holds (review finding
// 2: a relative TMPDIR gave a relative default, which pbwrap refused).
func TestDefaultRootAbsolute(t *testing.T) {
	for _, env := range [][3]string{{"rel", "/home/ann", ""}, {"/tmp", "rel", "rel"}, {"rel", "rel", ""}, {"", "", ""}, {"", "", "x"}} {
		t.Setenv("TMPDIR", env[0])
		t.Setenv("HOME", env[1])
		t.Setenv("XDG_STATE_HOME", env[2])
		if got := DefaultRoot(); !filepath.IsAbs(got) {
			t.Errorf("TMPDIR=%q HOME=%q XDG_STATE_HOME=%q: DefaultRoot() = %q, want an absolute path", env[0], env[1], env[2], got)
		}
	}
}
