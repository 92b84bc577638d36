package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// DefaultRoot reads the system's directories from the environment (see
// TestDefaultRootBySystem for every system's choice).
func TestDefaultRoot(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", "/var/tmp/pbwrap-test-tmp")
	t.Setenv("HOME", home)
	for _, xdg := range []string{"", state} {
		t.Setenv("XDG_STATE_HOME", xdg)
		want, legacy := filepath.Join(home, ".local", "state", "pbwrap"), "/var/tmp/pbwrap-test-tmp/pbwrap-"+strconv.Itoa(os.Geteuid())
		switch {
		case runtime.GOOS == "darwin":
			want, legacy = filepath.Join(home, "Library", "Caches", "pbwrap"), ""
		case xdg != "":
			want = filepath.Join(state, "pbwrap")
		}
		if got := DefaultRoot(); got != want {
			t.Errorf("DefaultRoot() with HOME=%s XDG_STATE_HOME=%q = %q, want %q", home, xdg, got, want)
		}
		if got := LegacyRoot(); got != legacy {
			t.Errorf("LegacyRoot() with TMPDIR=/var/tmp/pbwrap-test-tmp = %q, want %q", got, legacy)
		}
	}
}

func TestResolveRoot(t *testing.T) {
	real := realDir(t)
	link := filepath.Join(realDir(t), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		root, want string
	}{
		{link + "/pbwrap-1", real + "/pbwrap-1"},
		{link + "/missing/parents/pbwrap-1", real + "/missing/parents/pbwrap-1"},
		{link + "/./x/../pbwrap-1", real + "/pbwrap-1"},
		// The root's own last element is kept, for OpenRoot to refuse.
		{link, link},
	}
	for _, tc := range tests {
		got, err := ResolveRoot(tc.root)
		if err != nil || got != tc.want {
			t.Errorf("ResolveRoot(%q) = %q, %v; want %q", tc.root, got, err, tc.want)
		}
	}
}

func TestResolveRootRelative(t *testing.T) {
	dir := realDir(t)
	t.Chdir(dir)
	got, err := ResolveRoot("sub/pbwrap-1")
	want := filepath.Join(dir, "sub", "pbwrap-1")
	if err != nil || got != want {
		t.Errorf("ResolveRoot(%q) in %s = %q, %v; want %q", "sub/pbwrap-1", dir, got, err, want)
	}
}

func TestResolveRootErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{"", file + "/x/pbwrap-1"} {
		got, err := ResolveRoot(root)
		if err == nil {
			t.Errorf("ResolveRoot(%q) = %q, want an error", root, got)
		}
	}
}

func TestOpenRootCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "parent", "root")
	r, err := OpenRoot(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != path {
		t.Errorf("Root.Path = %q, want %q", r.Path, path)
	}
	for _, p := range []string{path, filepath.Dir(path)} {
		if got := permOf(t, p); got != 0o700 {
			t.Errorf("mode of %s = %#o, want 0700", p, got)
		}
	}
	// Opening it again is fine.
	if _, err := OpenRoot(path); err != nil {
		t.Errorf("OpenRoot(%q) a second time: %v", path, err)
	}
}

func TestOpenRootTightens(t *testing.T) {
	for _, perm := range []fs.FileMode{0o755, 0o750, 0o707, 0o777, 0o700} {
		path := filepath.Join(t.TempDir(), "root")
		if err := os.Mkdir(path, perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, perm); err != nil { // past the umask
			t.Fatal(err)
		}
		if _, err := OpenRoot(path); err != nil {
			t.Errorf("OpenRoot of a %#o root: %v", perm, err)
			continue
		}
		if got := permOf(t, path); got != 0o700 {
			t.Errorf("OpenRoot of a %#o root left it %#o, want 0700", perm, got)
		}
	}
}

func TestOpenRootRefuses(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink, file := symlinkAndFile(t, dir, target)
	newline := filepath.Join(dir, "new\nline")
	if err := os.Mkdir(newline, 0o700); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, path, why string
	}{
		{"symlink", symlink, "is a symlink"},
		{"regular file", file, "is not a directory"},
		{"newline", newline, "contains a control character"},
		{"escape", filepath.Join(dir, "esc\x1b[2J"), "contains a control character"},
		{"C1 control", filepath.Join(dir, "csi\u009b"), "contains a control character"},
		{"not UTF-8", filepath.Join(dir, "bad\xff"), "is not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := OpenRoot(tc.path)
			if !errors.Is(err, ErrUnsafeRoot) {
				t.Fatalf("OpenRoot(%q) = %v, %v; want an error wrapping ErrUnsafeRoot", tc.path, r, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.why) || !strings.Contains(msg, strconv.Quote(tc.path)) {
				t.Errorf("OpenRoot(%q) error %q, want it to name the path and say %q", tc.path, msg, tc.why)
			}
		})
	}
	if got := permOf(t, target); got != 0o755 {
		t.Errorf("the symlink's target went from 0755 to %#o: OpenRoot followed the symlink", got)
	}
}

// The filesystem root is refused before anything touches it: as root,
// OpenRoot("/") would otherwise tighten / to 0700. Hence the checks of the
// path run first for every entry point, and this test calls the one that
// changes nothing, openExistingRoot; TestRootEntryPointsAgree shows that
// OpenRoot refuses what it refuses.
func TestCheckRootPathFilesystemRoot(t *testing.T) {
	for _, path := range []string{"/", "//"} {
		d, err := openExistingRoot(path)
		if d != nil {
			d.Close()
		}
		if !errors.Is(err, ErrUnsafeRoot) || !strings.Contains(err.Error(), "is the filesystem root") {
			t.Errorf("openExistingRoot(%q) = %v, want ErrUnsafeRoot saying %q", path, err, "is the filesystem root")
		}
	}
}

func TestOpenRootRelative(t *testing.T) {
	if r, err := OpenRoot("relative/root"); err == nil {
		t.Errorf("OpenRoot(%q) = %v, want an error: references must be absolute", "relative/root", r)
	}
}

// A root under a regular file (think /etc/passwd/x) is an error, not a
// panic, and the message names the path.
func TestOpenRootUnderFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{file + "/x", file + "/x/y"} {
		r, err := OpenRoot(path)
		if err == nil {
			t.Errorf("OpenRoot(%q) = %v, want an error", path, r)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("OpenRoot(%q) error %q does not name the path", path, err)
		}
	}
}

func TestOpenRootOtherOwner(t *testing.T) {
	// As root, give a new directory to another uid; as anyone else, use a
	// directory root owns (which OpenRoot could not change anyway).
	path, owner, perm := "/usr", 0, permOf(t, "/usr")
	if os.Getuid() == 0 {
		path, owner, perm = filepath.Join(t.TempDir(), "root"), 12345, 0o755
		if err := os.Mkdir(path, perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, owner, owner); err != nil {
			t.Fatal(err)
		}
	}
	why := fmt.Sprintf("owned by uid %d", owner)
	_, err := OpenRoot(path)
	if !errors.Is(err, ErrUnsafeRoot) || !strings.Contains(err.Error(), why) {
		t.Fatalf("OpenRoot(%s): %v, want ErrUnsafeRoot saying %q", path, err, why)
	}
	if got := permOf(t, path); got != perm {
		t.Errorf("OpenRoot changed another user's root %s from %#o to %#o", path, perm, got)
	}
}

// A root the user made read-only is not loosened; writing there fails
// with an error naming the path.
func TestReadOnlyRootByMode(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root ignores permission bits; TestReadOnlyFilesystem covers a read-only root")
	}
	path := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(path, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(path, 0o700) })
	r, err := OpenRoot(path)
	if err != nil {
		t.Fatal(err)
	}
	id := mustSessionID(t)
	if s, err := r.NewSession(id, Meta{}); err == nil {
		s.Close()
		t.Fatalf("NewSession in a 0500 root succeeded")
	} else if !strings.Contains(err.Error(), path) {
		t.Errorf("NewSession in a 0500 root: %q does not name the path", err)
	}
}

// symlinkAndFile makes in dir a symlink to target and an empty regular
// file, two things that are not a root, and returns their paths.
func symlinkAndFile(t *testing.T, dir, target string) (symlink, file string) {
	t.Helper()
	symlink = filepath.Join(dir, "symlink")
	if err := os.Symlink(target, symlink); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return symlink, file
}

// realDir returns a new temporary directory with symlinks resolved, for
// tests that compare a path they build with one the store resolved: on
// macOS t.TempDir is under /var, a symlink to /private/var.
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func permOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
