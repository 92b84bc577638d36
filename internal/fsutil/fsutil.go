// Package fsutil holds the path helpers that more than one pbwrap package
// needs, so that each rule is written once: whether a path lies within a
// directory, the nearest part of a path that exists, and opening a file
// below a directory without following any symbolic link (OpenBeneath),
// the words for a file that is not a regular one (Kind), the space and the
// inodes free on a path's file system (FreeSpace, FreeFiles), and the one bounded reader of a
// regular file (ReadRegular) and the one atomic writer (WriteFileAtomic,
// with SyncFile and SyncDir) that pbwrap's packages share.
package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Within reports whether path is dir or lies below it. Both must be
// absolute; a relative one is never within anything. Both are cleaned
// first, so "/a/b/c/.." is within "/a/b", but the comparison is of the
// names as written: Within resolves no symlink (resolve them first when
// they matter), and compares names byte for byte, also on file systems
// that ignore case. A sibling that shares a prefix is not within ("/a/bc"
// is not within "/a/b"), while a name that starts with two dots is
// ("/a/b/..x" is within "/a/b").
func Within(dir, path string) bool {
	if !filepath.IsAbs(dir) || !filepath.IsAbs(path) {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false // On another volume.
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// NearestExisting returns path, cleaned, if something exists there, and
// otherwise its nearest parent that exists. Existing means that Lstat
// finds it: a symlink exists even when what it points to does not. When
// nothing along path exists (it cannot be examined), the result is the
// last element tried: the filesystem root for an absolute path, "." for a
// relative one.
func NearestExisting(path string) string {
	path = filepath.Clean(path)
	for {
		if _, err := os.Lstat(path); err == nil {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

// Kind names the type of a file that is not a regular file, for an
// error: "a directory", "a symbolic link" (as Lstat sees one), "a named
// pipe", "a socket", "a device", or "an irregular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "an irregular file"
}
