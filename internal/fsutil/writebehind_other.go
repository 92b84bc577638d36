//go:build !linux

package fsutil

import "os"

// writeBehind does nothing here: macOS and FreeBSD have no call that
// starts writing a range without waiting for it, and their page caches
// write back on their own schedule; the sync at the end does the rest.
func writeBehind(*os.File, int64, int64) {}
