//go:build darwin || freebsd || linux

package main

// End-to-end tests of paste capture: the test is the terminal and pastes
// with bracketed-paste markers, as a terminal does once pbwrap has turned
// the mode on; the child records exactly what reaches it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/jsonc"
	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// startCapture runs pbwrap with its store under the test's directory and
// a recording child in raw mode, with bracketed paste on when bp is set.
func startCapture(t *testing.T, bp bool, env ...string) *terminal {
	t.Helper()
	return startCaptureAnswering(t, bp, ptytest.AnswerMarks, env...)
}

// startCaptureAnswering is startCapture with a terminal that answers
// pbwrap's question as answer says.
func startCaptureAnswering(t *testing.T, bp bool, answer ptytest.Answer, env ...string) *terminal {
	t.Helper()
	steps := []string{"raw", "record"}
	if bp {
		steps = append(steps, "bp:on")
	}
	steps = append(steps, "ready", "block")
	root := filepath.Join(realDir(t), "root")
	// A later PBWRAP_ROOT in env wins: exec keeps the last of duplicates.
	term := startPbwrap(t, ptytest.Job{Steps: steps, Env: append([]string{"PBWRAP_ROOT=" + root}, env...), Answer: answer})
	term.rootDir = root
	term.waitReady()
	return term
}

// root is where the terminal's pbwrap saves pastes, unless the test gave
// its own PBWRAP_ROOT.
func (term *terminal) root() string { return term.rootDir }

// paste writes body as one bracketed paste, in chunks of chunk bytes.
func (term *terminal) paste(body string, chunk int) {
	term.t.Helper()
	term.Type([]byte(pasteStart+body+pasteEnd), chunk)
}

// waitInputHas waits until the child has received want and returns all it
// has received.
func (term *terminal) waitInputHas(want string) string {
	term.t.Helper()
	var got string
	term.WaitFor(fmt.Sprintf("child input %q", want), func() bool {
		got = term.File("input")
		return strings.Contains(got, want)
	})
	return got
}

// sessionDir is the one session directory under the root.
func (term *terminal) sessionDir() string {
	term.t.Helper()
	entries, err := os.ReadDir(term.root())
	if err != nil {
		term.t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) != 1 {
		term.t.Fatalf("root holds sessions %q, want one", dirs)
	}
	return filepath.Join(term.root(), dirs[0])
}

func bracket(on bool, s string) string {
	if on {
		return pasteStart + s + pasteEnd
	}
	return s
}

func modeName(on bool) string {
	if on {
		return "child with bracketed paste"
	}
	return "child without bracketed paste"
}

// A small paste reaches the child byte for byte, wrapped in markers only
// when the child asked for them.
func TestSmallPasteExact(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			term := startCapture(t, bp)
			body := "hello\rworld \x1b[A\t$ ls\r"
			term.paste(body, 0)
			term.Type([]byte("!"), 0)
			if got, want := term.waitInputHas("!"), bracket(bp, body)+"!"; got != want {
				t.Errorf("child got %q, want %q", got, want)
			}
			if got := term.sessionDir(); got == "" {
				t.Error("no session directory")
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

var refPattern = regexp.MustCompile(`\[paste saved: ([^\]]+)\]`)

// A large paste becomes a reference to a private file holding what the
// user copied; the manifest records it without its text.
func TestLargePasteSaved(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			term := startCapture(t, bp)
			body := ptytest.Lines(600, "pasted")
			term.Type([]byte("a"), 0)
			term.paste(body, 4096)
			term.Type([]byte("!"), 0)
			got := term.waitInputHas("!")
			m := refPattern.FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("child got %q, want a reference", ptytest.Tail([]byte(got), 300))
			}
			path := m[1]
			sess := term.sessionDir()
			if want := "a" + bracket(bp, "[paste saved: "+filepath.Join(sess, "paste-1.txt")+"]") + "!"; got != want {
				t.Errorf("child got %q, want %q", got, want)
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(body, "\r", "\n"); string(text) != want {
				t.Errorf("file holds %d bytes, want the %d bytes copied, with newlines", len(text), len(want))
			}
			wantMode(t, path, 0o600)
			wantMode(t, sess, 0o700)
			wantMode(t, term.root(), 0o700)
			wantMode(t, filepath.Join(sess, "manifest.json"), 0o600)

			raw, err := os.ReadFile(filepath.Join(sess, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte("pasted line")) {
				t.Error("the manifest holds paste text")
			}
			var man store.Manifest
			if err := json.Unmarshal(raw, &man); err != nil {
				t.Fatal(err)
			}
			if man.Session != filepath.Base(sess) || man.PID != term.WrapperPid() || man.Argv0 != filepath.Base(ptytest.ChildArgv(t)[0]) || man.Format != 1 {
				t.Errorf("manifest header: %+v", man)
			}
			if len(man.Pastes) != 1 {
				t.Fatalf("manifest has %d pastes, want 1", len(man.Pastes))
			}
			p := man.Pastes[0]
			if p.N != 1 || p.Path != path || p.Bytes != int64(len(text)) || p.Lines != 600 || p.Outcome != "saved" ||
				p.Bracketed != bp || p.Reference != "[paste saved: "+path+"]" || len(p.SHA256) != 64 || p.Time.IsZero() {
				t.Errorf("manifest paste: %+v", p)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
			// A session that saved a paste outlives pbwrap, for the TTL.
			if got := term.sessionDir(); got != sess {
				t.Errorf("after exit the root holds %s, want the session %s", got, sess)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("after exit: %v", err)
			}
		})
	}
}

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

// Paste markers split at every offset are still recognised, for small
// pastes and large ones, and typed bytes around them keep their order.
//
// A marker's prefix is held EscHold for the rest of it (a terminal writes
// a marker in one go), so the test's own writes must not pause longer
// within one: when they did (a loaded machine), the prefix rightly went
// on as typed, and that split is written again, up to three times.
func TestMarkersSplitAtEveryOffset(t *testing.T) {
	// A low threshold keeps the large pastes small: written a byte at a
	// time, 16 KB took most of the watchdog on a loaded machine with the
	// race detector.
	term := startCapture(t, true, "PBWRAP_MIN_BYTES=64")
	seen := 0 // of the child's input, what the splits before took
	// split types p in pieces of k bytes, then a mark never typed
	// before, and returns what the child got of it, and whether the pieces' writes
	// paused for EscHold or more.
	split := func(p string, k int, mark string) (got string, paused bool) {
		last := time.Now()
		for b := []byte(p); len(b) > 0; {
			n := min(k, len(b))
			term.Type(b[:n], 0)
			b = b[n:]
			now := time.Now()
			paused = paused || now.Sub(last) >= termproto.EscHold
			last = now
		}
		term.Type([]byte(mark), 0)
		all := term.waitInputHas(mark)
		got, seen = strings.TrimSuffix(all[seen:], mark), len(all)
		return got, paused
	}
	seq := "ab" + pasteStart + "xyz\r" + pasteEnd + "cd"
	for k := 1; k <= len(seq); k++ {
		for try := 1; ; try++ {
			got, paused := split(seq, k, fmt.Sprintf("|small %d.%d|", k, try))
			if got == seq {
				break
			}
			if !paused || try == 3 {
				t.Fatalf("small paste split every %d bytes (try %d, writes paused: %v): child got %q, want %q", k, try, paused, got, seq)
			}
			t.Logf("small paste split every %d bytes: the test's writes paused within a marker; again", k)
		}
	}
	for k := 1; k <= len(pasteStart); k++ {
		body := strings.Repeat(fmt.Sprintf("chunk %d ", k), 20)
		for try := 1; ; try++ {
			got, paused := split("<"+pasteStart+body+pasteEnd+">", k, fmt.Sprintf("|large %d.%d|", k, try))
			refs := refPattern.FindAllString(got, -1)
			if len(refs) == 1 && got == "<"+pasteStart+refs[0]+pasteEnd+">" {
				break
			}
			if !paused || try == 3 {
				t.Fatalf("large paste split every %d bytes (try %d, writes paused: %v): child got %q, want one reference between the markers", k, try, paused, got)
			}
			t.Logf("large paste split every %d bytes: the test's writes paused within a marker; again", k)
		}
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// A lone Esc key reaches the child without waiting for more input.
func TestLoneEsc(t *testing.T) {
	term := startCapture(t, true)
	term.Type([]byte{0x1b}, 0)
	if got := term.waitInputHas("\x1b"); got != "\x1b" {
		t.Errorf("child got %q, want a lone ESC", got)
	}
	term.Type([]byte("\x1b[20"), 0) // A prefix of the paste marker, then nothing.
	if got := term.waitInputHas("\x1b[20"); got != "\x1b\x1b[20" {
		t.Errorf("child got %q", got)
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// A paste whose end marker never comes ends after the silence, inline as
// it came. What comes next is taken as its rest, a paste of its own up to
// an end marker or the silence; then what is typed is typed again. The
// silence is shortened (see startSilenced).
func TestUnterminatedPaste(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			steps := []string{"raw", "record"}
			if bp {
				steps = append(steps, "bp:on")
			}
			term := startSilenced(t, filepath.Join(realDir(t), "root"), steps...)
			term.Type([]byte(pasteStart+"no end\r"), 0)
			term.waitInputHas("no end\r")
			term.Type([]byte("rest\r"), 0)
			term.waitInputHas("rest\r")
			term.Type([]byte("typed"), 0)
			if got, want := term.waitInputHas("typed"), bracket(bp, "no end\r")+bracket(bp, "rest\r")+"typed"; got != want {
				t.Errorf("child got %q, want %q", got, want)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// The child's own bracketed-paste switches never reach the terminal,
// other parameters of the same sequences do; the terminal gets the mode
// on at start and off at exit, last, after the resets of what the child
// left on (the alternate screen, a hidden cursor).
func TestTerminalKeepsBracketedPaste(t *testing.T) {
	term := startPbwrap(t, ptytest.Job{Steps: []string{"ready", "bp:on", "seq:altscreen-bp", "seq:bp-cursor", "bp:off", "print:END", "exit:0"}})
	term.WantExit("exit 0")
	term.WaitOutput("\x1b[?2004l")
	out := string(term.Output())
	if !strings.HasPrefix(out, "\x1b[?2004h") {
		t.Errorf("terminal output starts %q, want bracketed paste turned on first", ptytest.Tail([]byte(out), 40))
	}
	if !strings.HasSuffix(out, "END\r\r\n\x1b[?1049l\x1b[?25h\x1b[?2004l") { // The child's terminal is cooked: ONLCR.
		t.Errorf("terminal output ends %q, want bracketed paste turned off last", ptytest.Tail([]byte(out), 40))
	}
	if n := strings.Count(strings.Replace(out, termproto.Question, "", 1), "2004"); n != 2 {
		t.Errorf("terminal saw 2004 %d times besides pbwrap's question, want twice (pbwrap's own on and off): %q", n, out)
	}
	for _, want := range []string{"\x1b[?1049h", "\x1b[?25l"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal never saw %q, a parameter the child set beside 2004", want)
		}
	}
}

// When the store fails, a large paste reaches the child inline exactly as
// the terminal sent it, then the note saying so, and pbwrap goes on.
func TestStoreFailureDeliversInline(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			term := startCapture(t, bp, "PBWRAP_ROOT="+filepath.Join(file, "root"))
			body := ptytest.Lines(300, "kept")
			term.paste(body, 1000)
			term.Type([]byte("!"), 0)
			want, last := afterUnsaved(bp, bracket(bp, body), whyNotDir, "!")
			if got := term.waitInputHas(last); got != want {
				t.Errorf("child got %d bytes, want the %d pasted and the note: %q", len(got), len(want), ptytest.Tail([]byte(got), 200))
			}
			term.WaitOutput("pbwrap: not saving pastes:")
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// An unsafe root is refused, with the reason, and pastes go inline, each
// with the note.
func TestUnsafeRootRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, root string)
		reason string
	}{
		{"symlink", func(t *testing.T, root string) {
			real := root + ".real"
			if err := os.Mkdir(real, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, root); err != nil {
				t.Fatal(err)
			}
		}, "symlink"},
		{"another owner", func(t *testing.T, root string) {
			if os.Getuid() != 0 {
				t.Skip("giving a directory to another user needs root; CI runs as root")
			}
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(root, 12345, 12345); err != nil {
				t.Fatal(err)
			}
		}, "owned by"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "root")
			tc.make(t, root)
			term := startCapture(t, false, "PBWRAP_ROOT="+root)
			body := ptytest.Lines(300, "kept")
			term.paste(body, 0)
			term.Type([]byte("!"), 0)
			want, last := afterUnsaved(false, body, "the root is unsafe", "!")
			if got := term.waitInputHas(last); got != want {
				t.Errorf("child got %d bytes, want the %d pasted and the note: %q", len(got), len(want), ptytest.Tail([]byte(got), 200))
			}
			warning := regexp.MustCompile(`not saving pastes[^\n]*\n`)
			term.WaitFor("the warning, whole", func() bool { return warning.Match(term.Output()) })
			out := string(term.Output())
			if !strings.Contains(out, tc.reason) {
				t.Errorf("warning %q does not give the reason %q", ptytest.Tail([]byte(out), 300), tc.reason)
			}
			if entries, _ := os.ReadDir(root); len(entries) > 0 {
				t.Errorf("something was written under the refused root: %v", entries)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// Peak memory does not grow with the paste: a 100 MB paste costs no more
// than 4 MB of peak RSS over a 10 KB one. The peak is pbwrap's own where
// there is a /proc (Linux); elsewhere the leader's ru_maxrss at pbwrap's
// exit, which is pbwrap's unless the session process or the child (which
// gets the reference, not the paste) used more.
func TestPeakRSSBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("pastes 100 MB")
	}
	peak := func(size int) int {
		term := startCapture(t, true)
		line := strings.Repeat("x", 99) + "\r"
		body := strings.Repeat(line, size/len(line))
		// The write gives up only when pbwrap stops reading, however
		// long 100 MB takes on a loaded machine; the watchdog then
		// counts from the paste's end.
		done := term.TypeAsync([]byte(pasteStart + body + pasteEnd))
		if err := <-done; err != nil {
			t.Fatalf("write to terminal: %v", err)
		}
		term.waitInputHas("paste-1.txt]")
		kb, ok := vmHWM(t, term.WrapperPid())
		term.SignalWrapper(syscall.SIGTERM)
		term.WantExit("exit 143")
		if !ok {
			kb = term.WrapperPeakRSS()
		}
		return kb
	}
	small := peak(10 << 10)
	large := peak(100 << 20)
	t.Logf("peak RSS: %d KiB after a 10 KB paste, %d KiB after a 100 MB paste", small, large)
	if large-small > 4<<10 {
		t.Errorf("a 100 MB paste cost %d KiB more peak RSS than a 10 KB one, want at most 4096", large-small)
	}
}

// vmHWM is a process's peak resident set size in KiB, from /proc; false
// where there is no /proc.
func vmHWM(t *testing.T, pid int) (int, bool) {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); errors.Is(err, fs.ErrNotExist) {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return kb, true
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0, false
}

// The child learns its session, and a known agent gets the flag that lets
// it read the saved pastes, unless --no-agent-args.
func TestSessionEnvAndAgentArgs(t *testing.T) {
	t.Run("root is a directory", testSessionEnvAndAgentArgs)
	// A root that is no directory gives the agent nothing: Copilot CLI did
	// not start with --add-dir of a path under a regular file (issue 39),
	// and nothing can be saved there at start anyway.
	t.Run("root is no directory", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		claude := filepath.Join(t.TempDir(), "claude")
		if err := os.Symlink(self, claude); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		term := startPbwrap(t, ptytest.Job{
			Env:     []string{"PBWRAP_ROOT=" + filepath.Join(file, "root")},
			Command: []string{claude, "ready", "exit:0"},
		})
		term.WantExit("exit 0")
		if report := term.File("report"); strings.Contains(report, "arg ") {
			t.Errorf("child reported %q, want no argument of pbwrap's", report)
		}
	})
}

func testSessionEnvAndAgentArgs(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	claude := filepath.Join(bin, "claude")
	if err := os.Symlink(self, claude); err != nil {
		t.Fatal(err)
	}
	for _, noAgentArgs := range []bool{false, true} {
		root := filepath.Join(realDir(t), "root")
		var flags []string
		if noAgentArgs {
			flags = []string{"--no-agent-args"}
		}
		term := startPbwrap(t, ptytest.Job{
			Env:     []string{"PBWRAP_ROOT=" + root},
			Command: []string{claude, "env:PBWRAP_SESSION", "env:PBWRAP_SESSION_DIR", "ready", "exit:0"},
		}, flags...)
		term.WantExit("exit 0")
		// A run that saved nothing leaves no session directory behind;
		// the variables name it all the same.
		report := term.File("report")
		var id string
		if lines := term.ReportLines("report", "env PBWRAP_SESSION="); len(lines) == 1 {
			id = strings.TrimPrefix(lines[0], "env PBWRAP_SESSION=")
		}
		if id == "" || id == "none" || strings.Contains(id, "/") {
			t.Errorf("child reported %q, want a session id in PBWRAP_SESSION", report)
		}
		if want := "env PBWRAP_SESSION_DIR=" + filepath.Join(root, id) + "\n"; !strings.Contains(report, want) {
			t.Errorf("child reported %q, want %q", report, want)
		}
		added := strings.Contains(report, `arg --settings={"permissions":{"additionalDirectories":[`+string(jsonc.String(root))+"]}}\n")
		if added == noAgentArgs {
			t.Errorf("--no-agent-args %v: child reported %q", noAgentArgs, report)
		}
		if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
			t.Errorf("after a run that saved nothing the root holds %v (%v), want nothing", entries, err)
		}
	}
}

// Starting pbwrap removes sessions idle past the TTL, in the background
// (a second after the start: see cleanupDelay),
// and keeps the running one.
func TestCleanupAtStart(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	r, err := store.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	id, err := store.NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-store.DefaultTTL - time.Hour)
	old, err := r.NewSession(id, store.Meta{PID: 1, Argv0: "claude", Start: then, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(old.Dir, then, then); err != nil {
		t.Fatal(err)
	}
	term := startPbwrap(t, ptytest.Job{Env: []string{"PBWRAP_ROOT=" + root}, Steps: []string{"ready", "block"}})
	term.rootDir = root
	term.waitReady()
	term.WaitFor("the expired session to go", func() bool {
		_, err := os.Lstat(old.Dir)
		return os.IsNotExist(err)
	})
	term.sessionDir() // The running session is there, and only it.
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}
