package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A rootCase is a root for TestRootEntryPointsAgree: make sets it up in
// dir, holding one ended session where it can, and returns its path.
type rootCase struct {
	name   string
	broken string // the rule the root breaks, by its check's name; "" for none
	make   func(t *testing.T, dir string) string
}

// An entryPoint is one of the store's functions that run rootRules, run
// on a root the way a pbwrap command runs it, giving its verdict.
type entryPoint struct {
	name    string
	column  func(rootRule) action // its column of rootRules; nil for CheckRoot
	changes bool                  // it may change the root it uses
	run     func(t *testing.T, root string) string
}

// The verdicts of an entry point on a root.
const (
	refused   = "refused"   // an error wrapping ErrUnsafeRoot, nothing changed
	used      = "used"      // opened, listed or cleaned, the root's mode as it was
	tightened = "tightened" // opened, and the group and other bits removed
	passes    = "passes"    // every check CheckRoot reports passed
)

// Every entry point agrees with the others on the same roots, as rootRules
// says: each does what its column says for the rule the root breaks.
// Should an entry point check the root its own way, this fails.
func TestRootEntryPointsAgree(t *testing.T) {
	cases := []rootCase{
		{"0700", "", rootWithMode(0o700)},
		{"0750", "private (mode 0700)", rootWithMode(0o750)},
		{"0755", "private (mode 0700)", rootWithMode(0o755)},
		{"0775", "private (mode 0700)", rootWithMode(0o775)},
		{"0777", "private (mode 0700)", rootWithMode(0o777)},
		{"0703", "private (mode 0700)", rootWithMode(0o703)},
		{"symlink to a good root", "is a directory, not a symlink", symlinkRoot},
		{"regular file", "is a directory, not a symlink", fileRoot},
		{"foreign owner", "owned by you", foreignRoot},
		{"control character", "path has no control characters", renamedRoot("ctl\x07root")},
		{"newline", "path has no control characters", renamedRoot("new\nline")},
		{"not UTF-8", "path is valid UTF-8", renamedRoot("bad\xffroot")},
		{"relative", "path is absolute", relativeRoot},
	}
	entries := []entryPoint{
		{"OpenRoot", onOpen, true, runOpenRoot},
		{"ListSessions", onRead, false, runListSessions},
		{"Clean dry run", onRead, false, runClean(true)},
		{"Clean", onRead, true, runClean(false)},
		{"CheckRoot", nil, false, runCheckRoot},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-24s", "root")
	for _, e := range entries {
		fmt.Fprintf(&table, " %-18s", e.name)
	}
	for _, c := range cases {
		fmt.Fprintf(&table, "\n%-24q", c.name)
		for _, e := range entries {
			var got, want string
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				dir := realDir(t)
				root := c.make(t, dir)
				want = wantVerdict(t, c, e, permOf(t, root)&writePerm != 0)
				before := snapshot(t, dir)
				got = e.run(t, root)
				if got == refused || !e.changes {
					checkSame(t, before, snapshot(t, dir))
				}
				if got != want {
					t.Errorf("%s(%q) %s, want %s", e.name, root, got, want)
				}
			})
			mark := ""
			switch {
			case got == "":
				got = "skipped"
			case got != want:
				mark = "≠" + want
			}
			fmt.Fprintf(&table, " %-18s", got+mark)
		}
	}
	t.Logf("verdicts:\n%s", &table)
}

// wantVerdict is what rootRules say the entry point e does with the root
// of c, which group or others can write to if writable.
func wantVerdict(t *testing.T, c rootCase, e entryPoint, writable bool) string {
	t.Helper()
	switch {
	case e.column == nil && c.broken == "":
		return passes
	case e.column == nil:
		return "fails " + c.broken
	case c.broken == "":
		return used
	}
	switch a := e.column(ruleNamed(t, c.broken)); a {
	case refuse:
		return refused
	case tighten:
		return tightened
	case refuseWritable:
		if writable {
			return refused
		}
		return used
	default:
		t.Fatalf("%s's action for %q is %d: no root of this test breaks it", e.name, c.broken, a)
		return ""
	}
}

// ruleNamed returns the rule whose check is called name.
func ruleNamed(t *testing.T, name string) rootRule {
	t.Helper()
	for _, r := range slices.Concat(rootRules...) {
		if r.name == name {
			return r
		}
	}
	t.Fatalf("no rule named %q", name)
	return rootRule{}
}

func runOpenRoot(t *testing.T, root string) string {
	before := permOf(t, root)
	r, err := OpenRoot(root)
	switch {
	case errors.Is(err, ErrUnsafeRoot):
		return refused
	case err != nil:
		return "error: " + err.Error()
	case r.Path != root:
		return fmt.Sprintf("opened as %q", r.Path)
	}
	switch after := permOf(t, root); after {
	case before:
		return used
	case before &^ 0o077:
		return tightened
	default:
		return fmt.Sprintf("changed from %#o to %#o", before, after)
	}
}

func runListSessions(t *testing.T, root string) string {
	list, err := ListSessions(root)
	switch {
	case errors.Is(err, ErrUnsafeRoot):
		return refused
	case err != nil:
		return "error: " + err.Error()
	case len(list) != 1:
		return fmt.Sprintf("listed %d sessions", len(list))
	}
	return used
}

func runClean(dryRun bool) func(*testing.T, string) string {
	return func(t *testing.T, root string) string {
		rep, err := (&Cleaner{Root: root, All: true, DryRun: dryRun}).Clean()
		switch {
		case errors.Is(err, ErrUnsafeRoot):
			return refused
		case err != nil:
			return "error: " + err.Error()
		case len(rep.Removed) != 1 || len(rep.Skipped) != 0:
			return fmt.Sprintf("removed %d, skipped %q", len(rep.Removed), rep.Skipped)
		case exists(rep.Removed[0].Dir) != dryRun:
			return fmt.Sprintf("reported removed; still there: %v", exists(rep.Removed[0].Dir))
		}
		return used
	}
}

// runCheckRoot says which check failed; every other must pass.
func runCheckRoot(t *testing.T, root string) string {
	checks := CheckRoot(root)
	var failed []string
	for _, c := range checks {
		if !c.OK {
			failed = append(failed, c.Name)
		}
	}
	switch len(failed) {
	case 0:
		return passes
	case 1:
		return "fails " + failed[0]
	}
	return "fails " + strings.Join(failed, ", ")
}

// goodRoot makes a root at path, as OpenRoot does, holding one ended
// session.
func goodRoot(t *testing.T, path string) string {
	t.Helper()
	r, err := OpenRoot(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.NewSession(mustSessionID(t), testMeta)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func rootWithMode(perm fs.FileMode) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		root := goodRoot(t, filepath.Join(dir, "root"))
		if err := os.Chmod(root, perm); err != nil {
			t.Fatal(err)
		}
		return root
	}
}

func symlinkRoot(t *testing.T, dir string) string {
	root := filepath.Join(dir, "link")
	if err := os.Symlink(goodRoot(t, filepath.Join(dir, "root")), root); err != nil {
		t.Fatal(err)
	}
	return root
}

func fileRoot(t *testing.T, dir string) string {
	root := filepath.Join(dir, "file")
	if err := os.WriteFile(root, []byte("not a root"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

func foreignRoot(t *testing.T, dir string) string {
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	root := goodRoot(t, filepath.Join(dir, "root"))
	if err := os.Chown(root, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	return root
}

// renamedRoot makes a good root and gives it a name a reference cannot
// carry, which OpenRoot would refuse to make.
func renamedRoot(name string) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		root := filepath.Join(dir, name)
		if err := os.Rename(goodRoot(t, filepath.Join(dir, "root")), root); err != nil {
			t.Fatal(err)
		}
		return root
	}
}

// relativeRoot makes a good root and returns its path relative to the
// working directory, which it changes.
func relativeRoot(t *testing.T, dir string) string {
	goodRoot(t, filepath.Join(dir, "root"))
	t.Chdir(dir)
	return "root"
}
