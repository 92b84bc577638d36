package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The root's safety rules are written once, in rootRules. OpenRoot,
// ListSessions, Cleaner.Clean and CheckRoot all run them, in the same
// order, with the same checks, and differ only in what they do when the
// root fails a check, which each rule says in a column:
//
//   - OpenRoot, when a session starts, may change the root: it creates a
//     missing one, tightens one open to group or others to 0700, and
//     refuses every other failure;
//   - ListSessions and Cleaner.Clean (pbwrap list, show, stats, clean)
//     change nothing: a missing root is empty, a root that group or others
//     can only read is used as it is, and every other failure is refused,
//     a root they can write to included;
//   - CheckRoot (pbwrap doctor) changes nothing and reports each check.
//
// A refusal is an error wrapping ErrUnsafeRoot that says why. A check that
// cannot look at all (an lstat that fails for another reason than a
// missing root) is an error of its own.

// An action is what an entry point does when the root fails a check.
type action int

const (
	// refuse stops with an error wrapping ErrUnsafeRoot that says what
	// the check found.
	refuse action = iota

	// create makes the missing root, mode 0700, and its missing parents,
	// and goes on with the directory made.
	create

	// stopEmpty stops without error: a missing root holds no sessions.
	stopEmpty

	// tighten removes the group and other permission bits, through a
	// descriptor of the very directory the checks examined, and goes on.
	tighten

	// refuseWritable refuses a root that group or others can write to:
	// they could swap a session for a symlink between a check and a
	// removal. A root that they can only read or enter is used as it is.
	refuseWritable
)

// A rootRule is one of the root's safety rules.
type rootRule struct {
	name  string                   // the check's name, as RootCheck.Name and pbwrap doctor give it
	check func(*rootProbe) finding // examines the path, or the root found there
	open  action                   // what OpenRoot does when the root fails the check
	read  action                   // what ListSessions and Cleaner.Clean do when it fails
}

// rootRules are the root's safety rules, in the order they are checked, in
// groups: a group is checked only when the root passed every check of the
// groups before it, since each examines what those vouched for (a path
// that can be looked up, a root that is there, a directory). An entry
// point that refuses stops at once; CheckRoot reports the whole group in
// which the root first fails.
var rootRules = [][]rootRule{
	{
		{"path is absolute", checkAbsolute, refuse, refuse},
		{"path is valid UTF-8", checkUTF8, refuse, refuse},
		{"path has no control characters", checkNoControl, refuse, refuse},
		{"path is not the filesystem root", checkNotFSRoot, refuse, refuse},
		{"path is not your home directory or above it", checkNotHome, refuse, refuse},
	},
	{
		{"exists", checkExists, create, stopEmpty},
	},
	{
		{"is a directory, not a symlink", checkIsDir, refuse, refuse},
	},
	{
		{"owned by you", checkOwner, refuse, refuse},
		{"private (mode 0700)", checkPrivate, tighten, refuseWritable},
	},
}

// writePerm are the permission bits with which group or others could
// write in the root.
const writePerm = 0o022

// chooseRoot is the fix when nothing can be done to the root itself.
const chooseRoot = "choose another root with --root or PBWRAP_ROOT"

// A rootProbe is the root as the checks examine it.
type rootProbe struct {
	given string      // the path as given: the checks of the path examine it
	path  string      // given, cleaned: what the other checks look up
	fi    fs.FileInfo // the root's, not following a symlink, once "exists" found it
}

func newRootProbe(path string) *rootProbe {
	return &rootProbe{given: path, path: filepath.Clean(path)}
}

// A finding is what one check found.
type finding struct {
	ok      bool   // the root passes, as CheckRoot reports it
	missing bool   // "exists" found no root: the rule's action applies, although CheckRoot reports a root that can be created as passing
	detail  string // what was found; when the root fails, also why an entry point refuses it
	fix     string // when not ok, how to fix it, in one line
	err     error  // the check could not look (detail says it too): entry points fail with it, not with ErrUnsafeRoot
}

// fails reports whether an entry point must do what the rule says.
func (f finding) fails() bool { return !f.ok || f.missing }

// What walkRules does after a finding.
type next int

const (
	goOn     next = iota // on to the next check
	endGroup             // the rest of this group, then stop
	stop                 // stop at once
)

// walkRules runs rootRules on p in order, passes each finding to visit,
// and goes on as visit says, but never past a group one of whose checks
// the root failed (its action, if any, not repairing it).
func walkRules(p *rootProbe, visit func(rootRule, finding) next) {
	for _, group := range rootRules {
		end := false
		for _, r := range group {
			switch visit(r, r.check(p)) {
			case stop:
				return
			case endGroup:
				end = true
			}
		}
		if end {
			return
		}
	}
}

// onOpen and onRead pick an entry point's column of rootRules.
func onOpen(r rootRule) action { return r.open }
func onRead(r rootRule) action { return r.read }

// enforce runs rootRules on p for the entry point whose actions column
// picks, and does its action on each check the root fails. It stops at the
// first error, and at an action that ends the checks: then p.fi is nil
// when the root is missing.
func (p *rootProbe) enforce(column func(rootRule) action) error {
	var err error
	walkRules(p, func(r rootRule, f finding) next {
		switch {
		case f.err != nil:
			err = fmt.Errorf("store: check root: %w", f.err)
			return stop
		case !f.fails():
			return goOn
		}
		var more bool
		if more, err = p.do(column(r), f); more && err == nil {
			return goOn
		}
		return stop
	})
	return err
}

// do does the action a for the failing finding f, and reports whether the
// checks go on.
func (p *rootProbe) do(a action, f finding) (more bool, err error) {
	switch a {
	case create:
		return true, p.create()
	case stopEmpty:
		return false, nil
	case tighten:
		return true, p.tighten()
	case refuseWritable:
		if perm := p.fi.Mode().Perm(); perm&writePerm != 0 {
			return false, unsafeRoot(p.given, fmt.Sprintf("mode %#o: group or others can write to it "+
				"(pbwrap makes it 0700 when it next runs, or chmod 700 it)", perm))
		}
		return true, nil
	}
	return false, unsafeRoot(p.given, f.detail)
}

// create makes the missing root, and its missing parents, with mode 0700,
// and looks it up for the checks after "exists". A root made meanwhile by
// another pbwrap is no error: the checks examine it as any other.
func (p *rootProbe) create() error {
	if err := os.MkdirAll(filepath.Dir(p.path), dirPerm); err != nil {
		return fmt.Errorf("store: create root %s: %w", p.path, err) // err names a parent
	}
	if err := os.Mkdir(p.path, dirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("store: create root: %w", err)
	}
	fi, err := os.Lstat(p.path)
	if err != nil {
		return fmt.Errorf("store: check root: %w", err)
	}
	p.fi = fi
	return nil
}

// tighten removes the root's group and other permission bits, through a
// descriptor of the directory the checks examined, so that what was
// checked is what is changed.
func (p *rootProbe) tighten() error {
	d, err := p.open()
	if err != nil {
		return err
	}
	defer d.Close() // Best effort: the change is made by Chmod.
	perm := p.fi.Mode().Perm() &^ groupOtherPerm
	if err := d.Chmod(perm); err != nil {
		return fmt.Errorf("store: tighten root to %#o: %w", perm, err)
	}
	return nil
}

// open opens the root the checks examined, without following a symlink,
// and makes sure that it is still that directory. The caller must close
// it.
func (p *rootProbe) open() (*os.File, error) {
	d, err := openDirNoFollow(p.path)
	if err != nil {
		return nil, fmt.Errorf("store: open root: %w", err)
	}
	fi, err := d.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("store: open root: %w", err)
	case !os.SameFile(fi, p.fi):
		err = unsafeRoot(p.given, "was replaced while being checked")
	}
	if err != nil {
		_ = d.Close() // Best effort: only opened.
		return nil, err
	}
	return d, nil
}

// UsableRoot runs the root's rules for listing and cleaning on the root
// at path (see rootRules), changing nothing, and reports whether files
// may be read from it as pbwrap's: nil when it passes, an error wrapping
// ErrUnsafeRoot when it fails a rule, one wrapping fs.ErrNotExist when it
// is missing. A directory named by a flag, the environment or the config
// file is taken as a root (by pbwrap hook, say) only when it passes.
func UsableRoot(path string) error {
	d, err := openExistingRoot(path)
	switch {
	case err != nil:
		return err
	case d == nil:
		return &fs.PathError{Op: "store: use root", Path: path, Err: fs.ErrNotExist}
	}
	return d.Close()
}

// openExistingRoot runs the root's rules for listing and cleaning on the
// root at path, changing nothing, and opens it for reading. A missing root
// gives a nil root and no error. Otherwise the caller must close it.
func openExistingRoot(path string) (*os.File, error) {
	p := newRootProbe(path)
	if err := p.enforce(onRead); err != nil || p.fi == nil {
		return nil, err
	}
	return p.open()
}

func unsafeRoot(path, why string) error {
	return fmt.Errorf("store: %w %q: %s", ErrUnsafeRoot, path, why)
}
