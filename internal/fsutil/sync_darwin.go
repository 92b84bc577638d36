package fsutil

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// syncFile uses fcntl(F_BARRIERFSYNC): what was written before reaches the
// disk before what is written after, which is the ordering an atomic
// write needs. It does not use F_FULLFSYNC, which os.File.Sync uses on
// macOS: that also empties the drive's cache, about 19 ms on Apple silicon
// each time, and a saved paste takes four syncs (the file, its directory,
// the manifest, its directory), for a guarantee a paste cache can do
// without (after a power cut the newest paste may be missing; it is still
// on the clipboard, and pbwrap never claims a file it has not linked). A
// volume that knows no barrier (a network or FUSE file system) gets
// fsync(2), the best it offers.
func syncFile(f *os.File) error {
	err := fcntlControl(f, func(fd int) error {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_BARRIERFSYNC, 0)
		return err
	})
	if err == nil {
		return nil
	}
	if err = fcntlControl(f, unix.Fsync); err != nil {
		return &fs.PathError{Op: "fsync", Path: f.Name(), Err: err}
	}
	return nil
}

// fcntlControl runs op on f's descriptor, again while a signal interrupts
// it.
func fcntlControl(f *os.File, op func(fd int) error) error {
	return control(f, func(fd int) error {
		return ignoringEINTR(func() error { return op(fd) })
	})
}
