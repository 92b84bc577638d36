package fileref

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// errOutsideScope: a hook expands only files under the agent's working
// directory and the directories it is given (pbwrap's paste root). The
// hook runs with all of the user's rights, outside the agent's sandbox and
// its read rules; without this an agent could copy any file it may not
// read (~/.ssh/id_ed25519) into one it may, and read it there.
var errOutsideScope = errors.New("outside the working directory and pbwrap's paste root")

// errSymlink: a hook follows no symbolic link below its directories, not
// even one that points inside them: a link can be swapped for another
// between any check and the open, and one that points inside today can
// point outside tomorrow. The file's real path, when it is in the scope,
// works.
var errSymlink = errors.New("the path goes through a symbolic link, which a hook does not follow " +
	"(refer to the file by its real path)")

// errHardLink: a hook expands only files with a single link. A second
// hard link in the working directory or in pbwrap's root (where the agent
// can write too) to a file elsewhere (ln ~/.ssh/id_ed25519 x) looks like
// any file there, and nothing can tell which of its names is the
// original. pbwrap's own paste files have one link.
var errHardLink = errors.New("the file has more than one hard link, so it may be a file from " +
	"outside the working directory or pbwrap's root: a hook expands only a file with a single link")

// errRootCwd explains why "/" is not taken as a working directory.
var errRootCwd = errors.New("the working directory is /, which a hook does not take as a scope: it would expose every file")

// errHomeCwd: a working directory that is the user's home directory, or
// above it, holds the user's keys and settings (~/.ssh, ~/.aws, the
// agents' own credentials); a hook does not take it as a scope. The user
// can name it in Scope.Allow (pbwrap's --hook-allow).
var errHomeCwd = errors.New("the working directory is your home directory or above it, which a hook " +
	"does not take as a scope: it holds your keys and settings (start the agent in a project " +
	"directory, or let hooks read it with pbwrap's --hook-allow)")

// errHidden: a file in a hidden directory of the user's home (~/.ssh,
// ~/.aws, ~/.gnupg, ~/.config) is read only through a scope directory
// inside that hidden directory: an agent working in ~/.config/nvim may
// refer to its files, one working in the home directory (allowed) may not
// refer to ~/.ssh/id_ed25519.
var errHidden = errors.New("the file is in a hidden directory of your home directory (such as ~/.ssh), " +
	"which a hook reads only when the agent works inside it or pbwrap's --hook-allow names it")

// errNotSession: below pbwrap's root, a hook reads only the files of a
// session directory, those pbwrap saved; anything else in it (or a root
// set to a directory that holds other files) is not a paste.
var errNotSession = errors.New("in pbwrap's paste root, a hook reads only the files of a session directory")

// errDenied: the agent's own settings deny it reading the file; a hook,
// which reads with all of the user's rights, honours them.
var errDenied = errors.New("the agent's settings deny reading it")

// A Scope is where a hook reads the files its references name, besides
// the call's working directory, and what it keeps out of reach there. The
// zero Scope reads below the working directory only, "/" excepted.
type Scope struct {
	// Roots are pbwrap's paste roots. Below a root, a reference may name
	// only a file inside a directory whose name Session accepts, since
	// everything pbwrap saves is in a session; with Session nil, any file.
	Roots   []string
	Session func(name string) bool

	// Home is the user's home directory ("" for none). A working
	// directory that is Home or above it is not taken as a scope
	// (errHomeCwd), and a file in a hidden directory of Home is read only
	// through a scope directory inside that hidden directory (errHidden).
	Home string

	// Allow are directories the user lets hooks read besides, as it
	// would the working directory; Home itself may be one of them.
	Allow []string

	// Deny reports whether the agent's own rules deny it reading path,
	// given the call's working directory, and the rule that does, which
	// the model is shown (errDenied). Nil denies nothing.
	Deny func(cwd, path string) (rule string, denied bool)
}

// beneath opens a name below a directory without following symbolic
// links; a variable so that tests can force the portable walk.
var beneath = fsutil.OpenBeneath

// scope is where a hook reads files: the directories it was given, each
// opened once, below which every file is opened without following a
// symbolic link, so that nothing swapped in between a check and the open
// can lead the open elsewhere.
type scope struct {
	Scope
	dirs         []*scopeDir
	slashRefused bool        // a directory was "/": refused
	homeRefused  bool        // the working directory was Home or above it: refused
	cwds         []string    // the working directory as given and resolved, for Deny
	home         string      // Home, clean
	homeFI       os.FileInfo // Home's, nil when it cannot be found
	slash        *os.File    // "/", from which the directories are opened
	slashErr     error
}

// The kinds of scope directory.
type dirKind int

const (
	cwdDir   dirKind = iota // the call's working directory
	allowDir                // one the user allowed
	rootDir                 // pbwrap's root: only its sessions' files
)

// scopeDir is one directory of a scope.
type scopeDir struct {
	names []string // how a reference may spell it: as given, and resolved
	real  string   // resolved
	dir   *os.File // nil when err is set
	err   error    // why it could not be opened
	kind  dirKind
}

// newScope opens the agent's working directory, the directories allowed
// and pbwrap's roots. Each is resolved once (filepath.EvalSymlinks: the
// directories themselves may be reached through symbolic links, as /tmp is
// on macOS), then opened from "/" without following any link, so that a
// link swapped in after the resolution fails the open. "/" is never a
// scope, nor a working directory that is Home or above it. A directory
// that cannot be opened makes every reference below it fail with the
// reason. The caller must Close the scope.
func newScope(cwd string, sc Scope) *scope {
	s := &scope{Scope: sc}
	s.slash, s.slashErr = os.Open("/")
	if filepath.IsAbs(sc.Home) {
		s.home = filepath.Clean(sc.Home)
		if fi, err := os.Stat(s.home); err == nil {
			s.homeFI = fi
		}
	}
	s.cwds = []string{cwd}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && filepath.IsAbs(cwd) && real != filepath.Clean(cwd) {
		s.cwds = append(s.cwds, real)
	}
	if s.holdsHome(cwd) {
		s.homeRefused = true
	} else {
		s.add(cwd, cwdDir)
	}
	for _, d := range sc.Allow {
		s.add(d, allowDir)
	}
	for _, r := range sc.Roots {
		s.add(r, rootDir)
	}
	return s
}

// holdsHome reports whether dir is the home directory or above it, by
// identity (see hidden).
func (s *scope) holdsHome(dir string) bool {
	if s.homeFI == nil || !filepath.IsAbs(dir) {
		return false
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for h := s.home; ; h = filepath.Dir(h) {
		if hf, err := os.Stat(h); err == nil && os.SameFile(hf, fi) {
			return true
		}
		if filepath.Dir(h) == h {
			return false
		}
	}
}

// add adds one directory; one that is not absolute is ignored.
func (s *scope) add(dir string, kind dirKind) {
	if !filepath.IsAbs(dir) {
		return
	}
	given := filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(given)
	if given == "/" || real == "/" {
		s.slashRefused = true
		return
	}
	d := &scopeDir{names: []string{given}, real: real, kind: kind}
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
// following any symbolic link, and only a regular file with a single link
// that the scope's rules let a hook read.
func (s *scope) open(path string) (io.ReadCloser, error) {
	f, _, err := s.openFile(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// openFile is open, with the file's real path (its scope directory's,
// resolved, and the rest as cleaned).
func (s *scope) openFile(path string) (*os.File, string, error) {
	// Cleaned first, so that a ".." cannot pass a deeper directory by
	// and reach it through a shallower one with other rules (the root's
	// sessions through the working directory above it). Below a scope
	// directory no link is followed, so the name cleaned is the file.
	path = filepath.Clean(path)
	d, rel := s.find(path)
	if d == nil {
		switch {
		case s.slashRefused:
			return nil, "", fmt.Errorf("%w (%w)", errOutsideScope, errRootCwd)
		case s.homeRefused:
			return nil, "", fmt.Errorf("%w (%w)", errOutsideScope, errHomeCwd)
		}
		return nil, "", errOutsideScope
	}
	if d.err != nil {
		return nil, "", &fs.PathError{Op: "open", Path: path, Err: d.err}
	}
	if err := s.allowed(d, rel, path); err != nil {
		return nil, "", &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f, err := beneath(d.dir, rel)
	if err != nil {
		return nil, "", openError(path, err)
	}
	if err := checkFile(f, path); err != nil {
		_ = f.Close() // Best effort: nothing was read.
		return nil, "", err
	}
	return f, filepath.Join(d.real, rel), nil
}

// allowed applies the scope's rules to the file rel below d, which path
// names. Below d nothing is a symbolic link (the open follows none), so
// rel cleaned is where the file is.
func (s *scope) allowed(d *scopeDir, rel, path string) error {
	rel = filepath.Clean(rel)
	if d.kind == rootDir && s.Session != nil {
		session, rest, ok := strings.Cut(rel, "/")
		if !ok || rest == "" || !s.Session(session) {
			return errNotSession
		}
	}
	real := filepath.Join(d.real, rel)
	if s.hidden(d, real) {
		return errHidden
	}
	if s.Deny == nil {
		return nil
	}
	// The agent's rules name paths as its settings spell them: each
	// spelling of the file is asked about, through each spelling of the
	// working directory.
	spellings := []string{path}
	for _, n := range d.names {
		if p := filepath.Join(n, rel); !slices.Contains(spellings, p) {
			spellings = append(spellings, p)
		}
	}
	for _, cwd := range s.cwds {
		for _, p := range spellings {
			if rule, denied := s.Deny(cwd, p); denied {
				return fmt.Errorf("%w (%s)", errDenied, rule)
			}
		}
	}
	return nil
}

// hidden reports whether the file at real, below d, is in a hidden
// directory of the home directory that d is not inside. Directories are
// compared by identity (os.SameFile), not by name, so that another
// spelling (a symbolic link above, another case where the file system
// ignores it) is no way around the rule.
func (s *scope) hidden(d *scopeDir, real string) bool {
	if s.homeFI == nil {
		return false
	}
	for dir, child := filepath.Dir(real), real; child != dir; dir, child = filepath.Dir(dir), dir {
		fi, err := os.Stat(dir)
		if err != nil || !os.SameFile(fi, s.homeFI) {
			continue
		}
		name := filepath.Base(child)
		if !strings.HasPrefix(name, ".") || name == "." || name == ".." {
			return false
		}
		hidden, err := os.Stat(child)
		return err != nil || !inside(d.real, hidden)
	}
	return false
}

// inside reports whether dir is the directory top, or below it, by
// identity.
func inside(dir string, top os.FileInfo) bool {
	for {
		if fi, err := os.Stat(dir); err == nil && os.SameFile(fi, top) {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
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
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (it has %d)", errHardLink, n)}
	}
	return nil
}

// openError turns an error of beneath into the error for path.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, fsutil.ErrOutside):
		return errOutsideScope
	case errors.Is(err, fsutil.ErrSymlink):
		return &fs.PathError{Op: "open", Path: path, Err: errSymlink}
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
// starts at the directory's descriptor and follows no link below it. The
// deepest directory wins, pbwrap's root over another as deep: each file
// is judged by the rules of the directory closest to it.
func (s *scope) find(path string) (*scopeDir, string) {
	var best *scopeDir
	var bestRel, bestName string
	for _, d := range s.dirs {
		for _, name := range d.names {
			rel, ok := below(name, path)
			if !ok {
				continue
			}
			if best == nil || len(name) > len(bestName) || len(name) == len(bestName) && d.kind > best.kind {
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
