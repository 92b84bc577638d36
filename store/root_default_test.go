package store

import (
	"path/filepath"
	"testing"
)

// The default root: the temporary directory, per user, except on macOS,
// which empties it of files not accessed for 3 days.
func TestDefaultRootBySystem(t *testing.T) {
	for _, tc := range []struct {
		goos, tmp, cache string
		want             string
	}{
		{"linux", "/tmp", "/home/ann/.cache", "/tmp/pbwrap-501"},
		{"freebsd", "/var/tmp", "/home/ann/.cache", "/var/tmp/pbwrap-501"},
		{"darwin", "/var/folders/x7/abc/T/", "/Users/ann/Library/Caches", "/Users/ann/Library/Caches/pbwrap"},
		{"darwin", "/var/folders/x7/abc/T/", "", "/var/folders/x7/abc/T/pbwrap-501"}, // No $HOME.
		// A relative $TMPDIR or $HOME is not used: the root must be absolute
		// (review finding 2: TMPDIR=rel made every command panic).
		{"linux", "rel", "/home/ann/.cache", "/tmp/pbwrap-501"},
		{"linux", "", "", "/tmp/pbwrap-501"},
		{"freebsd", "./tmp", "/home/ann/.cache", "/tmp/pbwrap-501"},
		{"darwin", "/var/folders/x7/abc/T/", "rel/Library/Caches", "/var/folders/x7/abc/T/pbwrap-501"},
		{"darwin", "rel", "rel/Library/Caches", "/tmp/pbwrap-501"},
	} {
		if got := defaultRoot(tc.goos, tc.tmp, tc.cache, 501); got != tc.want {
			t.Errorf("defaultRoot(%q, %q, %q, 501) = %q, want %q", tc.goos, tc.tmp, tc.cache, got, tc.want)
		}
	}
}

// DefaultRoot is absolute whatever $TMPDIR and $HOME hold (review finding
// 2: a relative TMPDIR gave a relative default, which pbwrap refused).
func TestDefaultRootAbsolute(t *testing.T) {
	for _, env := range [][2]string{{"rel", "/home/ann"}, {"/tmp", "rel"}, {"rel", "rel"}, {"", ""}} {
		t.Setenv("TMPDIR", env[0])
		t.Setenv("HOME", env[1])
		t.Setenv("XDG_CACHE_HOME", "")
		if got := DefaultRoot(); !filepath.IsAbs(got) {
			t.Errorf("TMPDIR=%q HOME=%q: DefaultRoot() = %q, want an absolute path", env[0], env[1], got)
		}
	}
}
