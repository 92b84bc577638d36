package store

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/printable"
)

// DefaultTTL is how long an ended session is kept: 30 days, as long as the
// agents keep the conversations that cite its pastes (Claude Code removes
// transcripts 30 days old by default, its cleanupPeriodDays; the other
// agents keep theirs as long or longer). A conversation
// resumed within that finds what was pasted into it. The size cap
// (DefaultMaxBytes) keeps the store small meanwhile.
const DefaultTTL = 30 * 24 * time.Hour

// DefaultMaxBytes is the default cap on what the sessions under a root
// hold together: 1 GiB. Pastes are text, and rarely more than a few
// hundred kilobytes; a user who pastes a 1 MB log ten times a day keeps
// about 300 MB over the 30 days of DefaultTTL. So the cap is not felt in
// ordinary use, and bounds what a stream of very large pastes takes.
const DefaultMaxBytes int64 = 1 << 30

// StaleCleanupLock is how old <root>/.cleanup.lock must be before another
// cleaner may break it although its holder still runs: cleaning a root
// takes well under a second, so a holder that has been at it for ten
// minutes is stuck (a pbwrap stopped with Ctrl-Z, say), and the old
// sessions should not wait for it. pi-pasteboard uses the same ten minutes.
const StaleCleanupLock = 10 * time.Minute

// CleanupLockName is the lock file's name in the root.
const CleanupLockName = ".cleanup.lock"

// ErrNotDue is returned by Clean with Every when the root was gone
// through less than Every ago. Like ErrCleanupBusy it is no failure, and
// Clean changed nothing.
var ErrNotDue = errors.New("the root was cleaned a short while ago")

// ErrCleanupBusy is returned by Clean when another cleaner holds the
// root's cleanup lock. It is not a failure: that cleaner is doing the
// work, and callers skip quietly. A Clean that returns it has changed no
// session.
var ErrCleanupBusy = errors.New("another cleanup is running")

// StaleCountersTemp is how old a temp file of the counters
// (<root>/.tmp-.counters.json-*) must be before a cleaner removes it, and
// then only while no one holds the counters lock. A write of the counters
// takes milliseconds, under that lock, so a temp file this old whose lock
// is free is one that a pbwrap killed mid-write left, and that no writer
// will ever rename.
const StaleCountersTemp = StaleCleanupLock

// maxSkippedNames bounds how many foreign entries of one session a report
// names, so that a directory someone filled with files gives one line, not
// thousands.
const maxSkippedNames = 5

// A Cleaner removes expired sessions from a root, and then, while the
// sessions left hold more than a cap, the ended ones written to longest
// ago, as cmd/go trims its build cache.
//
// A session is expired when its age, Now minus the modification time of
// its directory (which every saved paste and manifest write refreshes), is
// more than TTL: a session exactly TTL old is kept. A live session, one
// whose .lock a running pbwrap holds, is never removed, however old.
//
// Only what pbwrap makes is removed: directories, not symlinks, directly in
// the root, named by a canonical UUID, holding nothing but regular files
// with pbwrap's names (paste-<n>.txt, manifest.json, .lock, debug.log and
// the .tmp-* files a crash left). A session holding anything else is left
// whole and reported. The root itself always stays, and so do its own
// files (the cleanup lock, the counters and their lock, the record of
// removals), but for the temp file of a write of the counters or of the
// record that a crash left: that one, a regular file (a symlink is never
// followed, only reported), the user's, is removed once it is
// StaleCountersTemp old and no writer holds its lock (the counters lock,
// the cleanup lock).
//
// Each session removed (not with DryRun) is added to the root's record of
// removals (RemovalsName) with why: expired, trimmed, or All.
//
// A session not yet expired is kept, but when its lock is free, the
// pbwrap that wrote it is gone (it ended, or crashed, or was killed) and
// any temp file still in it (.tmp-*: a paste or manifest being written)
// will never be finished: those, regular files with pbwrap's temp names,
// are removed, so that a crash in the middle of a 1 GB paste does not
// cost 2 GB of disk for a week. The temp files of a live session, or of
// one being made, are never touched. The session keeps its age: its
// directory gets its modification time back.
type Cleaner struct {
	// Root is the root, already resolved (ResolveRoot). It must pass the
	// root's safety rules, as for OpenRoot (not a symlink, a directory, the
	// user's, a path references can carry), but Clean never creates it: a
	// missing root has nothing to clean and is no error. Nor does Clean
	// tighten a root open to group or others; it only removes: it cleans a
	// root that they can only read as it is, and refuses one they can
	// write to (see rootRules).
	Root string

	// TTL is how long a session is kept after its last write. The zero
	// TTL means DefaultTTL; a negative one is an error. To remove every
	// session that is not live, set All.
	TTL time.Duration

	// MaxBytes caps what the sessions under the root hold together (the
	// sizes of their regular files). When the sessions that the TTL keeps
	// hold more, Clean removes ended ones, the one whose last write is the
	// oldest first, until they hold MaxBytes or less: it trims them. A
	// live session is never trimmed, nor one holding what pbwrap does not
	// make, so the store stays above the cap while such sessions hold
	// more. The zero MaxBytes means DefaultMaxBytes; a negative one sets
	// no cap. With Only, nothing is trimmed.
	MaxBytes int64

	// Every, when positive, makes Clean go through the root at most that
	// often, as cmd/go trims its cache at most once a day: Clean returns
	// ErrNotDue, having changed nothing, when the root's record of
	// removals says that a Cleaner with Every went through it less than
	// Every ago (by Now), and otherwise records when it did, if the root
	// held more than one session. For the cleanup at each start, which
	// otherwise reads every session each time; the zero Every cleans every
	// time.
	Every time.Duration

	// All removes every session that is not live, whatever its age. A
	// session still being made (no manifest yet, its directory less than a
	// minute old) counts as live.
	All bool

	// DryRun reports what would be removed and removes nothing. A dry run
	// takes no lock and changes nothing, so while another cleaner runs it
	// may report sessions that this one is removing.
	DryRun bool

	// Only, when not nil, limits the sessions Clean may remove to those it
	// names, each with the modification time its directory had when it
	// was listed (SessionSummary.ModTime): what a user was shown and
	// confirmed. Each must still be removable by the rules above when
	// Clean gets to it (expired, or All; not live); one modified since it
	// was listed is kept and reported in Skipped. Every other entry of the
	// root is left as it is and not reported, and no temp file is swept.
	Only map[string]time.Time

	// Now is the clock that ages sessions and the cleanup lock; the zero
	// Now means time.Now. It must agree with the filesystem's clock, or a
	// held cleanup lock may be taken for a stale one: it is a test seam,
	// not a way to look into the future.
	Now func() time.Time
}

// A CleanReport says what Clean did.
type CleanReport struct {
	Removed   []SessionSummary // removed (or, with DryRun, would be), newest first
	Trimmed   []SessionSummary // not expired, removed (or, with DryRun, would be) to keep under MaxBytes; oldest first
	Live      []SessionSummary // expired by age but live (lock held): kept, however old; newest first
	Skipped   []string         // entries left alone, each "name: why" (not a session pbwrap made, a symlink, unknown files inside, an error)
	Temps     int              // temp files removed (or, with DryRun, that would be) from ended sessions not yet expired
	RootTemps int              // temp files of the counters that a crash left in the root, removed (or, with DryRun, that would be)
	Bytes     int64            // bytes freed (sum of the sizes of the files removed, temp files included), or that would be
	Size      int64            // what the sessions left hold together (or, with DryRun, would hold); 0 with Only
}

// Clean removes expired sessions under the root's cleanup lock and reports
// what it did. Without waiting: when another cleaner holds the lock, Clean
// returns ErrCleanupBusy having changed nothing.
//
// A session that cannot be read or removed does not stop the others: it
// is reported in Skipped with the error, which names the path. Clean
// returns an error only when it cannot start: an unsafe root (wrapping
// ErrUnsafeRoot), a root it cannot read, a lock it cannot make.
//
// Clean is safe for concurrent use, also on the same root: all but one of
// the concurrent calls return ErrCleanupBusy (an flock taken through
// another descriptor conflicts, in the same process too).
func (c *Cleaner) Clean() (*CleanReport, error) {
	ttl, err := c.ttl()
	if err != nil {
		return nil, err
	}
	root, err := openExistingRoot(c.Root)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return &CleanReport{}, nil
	}
	defer root.Close() // Best effort: only read.
	now := c.now()
	if !c.DryRun {
		l, err := lockCleanup(c.Root, now)
		if err != nil {
			return nil, err
		}
		// Best effort: a lock file left behind, held by no one, is taken
		// over by the next cleaner.
		defer l.release()
		if c.Every > 0 && !c.due(now) {
			return nil, ErrNotDue
		}
	}
	names, err := readNames(root)
	if err != nil {
		return nil, err
	}
	rep := &CleanReport{}
	var kept []keptSession
	for _, name := range names {
		if k, ok := c.cleanEntry(rep, name, now, ttl); ok {
			kept = append(kept, k)
		}
	}
	if c.Only == nil {
		c.trim(rep, kept, now)
	}
	if !c.DryRun {
		// Only a root with sessions to go through is worth skipping: the
		// time is not recorded in one holding at most one (the caller's
		// own, say), which a run that saved nothing leaves empty.
		var cleaned time.Time
		if c.Every > 0 && len(kept)+len(rep.Removed) > 1 {
			cleaned = now
		}
		if err := addRemovals(c.Root, c.removals(rep, now, ttl), cleaned); err != nil {
			rep.skip(RemovalsName, "not updated: "+err.Error())
		}
	}
	return rep, nil
}

// due reports whether a Cleaner with Every may go through the root at
// now: the root's record of removals says it was last gone through Every
// ago or longer, or in the future (a clock set back), or never, or cannot
// be read (the cleaning then reports why).
func (c *Cleaner) due(now time.Time) bool {
	r, err := readRemovals(filepath.Join(c.Root, RemovalsName))
	if err != nil || r.Cleaned.IsZero() || r.Cleaned.After(now) {
		return true
	}
	return now.Sub(r.Cleaned) >= c.Every
}

// removals is the record of the sessions rep says were removed.
func (c *Cleaner) removals(rep *CleanReport, now time.Time, ttl time.Duration) []Removal {
	var rs []Removal
	for _, s := range slices.Backward(rep.Removed) { // Oldest first, as the record is.
		r := Removal{ID: s.ID, Ended: s.ModTime, Removed: now, Why: RemovedExpired, TTL: ttl}
		if c.All {
			r.Why, r.TTL = RemovedAll, 0
		}
		rs = append(rs, r)
	}
	for _, s := range rep.Trimmed {
		rs = append(rs, Removal{ID: s.ID, Ended: s.ModTime, Removed: now, Why: RemovedTrimmed, Limit: c.maxBytes()})
	}
	return rs
}

// A keptSession is a session that cleanEntry read and kept.
type keptSession struct {
	d    *sessionDir
	live bool // found live; false also when not probed
}

// maxBytes is the cap, -1 for none.
func (c *Cleaner) maxBytes() int64 {
	switch {
	case c.MaxBytes == 0:
		return DefaultMaxBytes
	case c.MaxBytes < 0:
		return -1
	}
	return c.MaxBytes
}

// trim removes ended sessions among kept, the one whose last write is the
// oldest first (the newer of two at the same time first kept: ids are in
// time order), until kept hold the cap or less (see Cleaner.MaxBytes),
// and adds what it did to rep.
func (c *Cleaner) trim(rep *CleanReport, kept []keptSession, now time.Time) {
	for _, k := range kept {
		rep.Size += k.d.bytes
	}
	limit := c.maxBytes()
	if limit < 0 || rep.Size <= limit {
		return
	}
	slices.SortStableFunc(kept, func(a, b keptSession) int {
		return cmp.Or(a.d.modTime.Compare(b.d.modTime), cmp.Compare(a.d.id, b.d.id))
	})
	for _, k := range kept {
		if rep.Size <= limit {
			return
		}
		if k.live || len(k.d.foreign) > 0 {
			continue // Never trimmed; a foreign file is reported when the session expires.
		}
		// Probed only now, when it would go, as for an expired session.
		if live, err := k.d.isLive(now); err != nil || live {
			continue
		}
		s := k.d.summary()
		if c.DryRun {
			rep.Trimmed = append(rep.Trimmed, s)
			rep.Bytes += s.Bytes
			rep.Size -= s.Bytes
			continue
		}
		freed, err := k.d.remove()
		rep.Bytes += freed
		rep.Size -= freed
		if err != nil {
			rep.skip(k.d.id, err.Error())
			continue
		}
		s.Bytes = freed
		rep.Trimmed = append(rep.Trimmed, s)
	}
}

func (c *Cleaner) ttl() (time.Duration, error) {
	switch {
	case c.TTL < 0:
		return 0, fmt.Errorf("store: clean %s: negative TTL %v", c.Root, c.TTL)
	case c.TTL == 0:
		return DefaultTTL, nil
	}
	return c.TTL, nil
}

func (c *Cleaner) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

// cleanEntry removes the root's entry name if it is an expired session
// that is not live, and adds what it did to rep. It returns the session
// it read and kept, if it did, for trim.
func (c *Cleaner) cleanEntry(rep *CleanReport, name string, now time.Time, ttl time.Duration) (keptSession, bool) {
	listed, confirmed := c.Only[name]
	switch {
	case c.Only != nil && !confirmed:
		return keptSession{}, false // Not what the caller asked for.
	case isCountersTemp(name):
		c.sweepRootTemp(rep, name, now, func() (bool, error) { return countersLockHeld(c.Root) })
		return keptSession{}, false
	case isRemovalsName(name) && name != RemovalsName:
		// Only a cleaner writes the record, under the cleanup lock, which
		// this one holds (a dry run removes nothing).
		c.sweepRootTemp(rep, name, now, func() (bool, error) { return false, nil })
		return keptSession{}, false
	case name == CleanupLockName || isCountersName(name) || name == RemovalsName:
		return keptSession{}, false // The root's own files: the counters and the removals outlive every session.
	case !IsSessionID(name):
		rep.skip(name, "not a session pbwrap made")
		return keptSession{}, false
	}
	d, err := statSession(c.Root, name)
	if err == nil && confirmed && !d.modTime.Equal(listed) {
		rep.skip(name, "changed since it was listed, so it was kept")
		return keptSession{}, false
	}
	if err == nil && !c.All && now.Sub(d.modTime) <= ttl {
		if d.read() != nil {
			return keptSession{}, false // Reported once it expires.
		}
		c.sweepTemps(rep, d, now) // Not expired: only what a crash left.
		return keptSession{d: d}, true
	}
	if err == nil {
		err = d.read()
	}
	var ns *notSessionError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return keptSession{}, false // Gone since the root was read.
	case errors.As(err, &ns):
		rep.skip(name, ns.why)
		return keptSession{}, false
	case err != nil:
		rep.skip(name, err.Error())
		return keptSession{}, false
	case len(d.foreign) > 0:
		rep.skip(name, "holds what pbwrap does not make, so nothing in it was removed: "+listNames(d.foreign))
		return keptSession{d: d}, true
	}
	// The lock is probed only now, the session found expired, and only
	// when a probe cannot disturb a session being made (see isLive).
	live, err := d.isLive(now)
	if err != nil {
		rep.skip(name, err.Error())
		return keptSession{}, false
	}
	return c.dispose(rep, d, live)
}

// dispose keeps the expired session d read, when it is live, or removes
// it (with DryRun, says it would), and adds what it did to rep. It returns
// the session when it kept it.
func (c *Cleaner) dispose(rep *CleanReport, d *sessionDir, live bool) (keptSession, bool) {
	s := d.summary()
	switch {
	case live:
		s.Live = true
		rep.Live = append(rep.Live, s)
		return keptSession{d: d, live: true}, true
	case c.DryRun:
		rep.Removed = append(rep.Removed, s)
		rep.Bytes += s.Bytes
	default:
		freed, err := d.remove()
		rep.Bytes += freed
		if err != nil {
			rep.skip(d.id, err.Error())
			return keptSession{}, false
		}
		s.Bytes = freed
		rep.Removed = append(rep.Removed, s)
	}
	return keptSession{}, false
}

// sweepTemps removes the temp files in the session d read, which is not
// expired and is kept, when its lock is free (see Cleaner), and adds what
// it did to rep; d's size then leaves them out. A session whose lock
// cannot be probed is left as it is, and reported only once it expires.
func (c *Cleaner) sweepTemps(rep *CleanReport, d *sessionDir, now time.Time) {
	if len(d.temps()) == 0 {
		return
	}
	// Probed only now, temp files found, and only when a probe cannot
	// disturb a session being made (see isLive).
	if live, err := d.isLive(now); err != nil || live {
		return
	}
	if c.DryRun {
		for _, f := range d.temps() {
			rep.Temps++
			rep.Bytes += f.size
			d.bytes -= f.size
		}
		return
	}
	n, freed, err := d.removeTemps()
	rep.Temps += n
	rep.Bytes += freed
	d.bytes -= freed
	if err != nil {
		rep.skip(d.id, err.Error())
	}
}

// isCountersTemp reports whether name, in the root, is the name of a temp
// file of a write of the counters (see writeFileAtomic).
func isCountersTemp(name string) bool {
	return strings.HasPrefix(name, tempPrefix+CountersName+"-")
}

// sweepRootTemp removes the temp file name of a write of the counters or
// of the removals from the root, when a crash left it: a regular file of
// the user's (a symlink is reported, never followed), older than
// StaleCountersTemp at now, while held says that no writer holds the
// file's lock. It adds what it did to rep.
func (c *Cleaner) sweepRootTemp(rep *CleanReport, name string, now time.Time, held func() (bool, error)) {
	path := filepath.Join(c.Root, name)
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return // Renamed or removed since the root was read.
	case err != nil:
		rep.skip(name, fmt.Sprintf("store: check %s: %v", path, err))
		return
	case fi.Mode()&fs.ModeSymlink != 0:
		rep.skip(name, "a symlink, not followed")
		return
	case !fi.Mode().IsRegular():
		rep.skip(name, "not a regular file")
		return
	}
	if uid, err := ownerUID(fi); err != nil || uid != os.Geteuid() {
		rep.skip(name, "not owned by you")
		return
	}
	if now.Sub(fi.ModTime()) <= StaleCountersTemp {
		return // A write of the counters may be under way.
	}
	switch held, err := held(); {
	case err != nil:
		rep.skip(name, err.Error())
		return
	case held:
		return // Its writer may still run (stopped, say): it is theirs.
	}
	if !c.DryRun {
		// unlink(2) removes the name, whatever was put in its place since
		// the look above, and never what a symlink points to.
		if err := unlink(path); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				rep.skip(name, fmt.Sprintf("store: remove %s: %v", path, err))
			}
			return
		}
	}
	rep.RootTemps++
	rep.Bytes += fi.Size()
}

// countersLockHeld reports whether a process holds the counters lock of
// root, as countPaste does while it writes the counters, with a probe that
// lets go at once. A missing lock file is not held.
func countersLockHeld(root string) (bool, error) {
	path := filepath.Join(root, CountersLockName)
	f, err := openExisting(path) // O_NOFOLLOW|O_NONBLOCK
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: check counters lock: %w", err)
	}
	defer f.Close() // Best effort: closing releases the probe's lock.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, fmt.Errorf("store: check counters lock %s: not a regular file", path)
	}
	switch err := flock(f, lockSharedProbe); {
	case isWouldBlock(err):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("store: check counters lock %s: %w", path, err)
	}
	return false, nil
}

// temps returns the temp files among pbwrap's files in d.
func (d *sessionDir) temps() []ownFile {
	var temps []ownFile
	for _, f := range d.own {
		if strings.HasPrefix(f.name, tempPrefix) {
			temps = append(temps, f)
		}
	}
	return temps
}

// removeTemps removes the temp files of the session d read, with
// unlink(2), which never removes a directory put in a file's place, and
// returns how many it removed and the bytes freed, also on error. A file
// already gone is no error. The directory gets its modification time
// back, so that the session keeps its age.
func (d *sessionDir) removeTemps() (n int, freed int64, err error) {
	defer func() { _ = os.Chtimes(d.dir, time.Time{}, d.modTime) }() // Best effort: at worst the session is kept a TTL longer.
	for _, f := range d.temps() {
		path := filepath.Join(d.dir, f.name)
		switch err := unlink(path); {
		case err == nil:
			n++
			freed += f.size
		case !errors.Is(err, fs.ErrNotExist):
			return n, freed, fmt.Errorf("store: remove %s: %w", path, err)
		}
	}
	return n, freed, nil
}

func (rep *CleanReport) skip(name, why string) {
	rep.Skipped = append(rep.Skipped, printable.Quote(name)+": "+why)
}

// listNames joins names, at most maxSkippedNames of them.
func listNames(names []string) string {
	if len(names) <= maxSkippedNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxSkippedNames], ", "), len(names)-maxSkippedNames)
}

// remove removes pbwrap's files from the session directory, then the
// directory, and returns the bytes freed, also on error. The manifest and
// the lock go last, so that a session whose removal stopped half-way still
// says what it was. A file already gone (removed by a cleaner whose lock
// was broken) is no error, nor is the directory already gone. On error the
// directory gets its modification time back, so that the session keeps its
// age and the next cleanup tries again rather than wait for a whole TTL.
func (d *sessionDir) remove() (freed int64, err error) {
	defer func() {
		if err != nil {
			_ = os.Chtimes(d.dir, time.Time{}, d.modTime) // Best effort.
		}
	}()
	slices.SortStableFunc(d.own, func(a, b ownFile) int { return cmp.Compare(removalRank(a.name), removalRank(b.name)) })
	for _, f := range d.own {
		path := filepath.Join(d.dir, f.name)
		switch err := unlink(path); {
		case err == nil:
			freed += f.size
		case !errors.Is(err, fs.ErrNotExist):
			return freed, fmt.Errorf("store: remove %s: %w", path, err)
		}
	}
	switch err := rmdir(d.dir); {
	case isNotEmpty(err):
		return freed, fmt.Errorf("store: remove %s: not empty after removing pbwrap's files: something was added meanwhile", d.dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return freed, fmt.Errorf("store: remove %s: %w", d.dir, err)
	}
	return freed, nil
}

// removalRank orders pbwrap's files for removal: pastes and the rest
// first, then the manifest, then the lock.
func removalRank(name string) int {
	switch name {
	case manifestName:
		return 1
	case lockName:
		return 2
	}
	return 0
}
