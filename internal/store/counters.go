package store

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// The root's counters: how many pastes each agent had kept out of its
// context, day by day, since the first paste pbwrap recorded under the
// root. Session manifests go with their sessions (pbwrap clean, the TTL);
// the counters stay, so that pbwrap stats can count since the first use.
const (
	// CountersName is the counters file in the root, replaced as a whole
	// (writeFileAtomic) under the counters lock. Cleaning never removes it.
	CountersName = ".counters.json"

	// CountersLockName is the file in the root whose flock is held while
	// the counters are read, added to and written back. It is never
	// removed: the lock is its flock, which dies with its process.
	CountersLockName = ".counters.lock"

	// CountersFormat is the version of the counters file this package
	// writes and reads.
	CountersFormat = 1
)

// The counters' limits. Agents can write in the root, so the counters are
// read as the manifest is: bounded, and every value checked.
const (
	// maxCounts bounds the rows, one per agent and day: 27 years of one
	// agent used every day, 5 years of five. A paste that needs one more row
	// is not counted (the error says so).
	maxCounts = 10000

	// maxCountBytes is what one row may take, indented as it is written:
	// about 150 bytes for a short agent name, 400 for a name of
	// maxAgentBytes.
	maxCountBytes = 512

	// maxCountersBytes bounds what ReadCounters reads: 5 MiB.
	maxCountersBytes = maxCounts * maxCountBytes

	// maxAgentBytes bounds an agent's name: a file name's length.
	maxAgentBytes = 255

	// maxCounterValue bounds each number, far above any real count (a
	// pebibyte of pastes a day), so that adding never overflows; counts
	// stop growing there.
	maxCounterValue = 1 << 50

	// countersLockWait bounds how long counting a paste waits for another
	// pbwrap to finish its own: a read and a write of a few kilobytes
	// take far less. Counting runs on the path of the user's input, so a
	// lock that someone holds for good costs each paste at most this much.
	countersLockWait = 200 * time.Millisecond

	// countersLockPoll is how often the lock is tried again meanwhile.
	countersLockPoll = 5 * time.Millisecond

	// DayLayout is the format of Count.Day: a date in local time.
	DayLayout = "2006-01-02"
)

// isCountersName reports whether name, in the root, is the counters file,
// its lock, or the temp file of a write of the counters (which a cleaner
// removes when a crash left it: sweepCountersTemp).
func isCountersName(name string) bool {
	return name == CountersName || name == CountersLockName || strings.HasPrefix(name, tempPrefix+CountersName)
}

// ErrNotCounted is wrapped by Record's error when the paste is in the
// manifest but could not be added to the root's counters.
var ErrNotCounted = errors.New("paste not counted")

// A Count is what one agent's pastes came to on one day.
type Count struct {
	Day      string `json:"day"`   // DayLayout, the local date of the pastes
	Agent    string `json:"agent"` // the command's base name, as in Manifest.Argv0
	Saved    int64  `json:"saved"` // references typed in place of a paste (OutcomeSaved)
	Bytes    int64  `json:"bytes"` // of the saved pastes
	Inline   int64  `json:"inline"`
	Fallback int64  `json:"fallback"`
}

// Counters is the whole counters file.
type Counters struct {
	Format int       `json:"format"` // CountersFormat
	First  time.Time `json:"first"`  // the first paste counted; zero when none is
	Counts []Count   `json:"counts"` // by day, then agent, each pair once
}

// ReadCounters reads the counters of the root at path and checks them,
// running the root's rules for listing first (an unsafe root is refused,
// and nothing is changed). A missing root or counters file gives counters
// with no counts. It refuses a counters file that is a symlink or not a
// regular file, one larger than its limit (before reading it), one that is
// not JSON, and one whose values are not what this package writes (see
// checkCounters); the error names the file and says why.
func ReadCounters(root string) (*Counters, error) {
	d, err := openExistingRoot(root)
	if err != nil || d == nil {
		return &Counters{Format: CountersFormat}, err
	}
	_ = d.Close() // Only read.
	return readCounters(filepath.Join(root, CountersName))
}

// readCounters reads and checks the counters file at path; a missing file
// gives counters with no counts.
func readCounters(path string) (*Counters, error) {
	data, _, err := fsutil.ReadRegularNoFollow(path, maxCountersBytes)
	var notRegular *fsutil.NotRegularError
	var tooLarge *fsutil.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Counters{Format: CountersFormat}, nil
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("store: read counters %s: not a regular file", path)
	case errors.As(err, &tooLarge) && tooLarge.Size < 0:
		return nil, fmt.Errorf("store: read counters %s: grew past the %d bytes the counters may have while being read", path, maxCountersBytes)
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("store: read counters %s: %d bytes, more than the %d the counters may have", path, tooLarge.Size, maxCountersBytes)
	case err != nil:
		return nil, fmt.Errorf("store: read counters: %w", err)
	}
	var c Counters
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("store: read counters %s: %w", path, err)
	}
	if err := checkCounters(&c); err != nil {
		return nil, fmt.Errorf("store: read counters %s: %w (remove it to count from zero)", path, err)
	}
	return &c, nil
}

// checkCounters reports why c is not counters this package could have
// written: another format, too many rows, rows out of order or twice, a
// bad day or agent name, a number out of range.
func checkCounters(c *Counters) error {
	switch {
	case c.Format != CountersFormat:
		return fmt.Errorf("format %d, want %d", c.Format, CountersFormat)
	case len(c.Counts) > maxCounts:
		return fmt.Errorf("%d counts, more than the %d the counters hold", len(c.Counts), maxCounts)
	case len(c.Counts) > 0 && c.First.IsZero():
		return errors.New("counts without the time of the first paste")
	}
	for i, n := range c.Counts {
		if err := checkCount(n); err != nil {
			return fmt.Errorf("count %d: %w", i+1, err)
		}
		if i > 0 && compareCounts(c.Counts[i-1], n) >= 0 {
			return fmt.Errorf("count %d: not after count %d (by day, then agent)", i+1, i)
		}
	}
	return nil
}

// checkCount reports why n is not a row this package writes.
func checkCount(n Count) error {
	if _, err := time.Parse(DayLayout, n.Day); err != nil {
		return fmt.Errorf("day %q is not a date (%s)", n.Day, DayLayout)
	}
	if agentName(n.Agent) != n.Agent {
		return fmt.Errorf("agent %q: not a name pbwrap writes", n.Agent)
	}
	for _, v := range []int64{n.Saved, n.Bytes, n.Inline, n.Fallback} {
		if v < 0 || v > maxCounterValue {
			return fmt.Errorf("%d is not a count from 0 to %d", v, int64(maxCounterValue))
		}
	}
	return nil
}

// agentName is the command's name as the counters keep it: valid UTF-8
// (as JSON carries it), at most maxAgentBytes, cut at a rune.
func agentName(argv0 string) string {
	s := strings.ToValidUTF8(argv0, string(utf8.RuneError))
	for len(s) > maxAgentBytes {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

func compareCounts(a, b Count) int {
	return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Agent, b.Agent))
}

// add counts the paste p of agent, on the local date of its time (or of
// now, for a record without one).
func (c *Counters) add(agent string, p PasteRecord, now time.Time) error {
	t := p.Time
	if t.IsZero() {
		t = now
	}
	key := Count{Day: t.Local().Format(DayLayout), Agent: agentName(agent)}
	i, found := slices.BinarySearchFunc(c.Counts, key, compareCounts)
	if !found {
		if len(c.Counts) >= maxCounts {
			return fmt.Errorf("the counters hold %d counts, the most they may", maxCounts)
		}
		c.Counts = slices.Insert(c.Counts, i, key)
	}
	n := &c.Counts[i]
	switch p.Outcome {
	case OutcomeSaved:
		n.Saved = addCapped(n.Saved, 1)
		n.Bytes = addCapped(n.Bytes, p.Bytes)
	case OutcomeInline:
		n.Inline = addCapped(n.Inline, 1)
	case OutcomeFallback:
		n.Fallback = addCapped(n.Fallback, 1)
	}
	if c.First.IsZero() || t.Before(c.First) {
		c.First = t
	}
	return nil
}

// addCapped adds a count v >= 0 to n, stopping at maxCounterValue.
func addCapped(n, v int64) int64 {
	return min(n+min(v, maxCounterValue), maxCounterValue)
}

// countPaste adds the paste p of agent to the counters of root, under the
// counters lock: read, add, write back atomically. It fails, changing
// nothing, when the lock stays taken for countersLockWait, or the file is
// not counters this package wrote (it is never overwritten then: pbwrap
// stats says why).
func countPaste(root, agent string, p PasteRecord, now time.Time) error {
	unlock, err := lockCounters(root)
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(root, CountersName)
	c, err := readCounters(path)
	if err != nil {
		return err
	}
	if err := c.add(agent, p, now); err != nil {
		return fmt.Errorf("store: count paste in %s: %w", path, err)
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	if len(data)+1 > maxCountersBytes {
		return fmt.Errorf("store: write %s: %d bytes, more than the %d the counters may have", path, len(data)+1, maxCountersBytes)
	}
	if err := writeFileAtomic(path, append(data, '\n'), true); err != nil {
		return fmt.Errorf("store: write counters: %w", err)
	}
	return nil
}

// lockCounters takes the counters lock of root, waiting at most
// countersLockWait, and returns the function that releases it. The lock
// file is opened without following a symlink and must be a regular file.
func lockCounters(root string) (unlock func(), err error) {
	path := filepath.Join(root, CountersLockName)
	f, err := openNoFollow(path, os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return nil, fmt.Errorf("store: lock counters: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close() // Best effort: not ours to use.
		return nil, fmt.Errorf("store: lock counters %s: not a regular file", path)
	}
	deadline := time.Now().Add(countersLockWait)
	for {
		err := flock(f, lockExclusive)
		if err == nil {
			return func() { _ = f.Close() }, nil // Closing releases the flock; nothing was written to it.
		}
		if !isWouldBlock(err) || time.Now().After(deadline) {
			_ = f.Close() // Best effort: not locked.
			if isWouldBlock(err) {
				return nil, fmt.Errorf("store: lock counters %s: held by another process for over %v", path, countersLockWait)
			}
			return nil, fmt.Errorf("store: lock counters: %w", err)
		}
		time.Sleep(countersLockPoll)
	}
}
