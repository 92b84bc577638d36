package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A NotRegularError is ReadRegular's error for a file that is not a
// regular file: a directory, a named pipe, a device, or (with
// ReadRegularNoFollow) a symbolic link. Mode is its type.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("read %s: %s, not a regular file", e.Path, Kind(e.Mode))
}

// A TooLargeError is ReadRegular's error for a file larger than its
// limit, Max bytes: Size is the file's size, or -1 when it grew past Max
// while being read.
type TooLargeError struct {
	Path string
	Size int64
	Max  int
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("read %s: grew past %d bytes while being read", e.Path, e.Max)
	}
	return fmt.Sprintf("read %s: %d bytes, more than %d", e.Path, e.Size, e.Max)
}

// ReadRegular reads the whole of the file at path, following symbolic
// links, which must be a regular file of at most max bytes: a settings
// file, a manifest, never a device or a named pipe. The file is checked
// before it is opened (opening a device can do things), and again once
// open (it may have been replaced), and opened without waiting and without
// becoming the controlling terminal; its size is checked before a byte is
// read, so a huge file costs no memory, and the read stops past max
// should the file grow meanwhile.
//
// It returns the text (empty, not nil, for an empty file) and the file's
// permissions; an error wrapping fs.ErrNotExist when there is no file, a
// *NotRegularError, a *TooLargeError, or the error of package os (which
// names the path), a read's as "read PATH: ERROR". It is safe for
// concurrent use.
func ReadRegular(path string, max int) ([]byte, fs.FileMode, error) {
	return readRegular(path, max, false)
}

// ReadRegularNoFollow is ReadRegular for a file that must not be a
// symbolic link (anyone could have made one in the directory): a link at
// path is a *NotRegularError, and is never followed, also when it replaces
// the file between the check and the open (O_NOFOLLOW). Links in the
// directories above path are followed.
func ReadRegularNoFollow(path string, max int) ([]byte, fs.FileMode, error) {
	return readRegular(path, max, true)
}

func readRegular(path string, max int, noFollow bool) ([]byte, fs.FileMode, error) {
	stat, flags := os.Stat, os.O_RDONLY|readOpenFlags
	if noFollow {
		stat, flags = os.Lstat, flags|noFollowFlag
	}
	fi, err := stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, &NotRegularError{path, fi.Mode()}
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close() // Best effort: only read.
	if fi, err = f.Stat(); err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, &NotRegularError{path, fi.Mode()}
	}
	if fi.Size() > int64(max) {
		return nil, 0, &TooLargeError{path, fi.Size(), max}
	}
	text, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // The path is in the message already.
		}
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if len(text) > max {
		return nil, 0, &TooLargeError{path, -1, max}
	}
	if text == nil {
		text = []byte{}
	}
	return text, fi.Mode().Perm(), nil
}

// WriteOptions say how WriteFileAtomic writes.
type WriteOptions struct {
	// Perm is the file's permissions. The temp file is created 0600 and
	// given Perm before it is renamed, so the file never has other
	// permissions under path.
	Perm fs.FileMode

	// TempPattern names the temp file in path's directory, as
	// os.CreateTemp's pattern does (the last "*" is the random part), so
	// that whoever cleans the directory can tell a temp file left by a
	// crash; "" is "." + the base name of path + ".tmp-*".
	TempPattern string

	// Durable syncs the file (SyncFile) before the rename and the
	// directory (SyncDir) after it, so that after a crash path holds the
	// old file or the new one, whole. Without it nothing is synced: a
	// reader still never sees a mix, but a crash may lose the new file.
	Durable bool

	// Owner, when not nil, gives the file that owner and group before
	// it is renamed (which takes root's rights unless they are the
	// caller's), so that a file replaced for another user stays theirs.
	Owner *FileID

	// BeforeRename, when not nil, is called once the new file is written,
	// just before the rename; an error from it leaves path as it is and
	// is returned. A writer that must not undo another's change to path
	// compares it there, where the window for a change is shortest.
	BeforeRename func() error

	// Displaced, when not nil and path exists, makes the write an
	// exchange: the new file and path's swap names in one step
	// (renameat2 RENAME_EXCHANGE on Linux, renamex_np RENAME_SWAP on
	// macOS), then Displaced is called with the name the old file now has,
	// to check it; an error swaps them back and is returned, so that a
	// change made to path at any time before the swap is found and kept.
	// Where names cannot be exchanged (FreeBSD, some file systems),
	// BeforeRename compares before a plain rename instead.
	Displaced func(name string) error
}

// beforeReplace runs right before the call that puts the new file at
// path: a variable, so that a test can write path there, in the window a
// concurrent writer has.
var beforeReplace = func() {}

// A FileID is who owns a file and how many names (hard links) it has.
type FileID struct {
	UID, GID int
	Links    uint64
}

// WriteFileAtomic replaces the file at path with data, so that a reader
// finds the old file or the new one, never a mix: a temp file in the same
// directory (O_EXCL, 0600), written, given o.Perm, synced if o.Durable,
// closed, and renamed over path, then the directory synced if o.Durable.
// On error the temp file is removed, and path is as it was unless the
// error is the directory's sync, which comes after the rename. Its errors
// are those of package os, which name the paths, and SyncFile's and
// SyncDir's. It is safe for concurrent use on different paths; two writes
// to one path race, and the last rename wins.
func WriteFileAtomic(path string, data []byte, o WriteOptions) error {
	dir := filepath.Dir(path)
	pattern := o.TempPattern
	if pattern == "" {
		pattern = "." + filepath.Base(path) + ".tmp-*"
	}
	// os.CreateTemp opens with O_CREATE|O_EXCL and mode 0600.
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = f.Close()           // Best effort: it may be closed already.
			_ = os.Remove(f.Name()) // Best effort.
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if o.Owner != nil {
		if err := f.Chown(o.Owner.UID, o.Owner.GID); err != nil {
			return err
		}
	}
	if err := f.Chmod(o.Perm); err != nil {
		return err
	}
	if o.Durable {
		if err := SyncFile(f); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if o.Displaced != nil {
		beforeReplace()
		switch err := exchange(f.Name(), path); {
		case err == nil:
			// The old file has the temp name now: the deferred removal
			// removes it, or the new file once swapped back.
			if err := o.Displaced(f.Name()); err != nil {
				if xerr := exchange(f.Name(), path); xerr != nil {
					renamed = true // Keep both: the temp name holds the old file.
					return fmt.Errorf("%w; and putting %s back from %s failed: %w", err, path, f.Name(), xerr)
				}
				return err
			}
			if !o.Durable {
				return nil
			}
			return SyncDir(dir)
		case !errors.Is(err, errNoExchange) && !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	if o.BeforeRename != nil {
		if err := o.BeforeRename(); err != nil {
			return err
		}
		beforeReplace()
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	renamed = true
	if !o.Durable {
		return nil
	}
	return SyncDir(dir)
}

// SyncFile makes what was written to f reach the disk before anything
// written after it: the data of a file before the name that links it or
// replaces another. That ordering is what an atomic write needs, so that
// a crash never leaves a name on a file that is not whole. On macOS it is
// fcntl(F_BARRIERFSYNC), not the F_FULLFSYNC of os.File.Sync (see
// sync_darwin.go); elsewhere fsync(2). Its error is an *fs.PathError
// naming f.
func SyncFile(f *os.File) error { return syncFile(f) }

// WriteBehind starts writing n bytes of f from off to disk, without
// waiting for them (Linux: sync_file_range with SYNC_FILE_RANGE_WRITE; a
// no-op elsewhere), so that a SyncFile later has little left to write. It
// makes nothing durable by itself, and does not fail: what it could not
// start, SyncFile writes.
func WriteBehind(f *os.File, off, n int64) { writeBehind(f, off, n) }

// SyncDir makes the names last created or removed in the directory dir
// durable: fsync(2) of the directory (following a symbolic link to it: the
// names are in the directory it leads to). Some file systems (FUSE,
// network mounts) cannot sync a directory and say EINVAL or ENOTSUP: the
// names there are as durable as the file system makes them, which is not
// an error. Where directories cannot be opened to sync (not Unix), it does
// nothing. Its error is an *fs.PathError naming dir.
func SyncDir(dir string) error { return syncDir(dir) }
