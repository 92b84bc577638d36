package capture

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

const (
	start = "\x1b[200~"
	end   = "\x1b[201~"
)

// rig is an Input wired to a real store under a test directory, and a
// child that is a buffer.
type rig struct {
	t     *testing.T
	in    *Input
	child bytes.Buffer
	now   time.Time
	mode  bool
	root  string // made on first use when the test sets none
	sess  *store.Session
	logs  []string
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	r := &rig{t: t, now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	if cfg.MinBytes == 0 {
		cfg.MinBytes = DefaultMinBytes
	}
	if cfg.MinLines == 0 {
		cfg.MinLines = DefaultMinLines
	}
	if cfg.Open == nil {
		cfg.Open = r.open
	}
	cfg.Mode = func() bool { return r.mode }
	cfg.Logf = func(format string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(format, args...)) }
	r.in = NewInput(cfg)
	r.in.clock = func() time.Time { return r.now } // The work of each call takes no time.
	t.Cleanup(r.close)
	return r
}

// close closes the rig's session, if it has one; the files stay.
func (r *rig) close() {
	if r.sess != nil {
		r.sess.Close()
		r.sess = nil
	}
}

// fastTempDir is a temporary directory on a memory file system when there
// is one, where the syncs that every saved paste costs are free: for tests
// that save thousands of pastes. It is removed at the end of the test.
func fastTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "pbwrap-capture-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func (r *rig) open() (*store.Session, error) {
	if r.root == "" {
		r.root = filepath.Join(r.t.TempDir(), "root")
	}
	root, err := store.OpenRoot(r.root)
	if err != nil {
		return nil, err
	}
	id, err := store.NewSessionID()
	if err != nil {
		return nil, err
	}
	r.sess, err = root.NewSession(id, store.Meta{PID: 1, Argv0: "agent", Start: r.now, Version: "test"})
	return r.sess, err
}

// feed passes input as the terminal would send it, in chunks of size.
func (r *rig) feed(in string, size int) {
	r.t.Helper()
	if size <= 0 {
		size = len(in)
	}
	for b := []byte(in); len(b) > 0; {
		n := min(size, len(b))
		if _, err := r.in.Filter(&r.child, b[:n], r.now); err != nil {
			r.t.Fatalf("Filter: %v", err)
		}
		b = b[n:]
	}
}

// pause lets d pass with no input, as the relay would: Flush at every
// deadline that falls within it, then at its end.
func (r *rig) pause(d time.Duration) {
	r.t.Helper()
	until := r.now.Add(d)
	for {
		due, err := r.in.Flush(&r.child, r.now)
		if err != nil {
			r.t.Fatalf("Flush: %v", err)
		}
		if due.IsZero() || due.After(until) {
			break
		}
		r.now = due
	}
	r.now = until
	if _, err := r.in.Flush(&r.child, r.now); err != nil {
		r.t.Fatalf("Flush: %v", err)
	}
}

func (r *rig) manifest() *store.Manifest {
	r.t.Helper()
	if r.sess == nil {
		r.t.Fatal("no session")
	}
	m, err := store.ReadManifest(r.sess.Dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func lines(n int, eol string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d%s", i, eol)
	}
	return b.String()
}

func TestSmallPasteInlineExact(t *testing.T) {
	for _, mode := range []bool{false, true} {
		r := newRig(t, Config{})
		r.mode = mode
		body := "a\rb\r\nc\x1b[13u"
		r.feed("x"+start+body+end+"y", 3)
		want := "x" + body + "y"
		if mode {
			want = "x" + start + body + end + "y"
		}
		if got := r.child.String(); got != want {
			t.Errorf("mode %v: child got %q, want %q", mode, got, want)
		}
	}
}

func TestLargePasteSaved(t *testing.T) {
	for _, mode := range []bool{false, true} {
		for _, size := range []int{1, 7, 4096, 0} {
			r := newRig(t, Config{})
			r.mode = mode
			body := lines(1000, "\r")
			r.feed("<"+start+body+end+">", size)
			path := filepath.Join(r.sess.Dir, "paste-1.txt")
			ref := "[paste saved: " + path + "]"
			want := "<" + ref + ">"
			if mode {
				want = "<" + start + ref + end + ">"
			}
			if got := r.child.String(); got != want {
				t.Fatalf("mode %v, chunks of %d: child got %q, want %q", mode, size, got, want)
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := lines(1000, "\n"); string(text) != want {
				t.Errorf("mode %v, chunks of %d: file differs from the text copied", mode, size)
			}
			m := r.manifest()
			if len(m.Pastes) != 1 || m.Pastes[0].Outcome != store.OutcomeSaved || m.Pastes[0].Lines != 1000 ||
				m.Pastes[0].Bytes != int64(len(text)) || m.Pastes[0].Bracketed != mode || m.Pastes[0].Reference != ref {
				t.Errorf("manifest: %+v", m.Pastes)
			}
			leftovers, _ := filepath.Glob(filepath.Join(r.sess.Dir, ".tmp-*"))
			if len(leftovers) > 0 {
				t.Errorf("temp files left: %v", leftovers)
			}
			// The log (--log, without --debug) says where it went and how
			// big it was, never what it said.
			logged := strings.Join(r.logs, "\n")
			if !strings.Contains(logged, fmt.Sprintf("%d bytes, 1000 lines saved as %s", len(text), path)) || strings.Contains(logged, "line 1") {
				t.Errorf("mode %v, chunks of %d: the log says %q", mode, size, logged)
			}
		}
	}
}

// Either threshold makes a paste large: the line count is known only at
// the end of a short-lined paste.
func TestThresholds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		body  string
		saved bool
	}{
		{"199 lines", Config{}, lines(199, "\r"), false},
		{"200 lines", Config{}, lines(200, "\r"), true},
		{"200 lines, last without newline", Config{}, lines(199, "\r") + "last", true},
		{"8191 bytes", Config{}, strings.Repeat("x", 8191), false},
		{"8192 bytes", Config{}, strings.Repeat("x", 8192), true},
		{"--min-bytes 10", Config{MinBytes: 10}, "0123456789", true},
		{"--min-lines 2", Config{MinLines: 2}, "a\rb", true},
		{"--min-lines 2, one line", Config{MinLines: 2}, "ab\r", false},
	} {
		// Every read size: the decision is taken on the counts so far
		// while the paste arrives, and on the whole at its end.
		input := start + tc.body + end
		root := fastTempDir(t)
		for size := 1; size <= len(input); size++ {
			r := newRig(t, tc.cfg)
			r.root = filepath.Join(root, strconv.Itoa(size))
			r.feed(input, size)
			saved := strings.HasPrefix(r.child.String(), "[paste saved: ")
			if saved != tc.saved {
				t.Fatalf("%s, reads of %d: saved %v, want %v (child got %.60q)", tc.name, size, saved, tc.saved, r.child.String())
			}
			if !tc.saved && r.child.String() != tc.body {
				t.Fatalf("%s, reads of %d: inline paste altered", tc.name, size)
			}
			r.close()
		}
	}
}

func TestRefFormat(t *testing.T) {
	f, err := ParseRefFormat("@{path} ({lines} lines, {bytes} B, #{n})")
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Config{RefFormat: f})
	r.feed(start+lines(300, "\r")+end, 0)
	want := fmt.Sprintf("@%s (300 lines, %d B, #1)", filepath.Join(r.sess.Dir, "paste-1.txt"), len(lines(300, "\n")))
	if got := r.child.String(); got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
}

// The same text pasted again within a minute goes inline, exactly as the
// terminal sent it; later again it is saved, reusing the file.
func TestRepeatWithinWindowGoesInline(t *testing.T) {
	r := newRig(t, Config{})
	body := lines(300, "\r\n")
	r.feed(start+body+end, 0)
	first := r.child.String()
	r.child.Reset()
	r.now = r.now.Add(30 * time.Second)
	r.feed(start+body+end, 1000)
	if got := r.child.String(); got != body {
		t.Fatalf("second paste within a minute: child got %.80q, want the text inline", got)
	}
	r.child.Reset()
	r.now = r.now.Add(10 * time.Second)
	r.feed(start+body+end, 0)
	if got := r.child.String(); got != first {
		t.Errorf("third paste: child got %q, want the first reference again %q", got, first)
	}
	r.child.Reset()
	r.now = r.now.Add(RepeatWindow + time.Second)
	r.feed(start+body+end, 0)
	if got := r.child.String(); got != first {
		t.Errorf("paste after the window: child got %q, want the reference %q", got, first)
	}
	m := r.manifest()
	var outcomes []string
	for _, p := range m.Pastes {
		outcomes = append(outcomes, p.Outcome)
	}
	if got := strings.Join(outcomes, " "); got != "saved inline saved saved" {
		t.Errorf("outcomes %q", got)
	}
	if files, _ := filepath.Glob(filepath.Join(r.sess.Dir, "paste-*.txt")); len(files) != 1 {
		t.Errorf("paste files %v, want one reused", files)
	}
}

// Config.RepeatWindow sets the window (--repeat-window): a repeat inside
// it goes inline, one after it is saved; a negative window sends no
// repeat inline.
func TestRepeatWindowConfigured(t *testing.T) {
	body := lines(300, "\r\n")
	for _, tc := range []struct {
		window time.Duration
		after  time.Duration
		inline bool
	}{
		{5 * time.Second, 4 * time.Second, true},
		{5 * time.Second, 6 * time.Second, false},
		{10 * time.Minute, 9 * time.Minute, true},
		{-1, 0, false},
		{-1, time.Second, false},
	} {
		r := newRig(t, Config{RepeatWindow: tc.window})
		r.feed(start+body+end, 0)
		first := r.child.String()
		r.child.Reset()
		r.now = r.now.Add(tc.after)
		r.feed(start+body+end, 0)
		want := first
		if tc.inline {
			want = body
		}
		if got := r.child.String(); got != want {
			t.Errorf("window %v, again after %v: child got %.60q, want %.60q", tc.window, tc.after, got, want)
		}
	}
}

// When the store cannot be opened the paste goes inline exactly, and the
// store is tried again on the next large paste.
func TestStoreUnavailable(t *testing.T) {
	calls := 0
	fail := errors.New("disk on fire")
	var r *rig
	r = newRig(t, Config{Open: func() (*store.Session, error) {
		calls++
		if calls == 1 {
			return nil, fail
		}
		return r.open()
	}})
	r.mode = true
	body := lines(300, "\r")
	r.feed("a"+start+body+end+"b", 512)
	if got, want := r.child.String(), "a"+start+body+end+start+UnsavedNote("an error saving it")+end+"b"; got != want {
		t.Fatalf("child got %d bytes, want the %d pasted and the note: %q", len(got), len(want), tail(got))
	}
	if len(r.logs) == 0 || !strings.Contains(strings.Join(r.logs, "\n"), "disk on fire") {
		t.Errorf("the reason is not logged: %q", r.logs)
	}
	r.child.Reset()
	r.feed(start+lines(301, "\r")+end, 0)
	if !strings.Contains(r.child.String(), "[paste saved: ") {
		t.Errorf("second paste: the store was not tried again: %.80q", r.child.String())
	}
}

// A root under a regular file is a real store failure, not a test double.
func TestRootUnderFileFallsBack(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Config{})
	r.root = filepath.Join(file, "root")
	body := strings.Repeat("é", 10000)
	r.feed(start+body+end, 333)
	if got, want := r.child.String(), body; got != want {
		t.Errorf("child got %d bytes, want the %d pasted and no note before NoteGap: %q", len(got), len(want), tail(got))
	}
	r.pause(NoteGap)
	if got, want := r.child.String(), body+UnsavedNote("a part of the root's path is not a directory"); got != want {
		t.Errorf("child got %d bytes, want the %d pasted and the note: %q", len(got), len(want), tail(got))
	}
}

// Typed bytes before, between and after pastes keep their order.
func TestTypedOrder(t *testing.T) {
	r := newRig(t, Config{})
	big := lines(250, "\r")
	r.feed("1"+start+"small"+end+"2"+start+big+end+"3\x1b[A4", 5)
	got := r.child.String()
	ref := "[paste saved: " + filepath.Join(r.sess.Dir, "paste-1.txt") + "]"
	if want := "1small2" + ref + "3\x1b[A4"; got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
}

// After the threshold the paste no longer sits in memory: it streams.
func TestLargePasteStreams(t *testing.T) {
	r := newRig(t, Config{})
	r.feed(start+strings.Repeat("y", 100000), 4096)
	ps := r.in.paste
	if ps == nil || ps.text == nil {
		t.Fatal("paste not spilled")
	}
	if len(ps.raw) != 0 || cap(ps.pending) > 2*DefaultMinBytes {
		t.Errorf("paste still buffered in memory: raw %d, pending cap %d", len(ps.raw), cap(ps.pending))
	}
	r.feed(end, 0)
}

// An unterminated paste ends at the silence and goes inline; what comes
// next, up to the paste's late end marker, is its rest: a paste, never
// keystrokes (issue 10).
func TestUnterminatedPasteEndsAtSilence(t *testing.T) {
	r := newRig(t, Config{})
	r.mode = true
	r.feed(start+"abc", 0)
	if r.child.Len() != 0 {
		t.Fatalf("paste delivered before its end: %q", r.child.String())
	}
	if _, err := r.in.Flush(&r.child, r.now.Add(termproto.PasteSilence-time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if r.child.Len() != 0 {
		t.Fatalf("paste delivered before the silence: %q", r.child.String())
	}
	r.now = r.now.Add(termproto.PasteSilence)
	if _, err := r.in.Flush(&r.child, r.now); err != nil {
		t.Fatal(err)
	}
	if got, want := r.child.String(), start+"abc"+end; got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
	r.now = r.now.Add(time.Hour)
	r.feed("def\r"+end+"x"+end, 2)
	if got, want := r.child.String(), start+"abc"+end+start+"def\r"+end+"x"; got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
	if got := strings.Join(r.logs, "\n"); !strings.Contains(got, "dropped an end marker") {
		t.Errorf("the dropped end marker is not logged: %q", got)
	}
}

// Config.Silence replaces termproto.PasteSilence.
func TestSilenceConfigured(t *testing.T) {
	r := newRig(t, Config{Silence: time.Second})
	deadline, err := r.in.Filter(&r.child, []byte(start+"abc"), r.now)
	if err != nil {
		t.Fatal(err)
	}
	if want := r.now.Add(time.Second); !deadline.Equal(want) {
		t.Errorf("deadline %v after the paste's input, want 1s", deadline.Sub(r.now))
	}
}

// A paste still arriving when the child ends is saved, however small, and
// delivered nowhere; Pending says when the input stops in its middle
// (issue 10, point 7).
func TestChildEndsMidPaste(t *testing.T) {
	r := newRig(t, Config{})
	r.mode = true
	r.feed("typed"+start+"small\r", 0)
	if !r.in.Pending() {
		t.Fatal("Pending() = false in a paste")
	}
	r.in.CommandEnded()
	r.feed("paste\r"+end+"after", 3)
	if r.in.Pending() {
		t.Error("Pending() = true after the paste's end")
	}
	if got := r.child.String(); got != "typed" {
		t.Errorf("the child got %q after it ended, want only %q from before", got, "typed")
	}
	orphans := r.in.Orphans()
	if len(orphans) != 1 || orphans[0].Path == "" {
		t.Fatalf("orphans %+v, want one saved", orphans)
	}
	if text, err := os.ReadFile(orphans[0].Path); err != nil || string(text) != "small\npaste\n" {
		t.Errorf("saved %q (%v), want the paste", text, err)
	}
	if m := r.manifest(); len(m.Pastes) != 1 || m.Pastes[0].Outcome != store.OutcomeSaved || m.Pastes[0].Reason == "" {
		t.Errorf("manifest: %+v", m.Pastes)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(r.sess.Dir, ".tmp-*")); len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
}

// The same when the store fails: the paste is dropped, and Orphans says
// why; when the input closes mid-paste, what came is saved.
func TestChildEndsMidPasteOrphans(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Config{})
	r.root = filepath.Join(file, "root")
	r.feed(start+"abc", 0)
	r.in.CommandEnded()
	r.feed("def"+end, 0)
	if got := r.in.Orphans(); len(got) != 1 || got[0].Path != "" || got[0].Reason == "" || got[0].Bytes != 6 {
		t.Errorf("orphans %+v, want one dropped, with the reason", got)
	}

	r = newRig(t, Config{})
	r.feed(start+lines(300, "\r"), 1000)
	r.in.CommandEnded()
	if err := r.in.Close(&r.child); err != nil {
		t.Fatal(err)
	}
	if got := r.in.Orphans(); len(got) != 1 || got[0].Path == "" {
		t.Errorf("after Close: orphans %+v, want one saved", got)
	}
	if r.child.Len() != 0 {
		t.Errorf("the child got %q", r.child.String())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(r.sess.Dir, ".tmp-*")); len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
}

// tail is the end of what the child got, for a message.
func tail(s string) string { return s[max(0, len(s)-160):] }

// Where the child has bracketed paste off, the note that a paste was not
// saved waits NoteGap after the paste, so that an agent that tells pastes
// by time (Continue's cn) does not take it for more of the paste; Close
// types a note still waiting.
func TestUnsavedNoteWaitsForPause(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	note := UnsavedNote("a part of the root's path is not a directory")
	body := lines(400, "\r")
	for _, closed := range []bool{false, true} {
		r := newRig(t, Config{})
		r.root = filepath.Join(file, "root")
		r.feed(start+body+end, 4096)
		r.pause(NoteGap - time.Millisecond)
		if got := r.child.String(); got != body {
			t.Fatalf("before NoteGap: child got %d bytes, want the %d pasted alone: %q", len(got), len(body), tail(got))
		}
		if closed {
			if err := r.in.Close(&r.child); err != nil {
				t.Fatal(err)
			}
		} else {
			r.pause(time.Millisecond)
		}
		if got, want := r.child.String(), body+note; got != want {
			t.Errorf("closed %v: child got %q at the end, want the paste, then the note", closed, tail(got))
		}
		r.pause(time.Hour)
		if n := strings.Count(r.child.String(), note); n != 1 {
			t.Errorf("closed %v: the note was typed %d times", closed, n)
		}
	}
	// A key read once the pause is over, before the relay's Flush, goes
	// after the note: the note's turn came first.
	r := newRig(t, Config{})
	r.root = filepath.Join(file, "root")
	r.feed(start+body+end, 4096)
	r.now = r.now.Add(NoteGap)
	r.feed("k", 0)
	if got, want := r.child.String(), body+note+"k"; got != want {
		t.Errorf("a key after the pause: child got %q at the end, want the paste, the note, then the key", tail(got))
	}
}
