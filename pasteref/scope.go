package pasteref

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// ErrOutsideScope: a hook expands only files under the agent's working
// directory and the directories it is given (pbwrap's paste root). The
// hook runs with all of the user's rights, outside the agent's sandbox and
// its read rules; without this an agent could copy any file it may not
// read (~/.ssh/id_ed25519) into one it may, and read it there.
var ErrOutsideScope = errors.New("outside the working directory and pbwrap's paste root")

// ErrSymlink: a hook follows no symbolic link below its directories, not
// even one that points inside them: a link can be swapped for another
// between any check and the open, and one that points inside today can
// point outside tomorrow. The file's real path, when it is in the scope,
// works.
var ErrSymlink = errors.New("the path goes through a symbolic link, which a hook does not follow " +
	"(refer to the file by its real path)")

// ErrHardLink: a hook expands only files with a single link. A second
// hard link in the working directory or in pbwrap's root (where the agent
// can write too) to a file elsewhere (ln ~/.ssh/id_ed25519 x) looks like
// any file there, and nothing can tell which of its names is the
// original. pbwrap's own paste files have one link.
var ErrHardLink = errors.New("the file has more than one hard link, so it may be a file from " +
	"outside the working directory or pbwrap's root: a hook expands only a file with a single link")

// errRootCwd explains why "/" is not taken as a working directory.
var errRootCwd = errors.New("the working directory is /, which a hook does not take as a scope: it would expose every file")

// beneath opens a name below a directory without following symbolic
// links; a variable so that tests can force the portable walk.
var beneath = fsutil.OpenBeneath

// scope is where a hook reads files: the directories it was given, each
// opened once, below which every file is opened without following a
// symbolic link, so that nothing swapped in between a check and the open
// can lead the open elsewhere.
type scope struct {
	dirs         []*scopeDir
	slashRefused bool     // a directory was "/": refused
	slash        *os.File // "/", from which the directories are opened
	slashErr     error
}

// scopeDir is one directory of a scope.
type scopeDir struct {
	names []string // how a reference may spell it: as given, and resolved
	real  string   // resolved
	dir   *os.File // nil when err is set
	err   error    // why it could not be opened
	root  bool     // pbwrap's root: preferred when a path is below both
}

// newScope opens the agent's working directory and pbwrap's root
// directories. Each is resolved once (filepath.EvalSymlinks: the
// directories themselves may be reached through symbolic links, as /tmp is
// on macOS), then opened from "/" without following any link, so that a
// link swapped in after the resolution fails the open. "/" is never a
// scope. A directory that cannot be opened makes every reference below it
// fail with the reason. The caller must Close the scope.
func newScope(cwd string, roots []string) *scope {
	s := &scope{}
	s.slash, s.slashErr = os.Open("/")
	s.add(cwd, false)
	for _, r := range roots {
		s.add(r, true)
	}
	return s
}

// add adds one directory; one that is not absolute is ignored.
func (s *scope) add(dir string, root bool) {
	if !filepath.IsAbs(dir) {
		return
	}
	given := filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(given)
	if given == "/" || real == "/" {
		s.slashRefused = true
		return
	}
	d := &scopeDir{names: []string{given}, real: real, root: root}
	switch {
	case err != nil:
		d.err = pathError(err) // Missing, or not a directory: every reference below it fails so.
	case real != given:
		d.names = append(d.names, real)
		fallthrough
	default:
		d.dir, d.err = s.openDir(real)
	}
	s.dirs = append(s.dirs, d)
}

// openDir opens a resolved directory from "/", following no link.
func (s *scope) openDir(path string) (*os.File, error) {
	if s.slashErr != nil {
		return nil, s.slashErr
	}
	f, err := beneath(s.slash, strings.TrimPrefix(path, "/"))
	if err != nil {
		return nil, pathError(err)
	}
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		_ = f.Close() // Best effort: nothing was read.
		return nil, syscall.ENOTDIR
	}
	return f, nil
}

// Close closes the scope's directories.
func (s *scope) Close() {
	for _, d := range s.dirs {
		if d.dir != nil {
			_ = d.dir.Close() // Directories only read: nothing to lose.
		}
	}
	if s.slash != nil {
		_ = s.slash.Close() // As above.
	}
}

// open opens path for a hook: below the scope directory it names, without
// following any symbolic link, and only a regular file with a single link.
func (s *scope) open(path string) (io.ReadCloser, error) {
	d, rel := s.find(path)
	if d == nil {
		if s.slashRefused {
			return nil, fmt.Errorf("%w (%w)", ErrOutsideScope, errRootCwd)
		}
		return nil, ErrOutsideScope
	}
	if d.err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: d.err}
	}
	f, err := beneath(d.dir, rel)
	if err != nil {
		return nil, openError(path, err)
	}
	if err := checkFile(f, path); err != nil {
		_ = f.Close() // Best effort: nothing was read.
		return nil, err
	}
	return f, nil
}

// checkFile checks the opened file: regular, with one link.
func checkFile(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := regular(fi, path); err != nil {
		return err
	}
	if n := links(fi); n > 1 {
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (it has %d)", ErrHardLink, n)}
	}
	return nil
}

// openError turns an error of beneath into the error for path.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, fsutil.ErrOutside):
		return ErrOutsideScope
	case errors.Is(err, fsutil.ErrSymlink):
		return &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	return &fs.PathError{Op: "open", Path: path, Err: pathError(err)}
}

// pathError is the cause inside an *fs.PathError, or err.
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// find returns the scope directory path lies below, and path relative to
// it. Path is taken as written when it starts with a directory's name as
// given or resolved; otherwise the longest of its leading parts that
// resolves to a directory (through symbolic links above it: another
// spelling of the working directory, such as /var/... on macOS for
// /private/var/...). Resolving there is safe: whatever it finds, the open
// starts at the directory's descriptor and follows no link below it. pbwrap's
// root wins over the working directory, the deepest over the others.
func (s *scope) find(path string) (*scopeDir, string) {
	var best *scopeDir
	var bestRel, bestName string
	for _, d := range s.dirs {
		for _, name := range d.names {
			rel, ok := below(name, path)
			if !ok {
				continue
			}
			if best == nil || d.root && !best.root || d.root == best.root && len(name) > len(bestName) {
				best, bestRel, bestName = d, rel, name
			}
		}
	}
	if best != nil {
		return best, bestRel
	}
	return s.findResolved(path)
}

// findResolved tries the leading parts of path, longest first, resolved.
func (s *scope) findResolved(path string) (*scopeDir, string) {
	for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path[:i], '/') {
		real, err := filepath.EvalSymlinks(path[:i])
		if err != nil {
			continue
		}
		for _, d := range s.dirs {
			if d.real == real {
				if rest := strings.TrimLeft(path[i:], "/"); rest != "" {
					return d, rest
				}
				return d, "."
			}
		}
	}
	return nil, ""
}

// below reports whether path lies below dir, comparing names as written,
// and returns the rest of path after dir. dir is clean and absolute; in
// path, empty and "." components before the rest are skipped, and a ".."
// among them is not below anything. The rest is left as written: its
// ".." components are resolved by the open, which never leaves dir.
func below(dir, path string) (rest string, ok bool) {
	rest = path
	for _, c := range strings.Split(strings.Trim(dir, "/"), "/") {
		if rest, ok = cutComponent(rest, c); !ok {
			return "", false
		}
	}
	rest = strings.TrimLeft(rest, "/")
	if rest == "" {
		rest = "."
	}
	return rest, true
}

// cutComponent removes the leading slashes and "." components of p, then
// the component c.
func cutComponent(p, c string) (string, bool) {
	for {
		p = strings.TrimLeft(p, "/")
		if p != "." && !strings.HasPrefix(p, "./") {
			break
		}
		p = p[1:]
	}
	if !strings.HasPrefix(p, c) || len(p) > len(c) && p[len(c)] != '/' {
		return "", false
	}
	return p[len(c):], true
}
