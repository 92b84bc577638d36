//go:build darwin || freebsd || linux

package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// freeSpace is statfs(2)'s blocks available to unprivileged users times
// the block size; the two fields' types differ from system to system.
func freeSpace(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// freeFiles is statfs(2)'s free inodes, when it reports any.
func freeFiles(path string) (uint64, bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, false, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	return uint64(st.Ffree), st.Files != 0, nil
}
