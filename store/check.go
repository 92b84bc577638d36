package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A RootCheck is the result of one of the checks CheckRoot runs.
type RootCheck struct {
	Name   string // what is checked: "exists", "owned by you", ...
	OK     bool
	Detail string // what was found: "mode 0755: group and others can read it", "owned by uid 12345"
	Fix    string // when not OK, how to fix it, in one line: "chmod 700 /tmp/pbwrap-1000"
}

// CheckRoot runs OpenRoot's safety checks on the root at path without
// creating or changing anything, and returns each check's result in
// order, for `pbwrap doctor`. The checks of the path come first and all
// run; the checks of the directory follow only when the path passed, and
// stop at the first of "exists" and "is a directory, not a symlink" that
// fails, since nothing more can be learnt. A missing root passes "exists"
// when it can be created (OpenRoot creates it), and no further check runs.
//
// A root open to group or others fails "private (mode 0700)" although
// OpenRoot accepts it, after removing those permission bits: until a
// session starts, the root is as open as it is.
func CheckRoot(path string) []RootCheck {
	checks := checkPath(path)
	for _, c := range checks {
		if !c.OK {
			return checks
		}
	}
	fi, c := checkExists(path)
	checks = append(checks, c)
	if fi == nil {
		return checks
	}
	c = checkIsDir(path, fi)
	checks = append(checks, c)
	if !c.OK {
		return checks
	}
	return append(checks, checkOwner(fi), checkPrivate(path, fi))
}

// checkPath checks the path as checkRootPath does, one check for each
// reason it refuses.
func checkPath(path string) []RootCheck {
	fix := "choose another root with --root or PBWRAP_ROOT"
	checks := []RootCheck{
		{Name: "path is absolute", OK: filepath.IsAbs(path)},
		{Name: "path is valid UTF-8", OK: utf8.ValidString(path)},
		{Name: "path has no control characters", OK: strings.IndexFunc(path, unicode.IsControl) < 0},
		{Name: "path is not the filesystem root", OK: filepath.Dir(path) != filepath.Clean(path)},
	}
	details := []string{
		"relative: references must carry the full path",
		"not UTF-8: the agent would look for other bytes than the file's name",
		"has a control character: a newline typed into the agent would submit its prompt",
		"is the filesystem root",
	}
	for i := range checks {
		if !checks[i].OK {
			checks[i].Detail, checks[i].Fix = details[i], fix
		}
	}
	return checks
}

// checkExists returns the root's FileInfo, nil when it is missing or
// cannot be examined.
func checkExists(path string) (fs.FileInfo, RootCheck) {
	c := RootCheck{Name: "exists"}
	fi, err := os.Lstat(path)
	switch {
	case err == nil:
		c.OK = true
		return fi, c
	case !errors.Is(err, fs.ErrNotExist):
		c.Detail = err.Error()
		c.Fix = "check the directories above " + path + ", or choose another root with --root or PBWRAP_ROOT"
		return nil, c
	}
	parent := existingParent(path)
	if err := canCreateIn(parent); err != nil {
		c.Detail = fmt.Sprintf("missing, and cannot be created in %s: %v", parent, err)
		c.Fix = "create it yourself (mkdir -m 700 -p " + path + "), or choose another root with --root or PBWRAP_ROOT"
		return nil, c
	}
	c.OK = true
	c.Detail = "not yet: pbwrap creates it, mode 0700, when a session starts"
	return nil, c
}

// existingParent returns the nearest directory above path that exists.
func existingParent(path string) string {
	dir := filepath.Dir(filepath.Clean(path))
	for {
		if _, err := os.Lstat(dir); err == nil || filepath.Dir(dir) == dir {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

func checkIsDir(path string, fi fs.FileInfo) RootCheck {
	c := RootCheck{Name: "is a directory, not a symlink"}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		c.Detail = "is a symlink"
		if target, err := os.Readlink(path); err == nil {
			c.Detail += " to " + quoteName(target)
		}
		c.Fix = "remove the symlink (rm " + path + "), or choose another root with --root or PBWRAP_ROOT"
	case !fi.IsDir():
		c.Detail = "is a " + fileKind(fi.Mode())
		c.Fix = "move it away, or choose another root with --root or PBWRAP_ROOT"
	default:
		c.OK = true
	}
	return c
}

func checkOwner(fi fs.FileInfo) RootCheck {
	c := RootCheck{Name: "owned by you"}
	uid, err := ownerUID(fi)
	switch {
	case err != nil:
		c.Detail = err.Error()
		c.Fix = "choose another root with --root or PBWRAP_ROOT"
	case uid != os.Geteuid():
		c.Detail = fmt.Sprintf("owned by uid %d, you are uid %d", uid, os.Geteuid())
		c.Fix = "choose a root of your own with --root or PBWRAP_ROOT"
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("uid %d", uid)
	}
	return c
}

func checkPrivate(path string, fi fs.FileInfo) RootCheck {
	c := RootCheck{Name: "private (mode 0700)"}
	perm := fi.Mode().Perm()
	c.Detail = fmt.Sprintf("mode %#o", perm)
	if perm&groupOtherPerm == 0 {
		c.OK = true
		return c
	}
	c.Detail += ": " + openTo(perm)
	c.Fix = fmt.Sprintf("chmod %o %s (pbwrap does it when a session starts)", perm&^groupOtherPerm, path)
	return c
}

// openTo says who besides the owner can do what with a directory of mode
// perm: "group and others can read it".
func openTo(perm fs.FileMode) string {
	var who, can []string
	if perm&0o070 != 0 {
		who = append(who, "group")
	}
	if perm&0o007 != 0 {
		who = append(who, "others")
	}
	for _, b := range []struct {
		bits fs.FileMode
		verb string
	}{{0o044, "read"}, {0o022, "write"}, {0o011, "enter"}} {
		if perm&b.bits != 0 {
			can = append(can, b.verb)
		}
	}
	return strings.Join(who, " and ") + " can " + strings.Join(can, " and ") + " it"
}

func fileKind(m fs.FileMode) string {
	switch m.Type() {
	case 0:
		return "regular file"
	case fs.ModeNamedPipe:
		return "named pipe"
	case fs.ModeSocket:
		return "socket"
	case fs.ModeDevice, fs.ModeDevice | fs.ModeCharDevice:
		return "device"
	}
	return "file of type " + m.Type().String()
}

// checkExistingRoot runs OpenRoot's checks on the root at path, changing
// nothing, and reports whether it exists; a missing root is no error. A
// root open to group or others passes: only OpenRoot, which tightens it,
// is concerned with who can read what pbwrap writes there.
func checkExistingRoot(path string) (exists bool, err error) {
	if err := checkRootPath(path); err != nil {
		return false, err
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: check root %s: %w", path, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, unsafeRoot(path, "is a symlink")
	case !fi.IsDir():
		return false, unsafeRoot(path, "is not a directory")
	}
	uid, err := ownerUID(fi)
	if err != nil {
		return false, fmt.Errorf("store: check root %s: %w", path, err)
	}
	if uid != os.Geteuid() {
		return false, unsafeRoot(path, fmt.Sprintf("owned by uid %d", uid))
	}
	if fi.Mode().Perm()&0o022 != 0 {
		// Another user who can write the root can swap a session for a
		// symlink between the checks and the removals: refuse to clean
		// or list it until pbwrap (OpenRoot) has tightened it.
		return false, unsafeRoot(path, fmt.Sprintf("mode %#o: others can write to it (pbwrap makes it 0700 when it next runs, or chmod 700 it)", fi.Mode().Perm()))
	}
	return true, nil
}
