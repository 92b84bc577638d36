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

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/printable"
)

// A RootCheck is the result of one of the checks CheckRoot runs.
type RootCheck struct {
	Name   string // what is checked: "exists", "owned by you", ...
	OK     bool
	Detail string // what was found: "mode 0755: group and others can read it", "owned by uid 12345"
	Fix    string // when not OK, how to fix it, in one line: "chmod 700 /tmp/pbwrap-1000"
}

// CheckRoot runs the root's safety rules (rootRules), as OpenRoot,
// ListSessions and Cleaner.Clean do, on the root at path, without creating
// or changing anything, and returns each check's result in order, for
// `pbwrap doctor`, which only formats them. The checks of the path come
// first and all run; the checks of the directory follow only when the path
// passed, and stop at the first of "exists" and "is a directory, not a
// symlink" that fails, since nothing more can be learnt. A missing root
// passes "exists" when it can be created (OpenRoot creates it), and no
// further check runs.
//
// A root open to group or others fails "private (mode 0700)": until a
// session starts and OpenRoot removes those permission bits, the root is
// as open as it is. (Listing and cleaning use a root that group or others
// can only read, and refuse one they can write to.)
func CheckRoot(path string) []RootCheck {
	var checks []RootCheck
	walkRules(newRootProbe(path), func(r rootRule, f finding) next {
		checks = append(checks, RootCheck{Name: r.name, OK: f.ok, Detail: f.detail, Fix: f.fix})
		if f.fails() {
			return endGroup
		}
		return goOn
	})
	return checks
}

// The checks. Each describes what it found in detail (also when the root
// passes, if there is something to say) and, when the root fails, says
// how to fix it.

// pathFinding is the finding of a check of the path, which passes when ok
// and otherwise fails saying why.
func pathFinding(ok bool, why string) finding {
	if ok {
		return finding{ok: true}
	}
	return finding{detail: why, fix: chooseRoot}
}

func checkAbsolute(p *rootProbe) finding {
	return pathFinding(filepath.IsAbs(p.given), "is relative: references must carry the full path")
}

func checkUTF8(p *rootProbe) finding {
	return pathFinding(utf8.ValidString(p.given),
		"is not valid UTF-8: the agent, given a name that is not UTF-8, would look for other bytes than the file's")
}

func checkNoControl(p *rootProbe) finding {
	return pathFinding(strings.IndexFunc(p.given, unicode.IsControl) < 0,
		"contains a control character: a newline typed into the agent would submit its prompt")
}

func checkNotFSRoot(p *rootProbe) finding {
	return pathFinding(filepath.Dir(p.path) != p.path, "is the filesystem root")
}

// checkNotHome refuses the home directory and the directories above it:
// a root there would hold the user's keys and settings, which pbwrap hook
// would then take for pastes, and OpenRoot would make the home directory
// 0700. The home directory is $HOME, as given and resolved; with no
// absolute $HOME, nothing is refused.
func checkNotHome(p *rootProbe) finding {
	home := os.Getenv("HOME")
	if !filepath.IsAbs(home) {
		return finding{ok: true}
	}
	homes := []string{filepath.Clean(home)}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		homes = append(homes, real)
	}
	paths := []string{p.path}
	if real, err := filepath.EvalSymlinks(p.path); err == nil {
		paths = append(paths, real)
	}
	for _, h := range homes {
		for _, r := range paths {
			if fsutil.Within(r, h) {
				return pathFinding(false, "is your home directory or above it, where your keys and settings are: "+
					"give pbwrap a directory of its own")
			}
		}
	}
	return finding{ok: true}
}

// checkExists looks the root up, not following a symlink, and keeps what
// it finds for the checks after it. A missing root passes when it can be
// created.
func checkExists(p *rootProbe) finding {
	fi, err := os.Lstat(p.path)
	switch {
	case err == nil:
		p.fi = fi
		return finding{ok: true}
	case !errors.Is(err, fs.ErrNotExist):
		return finding{err: err, detail: err.Error(), fix: "check the directories above " + p.path + ", or " + chooseRoot}
	}
	parent := fsutil.NearestExisting(filepath.Dir(p.path))
	if err := canCreateIn(parent); err != nil {
		return finding{missing: true, detail: fmt.Sprintf("missing, and cannot be created in %s: %v", parent, err),
			fix: "create it yourself (mkdir -m 700 -p " + p.path + "), or " + chooseRoot}
	}
	return finding{ok: true, missing: true, detail: "not yet: pbwrap creates it, mode 0700, when a session starts"}
}

func checkIsDir(p *rootProbe) finding {
	switch m := p.fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		f := finding{detail: "is a symlink", fix: "remove the symlink (rm " + p.path + "), or " + chooseRoot}
		if target, err := os.Readlink(p.path); err == nil {
			f.detail += " to " + printable.Quote(target)
		}
		return f
	case !m.IsDir():
		return finding{detail: "is not a directory: it is a " + fileKind(m), fix: "move it away, or " + chooseRoot}
	}
	return finding{ok: true}
}

func checkOwner(p *rootProbe) finding {
	uid, err := ownerUID(p.fi)
	switch {
	case err != nil:
		err = &fs.PathError{Op: "owner of", Path: p.path, Err: err}
		return finding{err: err, detail: err.Error(), fix: chooseRoot}
	case uid != os.Geteuid():
		return finding{detail: fmt.Sprintf("owned by uid %d, you are uid %d", uid, os.Geteuid()),
			fix: "choose a root of your own with --root or PBWRAP_ROOT"}
	}
	return finding{ok: true, detail: fmt.Sprintf("uid %d", uid)}
}

func checkPrivate(p *rootProbe) finding {
	perm := p.fi.Mode().Perm()
	f := finding{ok: perm&groupOtherPerm == 0, detail: fmt.Sprintf("mode %#o", perm)}
	if !f.ok {
		f.detail += ": " + openTo(perm)
		f.fix = fmt.Sprintf("chmod %o %s (pbwrap does it when a session starts)", perm&^groupOtherPerm, p.path)
	}
	return f
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
