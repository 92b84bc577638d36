package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFile makes what was written to f reach the disk before anything the
// store writes after it, with fcntl(F_BARRIERFSYNC): the file's data
// before the name that links it (a paste) or replaces the old file (the
// manifest), and those names before the next paste's. That ordering is
// what the store needs, so that a crash never leaves a paste or manifest
// name on a file that is not whole. It does not need F_FULLFSYNC, which
// os.File.Sync uses on macOS: that also empties the drive's cache, about
// 19 ms on Apple silicon each time, and a saved paste takes four syncs
// (the file, its directory, the manifest, its directory), for a guarantee a paste cache can do without (after a power
// cut the newest paste may be missing; it is still on the clipboard, and
// pbwrap never claims a file it has not linked). A volume that knows no
// barrier (a network or FUSE file system) gets fsync(2), the best it
// offers.
func syncFile(f *os.File) error {
	err := control(f, "fcntl F_BARRIERFSYNC", func(fd int) error {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_BARRIERFSYNC, 0)
		return err
	})
	if err == nil {
		return nil
	}
	return control(f, "fsync", unix.Fsync)
}
