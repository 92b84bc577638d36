package fsutil

import (
	"errors"
	"os"
)

// The reasons OpenBeneath and WalkBeneath refuse a name, besides the
// errors of open(2) (ENOENT, EACCES, ENOTDIR...). Each comes wrapped in an
// *os.PathError naming the name.
var (
	// ErrSymlink: a component of the name is a symbolic link, which is never
	// followed, wherever it points.
	ErrSymlink = errors.New("a component of the path is a symbolic link")
	// ErrOutside: the name leads out of the directory: it is absolute, or
	// its ".." components climb above the directory.
	ErrOutside = errors.New("the path leads outside the directory")
)

// OpenBeneath opens name, a path relative to the directory dir, for
// reading, without ever leaving dir and without following any symbolic
// link, whether in the middle of name or at its end. Every component is
// resolved by the kernel relative to the one before it, starting at dir's
// descriptor, so that no rename or symlink swapped in while it runs can
// lead it elsewhere: what it opens is, at the moment of the open, a file
// below dir reached through directories only. ".." is allowed as long as it
// stays below dir; "." and empty components are ignored; a name that ends
// in "/" must be a directory, and "" or "." is dir itself.
//
// It opens whatever file it reaches, with O_NONBLOCK (a named pipe does not
// wait for a writer) and O_NOCTTY: the caller checks what it got with
// Stat and must Close it. dir is only read; it stays open and usable.
//
// On Linux it is one openat2(2) with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS; where openat2 is missing (kernels before 5.6, or a
// seccomp filter that refuses it with ENOSYS or EPERM) and on other Unix
// systems it is WalkBeneath. Elsewhere (Windows) it fails with
// errors.ErrUnsupported. It is safe for concurrent use.
func OpenBeneath(dir *os.File, name string) (*os.File, error) {
	return openBeneath(dir, name)
}

// WalkBeneath opens name as OpenBeneath does, one component at a time:
// openat(2) with O_NOFOLLOW, each directory relative to the descriptor of
// the one before it, ".." by going back to a descriptor it already holds
// rather than opening "..". It is OpenBeneath's fallback, exported so that
// callers can test that path on systems where OpenBeneath would not take
// it. It is safe for concurrent use.
func WalkBeneath(dir *os.File, name string) (*os.File, error) {
	return walkBeneath(dir, name)
}

// pathError wraps err as OpenBeneath's errors are.
func pathError(name string, err error) error {
	return &os.PathError{Op: "open", Path: name, Err: err}
}
