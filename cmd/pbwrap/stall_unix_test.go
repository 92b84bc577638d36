//go:build darwin || freebsd || linux

package main

// End-to-end tests of a paste that pbwrap cannot read at the pace the
// terminal sends it (pbwrap stopped, a child that stops reading), and of
// a paste still arriving when the child ends (issue 10, points 1 and 7).

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/ptyproxy"
	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// Timing of the stall tests. The silence is short so that a stall can
// outlast it without making the tests slow, and long enough that the
// test's own writes, which follow one another at once, never leave the
// terminal silent for as long, however loaded the machine.
const (
	testSilence = 500 * time.Millisecond
	testStall   = 3 * testSilence
)

// startStalled runs pbwrap with a paste timeout (--paste-timeout)
// of testSilence, with a recording child in raw mode with bracketed paste
// on: steps are the child's first steps, before "bp:on". With storeFails
// the root is under a regular file, so that every paste falls back to
// going in inline.
func startStalled(t *testing.T, storeFails bool, steps ...string) *terminal {
	t.Helper()
	root := filepath.Join(realDir(t), "root")
	if storeFails {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		root = filepath.Join(file, "root")
	}
	return startSilenced(t, root, append(append([]string{"raw", "pid"}, steps...), "bp:on")...)
}

// printLogOnFailure has the test print pbwrap's log when it fails: what
// pbwrap decided, for a failure that comes once in many loaded runs.
func printLogOnFailure(t *testing.T, logFile string) {
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(logFile)
			t.Logf("pbwrap's log (%s):\n%s", logFile, b)
		}
	})
}

// startSilenced runs pbwrap with a paste timeout (--paste-timeout)
// of testSilence, saving in root, with a recording child that runs steps,
// then "ready" and "block".
func startSilenced(t *testing.T, root string, steps ...string) *terminal {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "log")
	printLogOnFailure(t, logFile)
	job := ptytest.Job{
		Steps:   append(steps, "ready", "block"),
		Wrapper: []string{pbwrapBin, "--log", logFile, "--debug", "--"},
		Env:     []string{"PBWRAP_ROOT=" + root, "PBWRAP_PASTE_TIMEOUT=" + testSilence.String()},
	}
	term := &terminal{Terminal: ptytest.Start(t, job), t: t, rootDir: root}
	term.waitReady()
	return term
}

// stopWrapperFor stops pbwrap with SIGSTOP, types p while it is stopped,
// waits d, then continues it and waits until p is written.
func (term *terminal) stopWrapperFor(d time.Duration, p string) {
	term.t.Helper()
	pid := term.WrapperPid()
	term.SignalWrapper(syscall.SIGSTOP)
	term.WaitFor("pbwrap stopped", func() bool { return term.Stopped(pid) })
	written := term.TypeAsync([]byte(p))
	time.Sleep(d) // Not an assertion: how long pbwrap cannot read.
	term.SignalWrapper(syscall.SIGCONT)
	if err := <-written; err != nil {
		term.t.Fatalf("the paste was never all read: %v", err)
	}
}

// wantOnePaste waits until the child has received "!" and checks that it
// received before it exactly one paste of body (typed after "a"):
// its reference when the store works, the text itself, bracketed, when
// it fails, then the note saying so. Nothing of the paste is typed, no
// end marker is stray, and the store holds exactly one paste file with the
// text.
func (term *terminal) wantOnePaste(storeFails bool, body string) {
	term.t.Helper()
	got := term.waitInputHas("!")
	want := "a" + pasteStart + body + pasteEnd + unsavedNote(true, whyNotDir) + "!"
	if !storeFails {
		want = "a" + pasteStart + "[paste saved: " + filepath.Join(term.sessionDir(), "paste-1.txt") + "]" + pasteEnd + "!"
	}
	if got != want {
		term.t.Errorf("the child: %s: %d bytes outside pastes (want 1), %d pastes (want 1), %d references; first difference at %d",
			ptytest.Diff([]byte(got), []byte(want)), typedBytes(got), strings.Count(got, pasteEnd),
			len(refPattern.FindAllString(got, -1)), diffAt(got, want))
	}
	if storeFails {
		return
	}
	files, _ := filepath.Glob(filepath.Join(term.sessionDir(), "paste-*.txt"))
	if len(files) != 1 {
		term.t.Fatalf("saved %d paste files, want 1: %q", len(files), files)
	}
	text, err := os.ReadFile(files[0])
	if err != nil {
		term.t.Fatal(err)
	}
	if want := strings.ReplaceAll(body, "\r", "\n"); string(text) != want {
		term.t.Errorf("the paste file holds %s", ptytest.Diff(text, []byte(want)))
	}
}

// typedBytes counts the bytes of in outside bracketed pastes: what a
// child with bracketed paste on takes as typed.
func typedBytes(in string) int {
	n := 0
	for len(in) > 0 {
		i := strings.Index(in, pasteStart)
		if i < 0 {
			return n + len(in)
		}
		n += i
		in = in[i+len(pasteStart):]
		j := strings.Index(in, pasteEnd)
		if j < 0 {
			return n
		}
		in = in[j+len(pasteEnd):]
	}
	return n
}

func diffAt(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func storeName(fails bool) string {
	if fails {
		return "store fails"
	}
	return "store works"
}

// A paste is one paste however long pbwrap is stopped in its middle:
// the silence that ends a paste whose end marker never comes is the
// terminal's, not pbwrap's own. Regression test for issue 10, point 1: a
// SIGSTOP of pbwrap longer than the silence ended the paste early, and
// its rest reached the child as typed keys, newlines as Enter, then a
// stray end marker.
func TestPasteSurvivesStoppedPbwrap(t *testing.T) {
	for _, storeFails := range []bool{false, true} {
		t.Run(storeName(storeFails), func(t *testing.T) {
			term := startStalled(t, storeFails, "record")
			body := ptytest.Lines(40000, "stopped")
			parts := splitIn(body, 4)
			term.Type([]byte("a"+pasteStart+parts[0]), 0)
			term.stopWrapperFor(testStall, parts[1])
			term.stopWrapperFor(testStall, parts[2])
			term.stopWrapperFor(testStall, parts[3]+pasteEnd+"!")
			term.wantOnePaste(storeFails, body)
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// A paste is one paste however long the child stops reading in its
// middle: time pbwrap spends blocked writing to the child is not silence
// from the terminal. Regression test for issue 10, point 1: a paused child
// split a paste going in inline because the store failed. (A saved paste
// writes nothing to the child until its end: a child that stops reading
// cannot stall it.)
func TestPasteSurvivesPausedChild(t *testing.T) {
	term := startStalled(t, true, "record-hold:1")
	body := ptytest.Lines(40000, "paused")
	term.Type([]byte("a"), 0)
	term.WaitReport("holding")
	term.Type([]byte(pasteStart), 0)
	// pbwrap blocks writing the paste to the child, having read all that
	// the terminal sent: the terminal then stays silent, for longer than
	// the silence, only because pbwrap does not read.
	typed := term.TypeUntilBlocked([]byte(body), 512)
	time.Sleep(testStall) // Not an assertion: how long the child does not read.
	term.ResumeChild()
	term.WaitReport("resumed")
	term.Type([]byte(body[typed:]+pasteEnd+"!"), 0)

	// The part of the paste that pbwrap had not read when it blocked was
	// discarded, unread: the paste the child gets is body with a gap
	// before body[typed:].
	got := term.waitInputHas("!")
	inner, ok := strings.CutPrefix(got, "a"+pasteStart)
	if ok {
		inner, ok = strings.CutSuffix(inner, pasteEnd+unsavedNote(true, whyNotDir)+"!")
	}
	if ok {
		head, found := strings.CutSuffix(inner, body[typed:])
		ok = found && strings.HasPrefix(body, head)
	}
	if !ok {
		t.Errorf("the child got %d bytes: %d bytes outside pastes (want 1), %d pastes (want 1); want a then one paste of the %d bytes pasted, less those discarded unread",
			len(got), typedBytes(got), strings.Count(got, pasteEnd), len(body))
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// The rest of a paste delayed past the silence (its terminal's link stalled
// for longer) is a paste of its own, saved when large, never keystrokes;
// its late end marker is dropped. Regression test for issue 10, point 1:
// the rest was typed, newlines as Enter, then the end marker.
func TestPasteRestAfterSilence(t *testing.T) {
	for _, bp := range []bool{false, true} {
		t.Run(modeName(bp), func(t *testing.T) {
			steps := []string{"raw", "record"}
			if bp {
				steps = append(steps, "bp:on")
			}
			term := startSilenced(t, filepath.Join(realDir(t), "root"), steps...)
			term.Type([]byte(pasteStart+"first part\r"), 0)
			// The silence ends the first part: the watchdog is a small
			// multiple of it.
			term.WaitWithin("the silence to end the first part", 6*testSilence, func() bool {
				return strings.Contains(term.File("input"), "first part\r")
			})
			rest := ptytest.Lines(300, "rest")
			term.Type([]byte(rest+pasteEnd+"!"), 0)
			got := term.waitInputHas("!")
			ref := "[paste saved: " + filepath.Join(term.sessionDir(), "paste-1.txt") + "]"
			if want := bracket(bp, "first part\r") + bracket(bp, ref) + "!"; got != want {
				t.Errorf("the child got %q, want %q", ptytest.Tail([]byte(got), 300), want)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// splitIn cuts s into n parts of about the same length.
func splitIn(s string, n int) []string {
	var parts []string
	for i := range n {
		parts = append(parts, s[i*len(s)/n:(i+1)*len(s)/n])
	}
	return parts
}

// startDying runs pbwrap with a paste timeout (--paste-timeout) of
// testSilence, logging to the file "log" in the terminal's directory, on
// a recording child that dies of SIGTERM, in a terminal whose shell reads
// what comes after pbwrap (Job.Shell). It returns the terminal and the
// log's path.
func startDying(t *testing.T) (*terminal, string) {
	t.Helper()
	root := filepath.Join(realDir(t), "root")
	logFile := filepath.Join(t.TempDir(), "log")
	printLogOnFailure(t, logFile)
	job := ptytest.Job{
		Wrapper: []string{pbwrapBin, "--debug", "--log", logFile, "--"},
		Steps:   []string{"raw", "pid", "watch", "record", "bp:on", "ready", "block"},
		Env:     []string{"PBWRAP_ROOT=" + root, "PBWRAP_PASTE_TIMEOUT=" + testSilence.String()},
		Shell:   true,
	}
	term := &terminal{Terminal: ptytest.Start(t, job), t: t, rootDir: root}
	term.waitReady()
	return term, logFile
}

// wantShellGetsNothing checks that nothing typed at the terminal before
// pbwrap exited reaches the shell after it: a line typed now is the first
// thing the shell reads.
func (term *terminal) wantShellGetsNothing() {
	term.t.Helper()
	term.Type([]byte("echo next\r"), 0)
	term.WaitFor("the shell to read a line", func() bool { return term.FileHas("shell", "echo next") })
	if got := term.File("shell"); got != "echo next\n" {
		term.t.Errorf("the shell read %d bytes (%d lines) before the line typed for it, want none: %q",
			len(got)-len("echo next\n"), strings.Count(got, "\n")-1, ptytest.Tail([]byte(got), 200))
	}
}

// wantSavedAfterExit checks that pbwrap said on the terminal, after it
// restored it, that the paste was saved, and that the file holds text,
// and that no temp file is left in the session.
func (term *terminal) wantSavedAfterExit(text string) {
	term.t.Helper()
	if got, want := term.savedAfterExit(), strings.ReplaceAll(text, "\r", "\n"); string(got) != want {
		term.t.Errorf("the paste file holds %s", ptytest.Diff(got, []byte(want)))
	}
}

// savedAfterExit checks that pbwrap said on the terminal, after it
// restored it, that the paste was saved, and that no temp file is left in
// the session, and returns what the file holds.
func (term *terminal) savedAfterExit() []byte {
	term.t.Helper()
	if temps, _ := filepath.Glob(filepath.Join(term.sessionDir(), ".tmp-*")); len(temps) > 0 {
		term.t.Errorf("temp files left: %q", temps)
	}
	// The terminal's reader may lag behind what pbwrap wrote before it
	// exited: wait for the message, then check where it is.
	saved := regexp.MustCompile(`pbwrap: the agent exited during a paste; saved as (\S+)\r?\n`)
	var out string
	var m []int
	term.WaitFor("pbwrap's message that the paste was saved", func() bool {
		out = string(term.Output())
		m = saved.FindStringSubmatchIndex(out)
		return m != nil
	})
	if reset := strings.LastIndex(out, "\x1b[?2004l"); m[0] < reset {
		term.t.Fatalf("no message after the terminal was restored, in %q", ptytest.Tail([]byte(out), 300))
	}
	got, err := os.ReadFile(out[m[2]:m[3]])
	if err != nil {
		term.t.Fatal(err)
	}
	return got
}

// A paste still arriving when the child ends goes nowhere dangerous:
// pbwrap reads it to its end, saves it, says where after restoring the
// terminal, and none of it reaches the shell, which would run it line by
// line. Regression test for issue 10, point 7.
func TestChildEndsMidPaste(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(term *terminal)
		exit string
	}{
		{"child killed", func(term *terminal) {
			if err := syscall.Kill(term.ChildPid(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}, "exit 137"},
		{"SIGTERM to pbwrap", func(term *terminal) { term.SignalWrapper(syscall.SIGTERM) }, "exit 143"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term, logFile := startDying(t)
			body := ptytest.Lines(20000, "pasted")
			half := len(body) / 2
			term.Type([]byte(pasteStart+body[:half]), 0)
			tc.end(term)
			term.WaitFor("pbwrap to exit or read on", func() bool {
				return term.FileHas("leader", "exit ") || fileHas(logFile, "reading it to its end to save it")
			})
			term.Type([]byte(body[half:]+pasteEnd), 0)
			term.WantExit(tc.exit)
			term.wantShellGetsNothing()
			term.wantSavedAfterExit(body)
		})
	}
}

// A paste whose end never comes, after the child has ended, keeps pbwrap
// no longer than the silence: what came is saved. The watchdog on its
// exit, from the child's death, is a small multiple of its bound: the
// silence, and the proxy's slack of 1 s for the filter past its deadline.
func TestChildEndsMidPasteWithoutEnd(t *testing.T) {
	term, _ := startDying(t)
	body := ptytest.Lines(2000, "cut")
	term.Type([]byte(pasteStart+body), 0)
	term.WaitFor("pbwrap to read the paste", func() bool {
		temps, _ := filepath.Glob(filepath.Join(term.sessionDir(), ".tmp-*"))
		return len(temps) > 0
	})
	if err := syscall.Kill(term.ChildPid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := term.ExitWithin(8 * testSilence); got != "exit 137" {
		t.Errorf("pbwrap ended with %q, want exit 137", got)
	}
	term.WantTermiosRestored()
	term.wantShellGetsNothing()
	term.wantSavedAfterExit(body)
}

// fileHas reports whether the file name holds want.
func fileHas(name, want string) bool {
	b, _ := os.ReadFile(name)
	return strings.Contains(string(b), want)
}

// The input filter tells the proxy when a paste is still arriving.
var _ ptyproxy.Unfinished = (*capture.Input)(nil)

// A signal to pbwrap while it reads the rest of a paste for a child that
// has ended stops the reading: what came is saved, nothing is left
// behind, and nothing reaches the shell. What came is the paste's start,
// not always all of it: the signal follows pbwrap's word that it reads
// on, and on a loaded machine pbwrap may not have read the whole paste by
// then (seen once: 4.6 KB of 38.9 KB still in the terminal; the rest is
// discarded, as it must be, not left for the shell).
func TestSignalWhileReadingOrphanPaste(t *testing.T) {
	term, logFile := startDying(t)
	body := ptytest.Lines(2000, "signalled")
	term.Type([]byte(pasteStart+body), 0)
	if err := syscall.Kill(term.ChildPid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	term.WaitFor("pbwrap to exit or read on", func() bool {
		return term.FileHas("leader", "exit ") || fileHas(logFile, "reading it to its end to save it")
	})
	if !term.FileHas("leader", "exit ") {
		term.SignalWrapper(syscall.SIGTERM)
	}
	term.WantExit("exit 137")
	term.wantShellGetsNothing()
	text := strings.ReplaceAll(body, "\r", "\n")
	if got := term.savedAfterExit(); len(got) == 0 || !strings.HasPrefix(text, string(got)) {
		t.Errorf("the paste file holds %d bytes, not the start of the %d pasted: %s", len(got), len(text), ptytest.Diff(got, []byte(text)))
	}
}

// When the terminal hangs up in the middle of a paste, what came of it is
// saved and no temp file is left behind. (This exit path worked before
// issue 10; the test guards it.)
func TestTerminalClosedMidPaste(t *testing.T) {
	term, _ := startDying(t)
	body := ptytest.Lines(20000, "hung up")
	written := term.TypeAsync([]byte(pasteStart + body))
	term.WaitFor("pbwrap to save the paste", func() bool {
		temps, _ := filepath.Glob(filepath.Join(term.sessionDir(), ".tmp-*"))
		return len(temps) > 0
	})
	term.Master.Close()
	<-written // The write ends with the terminal closed, or gives up.
	if got := term.Exit(); got != "exit 129" {
		t.Errorf("pbwrap ended with %q, want exit 129", got)
	}
	dir := term.sessionDir()
	if temps, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(temps) > 0 {
		t.Errorf("temp files left: %q", temps)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "paste-*.txt"))
	if len(files) != 1 {
		t.Fatalf("paste files %q, want one", files)
	}
	text, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(text) == 0 || !strings.HasPrefix(strings.ReplaceAll(body, "\r", "\n"), string(text)) {
		t.Errorf("the paste file holds %d bytes, not the start of the %d pasted", len(text), len(body))
	}
}

// whyNotDir is the note's reason for a root under a regular file.
const whyNotDir = "a part of the root's path is not a directory"

// unsavedNote is the note a paste that was not saved gets after it, why
// it was not, as the child gets it: a paste of its own when the child has
// bracketed paste on (bp).
func unsavedNote(bp bool, why string) string { return bracket(bp, capture.UnsavedNote(why)) }

// afterUnsaved is what the child gets of a paste pbwrap could not save,
// as pasted, and a key typed right after it, with the note: before the
// key where the child has bracketed paste on (bp), after it where not,
// since there the note waits capture.NoteGap. last is what comes last,
// to wait for.
func afterUnsaved(bp bool, pasted, why, key string) (want, last string) {
	if bp {
		return pasted + unsavedNote(true, why) + key, key
	}
	return pasted + key + capture.UnsavedNote(why), capture.UnsavedNote(why)
}
