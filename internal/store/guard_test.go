package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// callWatchdog is how long a call of the store's that a test makes is
// given before the test fails rather than hang: the calls are a few file
// operations in a temporary directory, and those that meet a named pipe
// where a file should be open it without blocking, so this bounds a
// machine's stall only.
const callWatchdog = 5 * time.Second

// returns runs f, failing the test if it has not returned within
// callWatchdog (it is then left behind, blocked). f must not call t's
// Fatal: it runs on a goroutine of its own.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }() // Ends when f does, or is left behind at the watchdog.
	select {
	case <-done:
	case <-time.After(callWatchdog):
		t.Fatalf("watchdog: %s blocked for %v", what, callWatchdog)
	}
}

// mkfifo makes a named pipe at path, where the store expects a file, and
// has the test's cleanup, should a call of the store's be blocked opening
// it for reading (returns has failed the test then), open its other end
// and so let the call go on and the test's other cleanups run.
func mkfifo(t *testing.T, path string) error {
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return err
	}
	t.Cleanup(func() {
		// Best effort: ENXIO when no one waits to read.
		if fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
			unix.Close(fd)
		}
	})
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// savedRecord is the record capture writes for text saved as paste n of
// s.
func savedRecord(s *Session, n int, text string) PasteRecord {
	path := filepath.Join(s.Dir, pasteName(n))
	return PasteRecord{
		N: n, Path: path, Bytes: int64(len(text)), Lines: int64(strings.Count(text, "\n")), SHA256: sum(text),
		Outcome: OutcomeSaved, Reference: "[paste saved: " + path + "]",
	}
}

// Issue 10, point 2: a saved file is reused for the same text only if it
// still holds the text. An agent can write in the root (Claude Code gets
// the root as a working directory): before the fix, a paste-1.txt edited, or replaced by a
// symlink to another file, was named again by the next reference to the
// same text, for content the user never pasted.
func TestCommitPasteReusesOnlyWhatStillHoldsTheText(t *testing.T) {
	const text = "the text the user pasted\n"
	other := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(other, []byte("someone else's file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sameText := filepath.Join(t.TempDir(), "same")
	if err := os.WriteFile(sameText, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, path string)
		reused bool
	}{
		{"untouched", func(*testing.T, string) {}, true},
		{"only its times changed", func(t *testing.T, path string) {
			if err := os.Chtimes(path, testMeta.Start, testMeta.Start); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"edited, another size", func(t *testing.T, path string) { overwrite(t, path, "edited by the agent\n", 0) }, false},
		{"edited, the same size", func(t *testing.T, path string) { overwrite(t, path, strings.ToUpper(text), 0) }, false},
		{"one byte changed", func(t *testing.T, path string) { overwrite(t, path, "T", 0) }, false},
		{"appended to", func(t *testing.T, path string) { overwrite(t, path, "more\n", int64(len(text))) }, false},
		{"truncated", func(t *testing.T, path string) {
			if err := os.Truncate(path, 3); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"replaced by a symlink to another file", func(t *testing.T, path string) { replaceBySymlink(t, path, other) }, false},
		{"replaced by a symlink to a file with the same text", func(t *testing.T, path string) { replaceBySymlink(t, path, sameText) }, false},
		{"replaced by another file with the same text", func(t *testing.T, path string) {
			// Made before the old one goes, so that it cannot get its
			// inode number.
			if err := os.WriteFile(path+".new", []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"replaced by a named pipe", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := mkfifo(t, path); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"deleted", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, newRoot(t))
			_, first, _ := commit(t, s, text)
			tc.tamper(t, first)
			before := describe(t, first)
			n, path, reused := commit(t, s, text)
			if reused != tc.reused {
				t.Fatalf("CommitPaste of the same text after the file was %s = paste-%d.txt, reused %v; want reused %v", tc.name, n, reused, tc.reused)
			}
			if got := readFile(t, path); got != text {
				t.Errorf("the reference names %s, which holds %q; want %q", path, got, text)
			}
			if !tc.reused {
				if n != 2 {
					t.Errorf("saved anew as paste-%d.txt, want paste-2.txt", n)
				}
				if after := describe(t, first); after != before {
					t.Errorf("the tampered paste-1.txt was changed by pbwrap: %s, then %s", before, after)
				}
				// The new file is the one reused from now on.
				if n2, path2, reused := commit(t, s, text); !reused || n2 != n || path2 != path {
					t.Errorf("third CommitPaste = paste-%d.txt, reused %v; want paste-%d.txt reused", n2, reused, n)
				}
			}
			checkNoTemps(t, s.Dir)
		})
	}
}

// overwrite writes text into the file at path at offset off, in place:
// the same inode.
func overwrite(t *testing.T, path, text string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(text), off); err != nil {
		t.Fatal(err)
	}
}

func replaceBySymlink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// describe says what is at path, not following a symlink, for a test to
// tell whether it changed.
func describe(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "nothing"
	}
	if err != nil {
		t.Fatal(err)
	}
	d := fmt.Sprintf("%v inode %d", fi.Mode(), fi.Sys().(*syscall.Stat_t).Ino)
	if fi.Mode().IsRegular() {
		d += fmt.Sprintf(" holding %q", readFile(t, path))
	}
	if target, err := os.Readlink(path); err == nil {
		d += " to " + target
	}
	return d
}

// Checking that a file still holds the text reads it again, in a small
// buffer: reusing a 64 MiB paste costs no more memory than a small one.
func TestCommitPasteReuseMemoryBounded(t *testing.T) {
	s := newSession(t, newRoot(t))
	text := strings.Repeat("0123456789abcdef", 4<<20) // 64 MiB
	commit(t, s, text)
	tmp := writeTemp(t, s, text)
	defer tmp.Discard()
	sha := sum(text)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, _, reused, err := s.CommitPaste(tmp, sha)
	runtime.ReadMemStats(&after)
	if err != nil || !reused || n != 1 {
		t.Fatalf("CommitPaste of the same 64 MiB = paste-%d.txt, reused %v, %v; want paste-1.txt reused", n, reused, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("checking a 64 MiB paste before reusing it allocated %d bytes, want at most 1 MiB", alloc)
	}
}

// Issue 10, point 3: the session checks the root and its own directory
// before each write. Before the fix, a root replaced by a symlink between
// pastes was written through, into another directory, and a session whose
// directory was removed failed for good without saying why.
func TestSessionCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, s *Session)
		want   error // nil, ErrSessionGone or ErrUnsafeRoot
	}{
		{"unchanged", func(*testing.T, *Session) {}, nil},
		{"root open to others, tightened as at start", func(t *testing.T, s *Session) { chmod(t, s.root, 0o755) }, nil},
		{"root removed", func(t *testing.T, s *Session) { removeAll(t, s.root) }, ErrSessionGone},
		{"session directory removed", func(t *testing.T, s *Session) { removeAll(t, s.Dir) }, ErrSessionGone},
		{"session directory replaced by another", func(t *testing.T, s *Session) {
			rename(t, s.Dir, s.Dir+".old")
			if err := os.Mkdir(s.Dir, 0o700); err != nil {
				t.Fatal(err)
			}
		}, ErrSessionGone},
		{"session directory replaced by a symlink to it", func(t *testing.T, s *Session) {
			rename(t, s.Dir, s.Dir+".old")
			symlink(t, s.Dir+".old", s.Dir)
		}, ErrSessionGone},
		{"lock file removed", func(t *testing.T, s *Session) {
			if err := os.Remove(filepath.Join(s.Dir, lockName)); err != nil {
				t.Fatal(err)
			}
		}, ErrSessionGone},
		{"lock file replaced", func(t *testing.T, s *Session) {
			lock := filepath.Join(s.Dir, lockName)
			if err := os.WriteFile(lock+".new", nil, 0o600); err != nil {
				t.Fatal(err)
			}
			rename(t, lock+".new", lock)
		}, ErrSessionGone},
		{"root replaced by a symlink to it", func(t *testing.T, s *Session) {
			rename(t, s.root, s.root+".old")
			symlink(t, s.root+".old", s.root)
		}, ErrUnsafeRoot},
		{"root replaced by a file", func(t *testing.T, s *Session) {
			rename(t, s.root, s.root+".old")
			if err := os.WriteFile(s.root, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, ErrUnsafeRoot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, newRoot(t))
			commit(t, s, "first\n")
			tmp := writeTemp(t, s, "in flight\n")
			defer tmp.Discard()
			tc.change(t, s)
			elsewhere := snapshot(t, filepath.Dir(s.root))
			err := s.Check()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				if got := permOf(t, s.root); got != 0o700 {
					t.Errorf("root mode %#o after Check, want 0700", got)
				}
				commit(t, s, "second\n")
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			// Every write fails alike, and writes nothing anywhere.
			_, err = s.CreateTemp()
			checkErr(t, "CreateTemp", err, tc.want)
			_, _, _, err = s.CommitPaste(tmp, sum("in flight\n"))
			checkErr(t, "CommitPaste", err, tc.want)
			err = s.Record(savedRecord(s, 2, "in flight\n"))
			checkErr(t, "Record", err, tc.want)
			if tc.want == ErrUnsafeRoot {
				checkSame(t, elsewhere, snapshot(t, filepath.Dir(s.root)))
			}
			// The paste in flight can still be replayed inline.
			if got := replay(t, tmp); got != "in flight\n" {
				t.Errorf("replay = %q", got)
			}
		})
	}
}

func checkErr(t *testing.T, op string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s = %v, want %v", op, err, want)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func removeAll(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// A session whose directory is gone can be made again under the same id:
// a new directory, locked, with its manifest. Ending the old session then
// leaves the new one alone, and the root check made the root again.
func TestNewSessionAgainAfterGone(t *testing.T) {
	r := newRoot(t)
	old := newSession(t, r)
	commit(t, old, "before\n")
	removeAll(t, r.Path)
	if err := old.Check(); !errors.Is(err, ErrSessionGone) {
		t.Fatalf("Check after the root was removed = %v, want ErrSessionGone", err)
	}
	if got := permOf(t, r.Path); got != 0o700 {
		t.Errorf("root made again with mode %#o, want 0700", got)
	}
	s, err := r.NewSession(old.ID, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := old.End(); err != nil {
		t.Errorf("End of the old session: %v", err)
	}
	if !tryLock(t, filepath.Join(s.Dir, lockName)) {
		t.Error("the new session's lock is not held")
	}
	if _, err := ReadManifest(s.Dir); err != nil {
		t.Errorf("the new session's manifest: %v", err)
	}
	if n, _, reused := commit(t, s, "before\n"); n != 1 || reused {
		t.Errorf("first paste of the new session = paste-%d.txt, reused %v; want paste-1.txt, new", n, reused)
	}
	// The name taken by something else: not reused.
	other := newSession(t, r)
	removeAll(t, other.Dir)
	if err := os.Mkdir(other.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := r.NewSession(other.ID, testMeta); !errors.Is(err, fs.ErrExist) {
		t.Errorf("NewSession on a name taken = %v, want fs.ErrExist", err)
	}
	if err := other.End(); err != nil {
		t.Errorf("End of a session whose name was taken: %v", err)
	}
	if !exists(other.Dir) {
		t.Error("End removed the directory that took the session's name")
	}
}
