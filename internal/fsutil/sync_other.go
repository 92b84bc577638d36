//go:build !darwin

package fsutil

import "os"

// syncFile is fsync(2) (os.File.Sync), whose error names f: only macOS
// needs more care (see sync_darwin.go).
func syncFile(f *os.File) error { return f.Sync() }
