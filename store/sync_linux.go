package store

import "os"

// syncFile flushes f's data and metadata to stable storage with fsync(2).
func syncFile(f *os.File) error {
	return f.Sync()
}
