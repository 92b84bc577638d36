package store

import "testing"

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
	} {
		if got := defaultRoot(tc.goos, tc.tmp, tc.cache, 501); got != tc.want {
			t.Errorf("defaultRoot(%q, %q, %q, 501) = %q, want %q", tc.goos, tc.tmp, tc.cache, got, tc.want)
		}
	}
}
