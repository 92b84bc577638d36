package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/store"
)

// checkSaving finds whatever would make saving a paste in root fail that
// the root's rules (store.CheckRoot) do not: the free space and inodes
// under it, against the smallest paste that is saved (--min-bytes), and,
// when the root passed its rules (rootOK), a test paste saved there as a
// session saves one and removed (store.TrySave), which fails where saving
// would: a read-only file system, a full disk, a quota, a directory not
// writable, an immutable attribute, no file locks, an I/O error. Each
// failure is a problem with its fix.
func (d *doctor) checkSaving(cfg *config, root string, rootOK bool) {
	full := d.checkSpace(cfg, root)
	if !rootOK {
		fmt.Fprintln(d.out, "  --    saving a test paste: not tried, the root fails a check above")
		return
	}
	size := max(cfg.minBytes, 1)
	err := store.TrySave(root, size)
	if err == nil {
		fmt.Fprintf(d.out, "  ok    saving a test paste: %s written, synced, linked and removed\n", humanBytes(int64(size)))
		return
	}
	fmt.Fprintf(d.out, "  FAIL  saving a test paste: %v\n", printableError(err))
	if !full { // checkSpace has said it, with its fix.
		d.problem(fmt.Sprintf("pastes cannot be saved in %s (%s): %v; large pastes go in as text",
			printable(root), store.Why(err), printableError(err)), saveFix(err, printable(root)))
	}
}

// checkSpace says how much space, and how many inodes, the file system
// under root has free, and reports whether that is too little for a
// paste of --min-bytes, which it then notes as a problem. Less than
// lowSpace is a problem too: a paste of a few MiB would not fit. Less than
// --max-store is said, and no problem: the disk fills before the cap
// trims the store.
func (d *doctor) checkSpace(cfg *config, root string) (full bool) {
	free, where, err := fsutil.FreeSpace(root)
	if err != nil {
		fmt.Fprintf(d.out, "  ?     free space: %v\n", printableError(err))
		return false
	}
	mark, note := "ok  ", ""
	switch {
	case free < uint64(max(cfg.minBytes, 1)):
		mark, full = "FAIL", true
		d.problem(fmt.Sprintf("only %s free under %s, less than --min-bytes (%s): every large paste will go in as text",
			humanBytes(int64(free)), printable(where), humanBytes(int64(cfg.minBytes))), spaceFix(printable(where)))
	case free < lowSpace:
		mark = "FAIL"
		d.problem(fmt.Sprintf("only %s free under %s: large pastes will go in as text", humanBytes(int64(free)), printable(where)),
			spaceFix(printable(where)))
	case cfg.maxStore > 0 && free < uint64(cfg.maxStore):
		note = fmt.Sprintf(", less than --max-store (%s): the disk fills before the cap trims the store", humanBytes(cfg.maxStore))
	}
	fmt.Fprintf(d.out, "  %s  free space: %s on %s%s\n", mark, humanBytes(int64(free)), printable(where), note)
	if files, limited, err := fsutil.FreeFiles(root); err == nil && limited && files < minFreeFiles {
		fmt.Fprintf(d.out, "  FAIL  free inodes: %d on %s\n", files, printable(where))
		d.problem(fmt.Sprintf("only %d inodes free under %s: a session needs a few files, so large pastes will go in as text", files, printable(where)),
			"remove files on that file system (df -i "+printable(where)+" shows its inodes), or set --root (PBWRAP_ROOT) to another file system")
		full = true
	}
	return full
}

// minFreeFiles is how many free inodes doctor wants under the root: a
// session makes a directory, a lock, a manifest and its temp file, and
// each paste two temp files and its name.
const minFreeFiles = 16

// spaceFix is the fix of a file system under where that is (nearly) full.
func spaceFix(where string) string {
	return "free some space there (df -h " + where + "), or set --root (PBWRAP_ROOT) to a roomier file system"
}

// saveFix says how to fix what made saving in root fail with err.
func saveFix(err error, root string) string {
	elsewhere := "or set --root (PBWRAP_ROOT) to a directory on another file system"
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return "see the error above; " + elsewhere
	}
	switch errno {
	case syscall.EROFS:
		return "the file system under " + root + " is mounted read-only: remount it read-write (mount -o remount,rw), " + elsewhere
	case syscall.ENOSPC:
		return "free some space or inodes there (df -h " + root + ", df -i " + root + "), " + elsewhere
	case syscall.EDQUOT:
		return "you are over your disk quota there (quota -s): remove some of your files, " + elsewhere
	case syscall.EACCES:
		return "give yourself write permission (chmod u+rwx " + root + "), " + elsewhere
	case syscall.EPERM:
		return "an immutable or append-only attribute may forbid it (lsattr -d " + root + "; chattr -i -a " + root + "), " + elsewhere
	case syscall.EIO:
		return "the disk under " + root + " reports I/O errors (dmesg says more): check it, " + elsewhere
	case syscall.ENOLCK, syscall.EOPNOTSUPP:
		return "the file system under " + root + " has no file locks (flock), which pbwrap's sessions need: set --root (PBWRAP_ROOT) to a directory on a local file system"
	}
	return "see the error above; " + elsewhere
}
