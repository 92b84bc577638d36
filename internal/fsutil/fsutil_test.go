package fsutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWithin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the cases are written with Unix paths")
	}
	tests := []struct {
		dir, path string
		want      bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/", true},
		{"/a/b/", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/b/c/d", true},
		{"/a/b", "/a/b/..x", true}, // a name, not the parent
		{"/a/b", "/a/b/...", true},
		{"/a/b", "/a/b/c/..", true},
		{"/a/b", "/a/b/./c", true},
		{"/a/b", "/a/bc", false}, // a sibling sharing a prefix
		{"/a/b", "/a/b..", false},
		{"/a/b", "/a", false},
		{"/a/b", "/a/c", false},
		{"/a/b", "/a/b/..", false},
		{"/a/b", "/a/b/../c", false},
		{"/a/b", "/a/b/c/../../c", false},
		{"/a/b", "/", false},
		{"/", "/", true},
		{"/", "/a", true},
		{"//a", "/a/b", true},
		{"/a/./b", "/a/b/c", true},
		{"/a/b", "a/b/c", false}, // relative path
		{"a/b", "/a/b/c", false}, // relative dir
		{"a", "a/b", false},
		{"", "/a", false},
		{"/a", "", false},
	}
	for _, tc := range tests {
		if got := Within(tc.dir, tc.path); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.dir, tc.path, got, tc.want)
		}
	}
}

func TestNearestExisting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Skipf("symlink: %v", err)
	}
	tests := []struct {
		path, want string
	}{
		{dir, dir},
		{dir + "/", dir},
		{file, file},
		{filepath.Join(dir, "missing"), dir},
		{filepath.Join(dir, "missing", "deeper", "still"), dir},
		{filepath.Join(dir, "missing", "..", "file"), file},
		{filepath.Join(file, "under-a-file"), file},
		{dangling, dangling}, // Lstat finds the link itself.
		{filepath.Join(dangling, "x"), dangling},
		{filepath.Join(string(filepath.Separator), "pbwrap-surely-missing", "x"), string(filepath.Separator)},
	}
	for _, tc := range tests {
		if got := NearestExisting(tc.path); got != tc.want {
			t.Errorf("NearestExisting(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestNearestExistingRelative(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("sub", 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"sub/missing/x", "sub"},
		{"sub", "sub"},
		{"missing/x", "."},
		{"", "."},
	} {
		if got := NearestExisting(tc.path); got != tc.want {
			t.Errorf("NearestExisting(%q) in %s = %q, want %q", tc.path, dir, got, tc.want)
		}
	}
}
