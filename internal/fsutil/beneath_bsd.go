//go:build darwin || freebsd

package fsutil

import "os"

// openBeneath is the walk: macOS and the BSDs have no openat2.
func openBeneath(dir *os.File, name string) (*os.File, error) {
	return walkBeneath(dir, name)
}
