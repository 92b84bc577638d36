package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/printable"
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
func checkSaving(cfg *config, root string, rootOK bool) findings {
	r, full := checkSpace(cfg, root)
	if !rootOK {
		r.mark(1, skipped, "saving a test paste: not tried, the root fails a check above")
		return r
	}
	size := max(cfg.minBytes, 1)
	err := store.TrySave(root, size)
	if err == nil {
		r.ok(1, "saving a test paste: "+humanBytes(int64(size))+" written, synced, linked and removed")
		return r
	}
	line := fmt.Sprintf("saving a test paste: %v", printable.Error(err))
	if full { // checkSpace has said it, with its fix.
		r.mark(1, failed, line)
		return r
	}
	r.fail(1, line, fmt.Sprintf("pastes cannot be saved in %s (%s): %v; large pastes go in as text",
		printable.Quote(root), store.Why(err), printable.Error(err)), saveFix(err, printable.Quote(root)))
	return r
}

// checkSpace says how much space, and how many inodes, the file system
// under root has free, and reports whether that is too little for a
// paste of --min-bytes, which it then notes as a problem. Less than
// lowSpace is a problem too: a paste of a few MiB would not fit. Less than
// --max-store is said, and no problem: the disk fills before the cap
// trims the store.
func checkSpace(cfg *config, root string) (r findings, full bool) {
	free, where, err := fsutil.FreeSpace(root)
	if err != nil {
		r.mark(1, unknown, fmt.Sprintf("free space: %v", printable.Error(err)))
		return r, false
	}
	f := finding{depth: 1, status: passed}
	note := ""
	switch {
	case free < uint64(max(cfg.minBytes, 1)):
		f.status, full = failed, true
		f.problem, f.fix = fmt.Sprintf("only %s free under %s, less than --min-bytes (%s): every large paste will go in as text",
			humanBytes(int64(free)), printable.Quote(where), humanBytes(int64(cfg.minBytes))), spaceFix(printable.Quote(where))
	case free < lowSpace:
		f.status = failed
		f.problem, f.fix = fmt.Sprintf("only %s free under %s: large pastes will go in as text", humanBytes(int64(free)), printable.Quote(where)),
			spaceFix(printable.Quote(where))
	case cfg.maxStore > 0 && free < uint64(cfg.maxStore):
		note = fmt.Sprintf(", less than --max-store (%s): the disk fills before the cap trims the store", humanBytes(cfg.maxStore))
	}
	f.line = fmt.Sprintf("free space: %s on %s%s", humanBytes(int64(free)), printable.Quote(where), note)
	r = append(r, f)
	if files, limited, err := fsutil.FreeFiles(root); err == nil && limited && files < minFreeFiles {
		r.fail(1, fmt.Sprintf("free inodes: %d on %s", files, printable.Quote(where)), fmt.Sprintf("only %d inodes free under %s: a session needs a few files, so large pastes will go in as text", files, printable.Quote(where)),
			"remove files on that file system (df -i "+printable.Quote(where)+" shows its inodes), or set --root (PBWRAP_ROOT) to another file system")
		full = true
	}
	return r, full
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
