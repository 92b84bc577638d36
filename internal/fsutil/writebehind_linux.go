package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeBehind starts writing the range to disk: sync_file_range(2) with
// SYNC_FILE_RANGE_WRITE, which queues the range's dirty pages for writing
// and does not wait for them.
func writeBehind(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { // Best effort: the sync at the end makes the file durable.
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
