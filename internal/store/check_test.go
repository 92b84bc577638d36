package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pathCheckNames are the checks CheckRoot runs on every path, in order.
var pathCheckNames = []string{
	"path is absolute",
	"path is valid UTF-8",
	"path has no control characters",
	"path is not the filesystem root",
	"path is not your home directory or above it",
}

func TestCheckRoot(t *testing.T) {
	dir := realDir(t)
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	mkdir := func(name string, perm os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.Mkdir(path, perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, perm); err != nil { // past the umask
			t.Fatal(err)
		}
		return path
	}
	good := mkdir("good", 0o700)
	open := mkdir("open", 0o755)
	othersWrite := mkdir("others-write", 0o703)
	groupOnly := mkdir("group-only", 0o750)
	readOnly := mkdir("read-only", 0o500)
	symlink, file := symlinkAndFile(t, dir, good)
	uid := os.Geteuid()

	type want struct {
		name   string
		ok     bool
		detail string // a part of it
		fix    string // a part of it
	}
	ok := func(name string) want { return want{name: name, ok: true} }
	pathOK := []want{ok(pathCheckNames[0]), ok(pathCheckNames[1]), ok(pathCheckNames[2]), ok(pathCheckNames[3]),
		ok(pathCheckNames[4])}
	tests := []struct {
		name, path string
		want       []want
	}{
		{"good", good, append(slices.Clone(pathOK), ok("exists"), ok("is a directory, not a symlink"),
			want{"owned by you", true, fmt.Sprintf("uid %d", uid), ""}, want{"private (mode 0700)", true, "mode 0700", ""})},
		{"read-only but private", readOnly, append(slices.Clone(pathOK), ok("exists"), ok("is a directory, not a symlink"),
			ok("owned by you"), want{"private (mode 0700)", true, "mode 0500", ""})},
		{"0755", open, append(slices.Clone(pathOK), ok("exists"), ok("is a directory, not a symlink"), ok("owned by you"),
			want{"private (mode 0700)", false, "mode 0755: group and others can read and enter it", "chmod 700 " + open})},
		{"0703", othersWrite, append(slices.Clone(pathOK), ok("exists"), ok("is a directory, not a symlink"), ok("owned by you"),
			want{"private (mode 0700)", false, "mode 0703: others can write and enter it", "chmod 700 " + othersWrite})},
		{"0750", groupOnly, append(slices.Clone(pathOK), ok("exists"), ok("is a directory, not a symlink"), ok("owned by you"),
			want{"private (mode 0700)", false, "mode 0750: group can read and enter it", "chmod 700 " + groupOnly})},
		{"symlink", symlink, append(slices.Clone(pathOK), ok("exists"),
			want{"is a directory, not a symlink", false, "is a symlink to " + good, "rm " + symlink})},
		{"file", file, append(slices.Clone(pathOK), ok("exists"),
			want{"is a directory, not a symlink", false, "is a regular file", "--root"})},
		{"missing", filepath.Join(dir, "missing", "root"), append(slices.Clone(pathOK),
			want{"exists", true, "not yet: pbwrap creates it", ""})},
		{"under a file", filepath.Join(file, "root"), append(slices.Clone(pathOK),
			want{"exists", false, "not a directory", "check the directories above"})},
		{"relative", "relative/root", []want{{pathCheckNames[0], false, "relative", "--root"},
			ok(pathCheckNames[1]), ok(pathCheckNames[2]), ok(pathCheckNames[3]), ok(pathCheckNames[4])}},
		{"newline", filepath.Join(dir, "new\nline"), []want{ok(pathCheckNames[0]), ok(pathCheckNames[1]),
			{pathCheckNames[2], false, "control character", "PBWRAP_ROOT"}, ok(pathCheckNames[3]), ok(pathCheckNames[4])}},
		{"not UTF-8", filepath.Join(dir, "bad\xff"), []want{ok(pathCheckNames[0]),
			{pathCheckNames[1], false, "not UTF-8", "--root"}, ok(pathCheckNames[2]), ok(pathCheckNames[3]),
			ok(pathCheckNames[4])}},
		{"filesystem root", "/", []want{ok(pathCheckNames[0]), ok(pathCheckNames[1]), ok(pathCheckNames[2]),
			{pathCheckNames[3], false, "filesystem root", "--root"}, {pathCheckNames[4], false, "home directory", "--root"}}},
		// Issue 28: PBWRAP_ROOT=$HOME made the hook take ~/.ssh/id_ed25519
		// for a paste.
		{"home", home, []want{ok(pathCheckNames[0]), ok(pathCheckNames[1]), ok(pathCheckNames[2]),
			ok(pathCheckNames[3]), {pathCheckNames[4], false, "is your home directory or above it", "--root"}}},
		{"home, spelt with a slash", home + "/", []want{ok(pathCheckNames[0]), ok(pathCheckNames[1]),
			ok(pathCheckNames[2]), ok(pathCheckNames[3]), {pathCheckNames[4], false, "home directory", "--root"}}},
		{"above home", dir, []want{ok(pathCheckNames[0]), ok(pathCheckNames[1]), ok(pathCheckNames[2]),
			ok(pathCheckNames[3]), {pathCheckNames[4], false, "home directory", "--root"}}},
		{"below home", filepath.Join(home, ".local", "state", "pbwrap"), append(slices.Clone(pathOK),
			want{"exists", true, "not yet: pbwrap creates it", ""})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			got := CheckRoot(tc.path)
			checkSame(t, before, snapshot(t, dir))
			if len(got) != len(tc.want) {
				t.Fatalf("CheckRoot(%q) = %d checks, want %d:\n%s", tc.path, len(got), len(tc.want), formatChecks(got))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Name != w.name || g.OK != w.ok || !strings.Contains(g.Detail, w.detail) || !strings.Contains(g.Fix, w.fix) {
					t.Errorf("CheckRoot(%q) check %d = %+v, want %+v", tc.path, i, g, w)
				}
				if !g.OK && (g.Fix == "" || strings.Contains(g.Fix, "\n")) {
					t.Errorf("CheckRoot(%q) check %q failed with no one-line fix: %q", tc.path, g.Name, g.Fix)
				}
			}
		})
	}
}

func TestCheckRootOtherOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	path := filepath.Join(realDir(t), "root")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	checks := CheckRoot(path)
	i := slices.IndexFunc(checks, func(c RootCheck) bool { return c.Name == "owned by you" })
	if i < 0 || checks[i].OK || !strings.Contains(checks[i].Detail, "owned by uid 12345") || checks[i].Fix == "" {
		t.Errorf("CheckRoot of another user's root:\n%s\nwant %q failed saying %q", formatChecks(checks), "owned by you", "owned by uid 12345")
	}
}

// CheckRoot fails a check (other than privacy, which OpenRoot repairs)
// exactly when the root is refused; a root others can write to is also
// refused for cleaning and listing until OpenRoot has tightened it.
func TestCheckRootAgreesWithOpenRoot(t *testing.T) {
	dir := realDir(t)
	good := filepath.Join(dir, "good")
	open := filepath.Join(dir, "open")
	for _, d := range []string{good, open} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	symlink, file := symlinkAndFile(t, dir, good)
	paths := []string{good, open, symlink, file, filepath.Join(file, "x"), filepath.Join(dir, "missing"), "/",
		"relative", filepath.Join(dir, "tab\there"), filepath.Join(dir, "bad\xfe")}
	for _, path := range paths {
		_, err := checkExistingRoot(path)
		if path == open {
			if !errors.Is(err, ErrUnsafeRoot) {
				t.Errorf("%q (mode 0777): checkExistingRoot says %v, want it refused", path, err)
			}
			continue
		}
		refused := err != nil
		failed := slices.ContainsFunc(CheckRoot(path), func(c RootCheck) bool { return !c.OK && c.Name != "private (mode 0700)" })
		if refused != failed {
			t.Errorf("%q: checkExistingRoot says %v, CheckRoot:\n%s", path, err, formatChecks(CheckRoot(path)))
		}
		if errors.Is(err, ErrUnsafeRoot) {
			if _, oerr := OpenRoot(path); !errors.Is(oerr, ErrUnsafeRoot) {
				t.Errorf("%q: refused as unsafe without creating (%v), but OpenRoot says %v", path, err, oerr)
			}
		}
	}
	if _, err := OpenRoot(open); err != nil {
		t.Fatalf("OpenRoot of a 0777 root: %v", err)
	}
	if _, err := checkExistingRoot(open); err != nil {
		t.Errorf("after OpenRoot tightened it: %v", err)
	}
}

// checkExistingRoot runs the rules for listing and cleaning, as
// openExistingRoot does, and reports whether the root exists.
func checkExistingRoot(path string) (exists bool, err error) {
	d, err := openExistingRoot(path)
	if d != nil {
		d.Close()
	}
	return d != nil, err
}

func formatChecks(checks []RootCheck) string {
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "\t%+v\n", c)
	}
	return b.String()
}

func TestCheckRootCannotCreate(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root can create a directory anywhere the filesystem allows")
	}
	parent := filepath.Join(realDir(t), "parent")
	if err := os.Mkdir(parent, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(parent, 0o700) })
	path := filepath.Join(parent, "missing", "root")
	checks := CheckRoot(path)
	last := checks[len(checks)-1]
	if last.Name != "exists" || last.OK || !strings.Contains(last.Detail, "cannot be created in "+parent) || last.Fix == "" {
		t.Errorf("CheckRoot(%q) under a 0500 directory:\n%s\nwant %q failed saying it cannot be created in %s", path, formatChecks(checks), "exists", parent)
	}
}

// UsableRoot is how a directory named by a flag, the environment or the
// config file becomes a root pbwrap hook reads: only when it passes the
// rules, and a missing one holds nothing.
func TestUsableRoot(t *testing.T) {
	dir := realDir(t)
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	mk := func(name string, perm os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, writable := mk("home/.local/state/pbwrap", 0o700), mk("writable", 0o777)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want error // nil, ErrUnsafeRoot or fs.ErrNotExist
	}{
		{good, nil},
		{filepath.Join(dir, "missing"), os.ErrNotExist},
		{home, ErrUnsafeRoot},
		{dir, ErrUnsafeRoot},
		{writable, ErrUnsafeRoot},
		{link, ErrUnsafeRoot},
		{"relative", ErrUnsafeRoot},
		{"/", ErrUnsafeRoot},
	} {
		err := UsableRoot(tt.path)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("UsableRoot(%q) = %v, want %v", tt.path, err, tt.want)
		}
	}
}
