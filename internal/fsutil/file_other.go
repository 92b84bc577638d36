//go:build !darwin && !freebsd && !linux

package fsutil

import "os"

// ReadRegular's open flags: nothing more is needed where opening a named
// pipe does not wait for a writer, and the Lstat before the open refuses
// a symbolic link.
const (
	readOpenFlags = 0
	noFollowFlag  = 0
)

// syncDir does nothing where a directory cannot be opened to be synced.
func syncDir(string) error { return nil }

// Identity says nothing where files have no Unix owners.
func Identity(os.FileInfo) (FileID, bool) { return FileID{}, false }
