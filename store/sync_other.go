//go:build !darwin

package store

import "os"

// syncFile flushes f's data and metadata to stable storage: fsync(2) on
// Unix systems (only macOS needs more care: see sync_darwin.go).
func syncFile(f *os.File) error {
	return f.Sync()
}
