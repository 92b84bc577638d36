package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// errTempDone is returned when a Temp is used after CommitPaste or Discard.
var errTempDone = errors.New("temp file already committed or discarded")

// A Temp is a file being written in the session directory, created with
// O_EXCL and mode 0600 under a name starting with ".tmp-", so that listing
// and cleanup can tell it apart from a saved paste. It ends with
// Session.CommitPaste or Discard. Its methods are safe for concurrent use.
type Temp struct {
	s    *Session
	path string
	fi   fs.FileInfo // the file's when created: CommitPaste checks that the name it links is this file

	mu      sync.Mutex
	f       *os.File   // nil once closed
	written int64      // bytes in the file
	pending []byte     // bytes taken by Write, not yet in the file (see tempBufSize)
	done    bool       // committed or discarded: the temp name is gone
	behind  chan int64 // to the writer behind: how far the file is written (see WriteBehind)
	started int64      // the bytes of the file passed to the writer behind
}

// writeBehindStep is how much a Temp that writes behind gathers in the
// file before it starts writing it to disk.
const writeBehindStep = 1 << 20

// WriteBehind makes the file go to disk as it grows, a megabyte at a
// time (fsutil.WriteBehind), for the file that will be committed, whose
// sync in CommitPaste, before its reference is typed, then has little left
// to write (the sync of a 64 MiB paste took 75 to 155 ms, with write-behind
// 15 to 20, doc/performance.md). A goroutine of the Temp's starts the
// writing, so that a disk that is slow to take it does not hold up
// Write, which the paste's reader calls. It changes nothing of what is
// durable when: only CommitPaste's sync makes the file so.
func (t *Temp) WriteBehind() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.behind != nil || t.f == nil {
		return
	}
	t.behind = make(chan int64, 1)
	go writeBehind(t.f, t.behind) // Ends when the Temp is closed or discarded.
}

// writeBehind starts writing f up to each offset it is given, until the
// channel is closed.
func writeBehind(f *os.File, upTo <-chan int64) {
	var done int64
	for end := range upTo {
		fsutil.WriteBehind(f, done, end-done)
		done = end
	}
}

// wroteLocked tells the writer behind, once the file holds another step,
// how far it is written; if the writer is still busy with the last step,
// the next tells it.
func (t *Temp) wroteLocked() {
	if t.behind == nil || t.written-t.started < writeBehindStep {
		return
	}
	select {
	case t.behind <- t.written:
		t.started = t.written
	default:
	}
}

// stopBehindLocked ends the writer behind.
func (t *Temp) stopBehindLocked() {
	if t.behind != nil {
		close(t.behind)
		t.behind = nil
	}
}

// tempBufSize is how much Write gathers before it writes the file: a
// paste comes a terminal's read at a time (4 KiB on Linux), and one system
// call per read, per temp file, was most of what saving a paste cost.
const tempBufSize = 64 << 10

// Write appends p to the file. Its errors are *fs.PathError, which name
// the temp file. What it took without an error is not lost when a later
// write fails: Open reads it.
func (t *Temp) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return 0, &fs.PathError{Op: "write", Path: t.path, Err: fs.ErrClosed}
	}
	if len(t.pending)+len(p) <= tempBufSize {
		if t.pending == nil {
			t.pending = make([]byte, 0, tempBufSize)
		}
		t.pending = append(t.pending, p...)
		return len(p), nil
	}
	if err := t.flushLocked(); err != nil {
		return 0, err
	}
	if len(p) < tempBufSize {
		t.pending = append(t.pending, p...)
		return len(p), nil
	}
	n, err := t.f.Write(p)
	t.written += int64(n)
	t.wroteLocked()
	return n, err
}

// flushLocked writes what Write has gathered to the file; what it could
// not write stays gathered.
func (t *Temp) flushLocked() error {
	if len(t.pending) == 0 {
		return nil
	}
	n, err := t.f.Write(t.pending)
	t.written += int64(n)
	t.pending = t.pending[:copy(t.pending, t.pending[n:])]
	t.wroteLocked()
	return err
}

// Path returns the temp file's name.
func (t *Temp) Path() string { return t.path }

// Open reopens for reading what has been written so far, to replay it when
// the paste falls back to inline delivery, also after a failed CommitPaste.
// The reader ends where the writes stood when Open was called, and keeps
// working after Discard. The caller must close it.
func (t *Temp) Open() (io.ReadCloser, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return nil, fmt.Errorf("store: reopen %s: %w", t.path, errTempDone)
	}
	if t.f != nil {
		_ = t.flushLocked() // Best effort: what stays gathered is read from memory.
	}
	// What Write took and the file does not hold (a failed write left it
	// gathered) comes after the file's bytes.
	rest := bytes.NewReader(bytes.Clone(t.pending))
	if t.f != nil {
		// Read through a copy of the descriptor already open: no name to
		// look up, so a temp name removed behind pbwrap's back cannot
		// make the replay fail.
		if f, err := dupFile(t.f); err == nil {
			return readCloser{io.MultiReader(io.NewSectionReader(f, 0, t.written), rest), f}, nil
		}
	}
	f, err := openNoFollow(t.path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("store: reopen temp: %w", err)
	}
	return readCloser{io.MultiReader(io.NewSectionReader(f, 0, t.written), rest), f}, nil
}

// A ReaderAtCloser reads a file at any offset, and must be closed.
type ReaderAtCloser interface {
	io.ReaderAt
	io.Closer
}

// OpenAt returns a reader, at any offset, of what has been written so far,
// and its size: to check a saved image where it lies, with no copy of it
// in memory (a decoder seeks about a TIFF). What Write gathered is written
// to the file first; if that fails, OpenAt fails. The reader keeps working
// after Discard. The caller must close it.
func (t *Temp) OpenAt() (ReaderAtCloser, int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return nil, 0, fmt.Errorf("store: reopen %s: %w", t.path, errTempDone)
	}
	if t.f == nil {
		return nil, 0, fmt.Errorf("store: reopen %s: %w", t.path, fs.ErrClosed)
	}
	if err := t.flushLocked(); err != nil {
		return nil, 0, err
	}
	f, err := dupFile(t.f)
	if err != nil {
		return nil, 0, fmt.Errorf("store: reopen temp: %w", err)
	}
	return f, t.written, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Discard closes and removes the temp file. It does nothing after
// CommitPaste succeeded or a previous Discard, so it can be deferred right
// after CreateTemp.
func (t *Temp) Discard() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.discardLocked()
}

func (t *Temp) discardLocked() error {
	if t.done {
		return nil
	}
	t.done = true
	t.stopBehindLocked()
	if t.f != nil {
		_ = t.f.Close() // Best effort: the file is going.
		t.f = nil
	}
	t.pending = nil
	if err := os.Remove(t.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: discard temp: %w", err)
	}
	return nil
}

// closeLocked writes what Write gathered, syncs and closes the file, once.
// If the write or the sync fails the file stays open, for Discard to
// close.
func (t *Temp) closeLocked() error {
	if t.f == nil {
		return nil
	}
	if err := t.flushLocked(); err != nil {
		return err
	}
	t.pending = nil
	t.stopBehindLocked()
	if err := fsutil.SyncFile(t.f); err != nil {
		return err
	}
	f := t.f
	t.f = nil
	return f.Close()
}
