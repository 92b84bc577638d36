//go:build darwin || freebsd || linux

package main

// End-to-end tests through the real front ends a user comes through, none
// of which answers DECRQM for bracketed paste: GNU screen (Debian's 4.09:
// no marks, pauses within a paste, drops bytes), mosh (mosh-server and
// mosh-client on 127.0.0.1: passes marks), tmux without $TMUX in pbwrap's
// environment (env -i, sudo). The test is the user's terminal, outside
// the front end; pbwrap runs inside it, around the recording child.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// needTool skips the test when the program name is not installed, or
// fails it when the variable require is set (scripts/test sets it, and
// installs the program).
func needTool(t *testing.T, name, require string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv(require) != "" {
			t.Fatalf("%s is required (%s is set) but not installed", name, require)
		}
		t.Skipf("%s not installed; scripts/test installs it", name)
	}
}

// inFrontEnd starts the front end's command line (frontEnd, then pbwrap
// and the recording child) in a test terminal, with pbwrap's debug log,
// which a failed test shows; and waits for the child to be ready.
func inFrontEnd(t *testing.T, frontEnd []string, env ...string) (term *terminal, log string) {
	t.Helper()
	dir := realDir(t)
	log = filepath.Join(dir, "debug.log")
	root := filepath.Join(dir, "root")
	t.Cleanup(func() {
		if t.Failed() {
			text, _ := os.ReadFile(log)
			t.Logf("pbwrap's log:\n%s", text)
		}
	})
	pbwrap := append([]string{pbwrapBin, "--log", log, "--debug", "--"}, ptytest.ChildArgv(t, "raw", "record", "bp:on", "ready", "block")...)
	path, err := exec.LookPath(frontEnd[0]) // The leader runs a path.
	if err != nil {
		t.Fatal(err)
	}
	frontEnd = append([]string{path}, frontEnd[1:]...)
	job := ptytest.Job{
		Wrapper: frontEnd,
		Command: pbwrap,
		Env:     append([]string{"PBWRAP_ROOT=" + root, "TERM=xterm-256color", "LANG=C.UTF-8", "TMUX=", "STY="}, env...),
		Answer:  ptytest.AnswerNothing,
		Rows:    30, Cols: 100,
	}
	term = &terminal{Terminal: ptytest.Start(t, job), t: t, rootDir: root}
	term.WaitReport("ready")
	return term, log
}

// frontEndLogged waits until pbwrap's log names the front end, and
// returns that line.
func frontEndLogged(t *testing.T, log, want string) string {
	t.Helper()
	var line string
	deadline := time.Now().Add(ptytest.Watchdog)
	for {
		text, _ := os.ReadFile(log)
		if m := regexp.MustCompile(`front end: (.*)`).FindSubmatch(text); m != nil {
			line = string(m[1])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: pbwrap's log never named the front end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(line, want) {
		t.Errorf("pbwrap's front end: %q, want %q in it", line, want)
	}
	return line
}

// typeKeys types keys one at a time, as a person does, each once the one
// before has reached the child.
func (term *terminal) typeKeys(keys string) {
	term.t.Helper()
	before := term.File("input")
	for i := range keys {
		term.Type([]byte(keys[i:i+1]), 0)
		term.waitInputHas(before + keys[:i+1])
	}
}

// Through GNU screen 4, which does not mark pastes, pauses within one for
// 100 or 200 ms and drops bytes of a large one: pbwrap knows screen 4 by
// its process and version, types keys as they come, and saves a 190 KB
// paste as one file (the detector that held every key split it at
// screen's pauses), holding what screen delivered.
func TestScreenFrontEnd(t *testing.T) {
	needTool(t, "screen", "PBWRAP_REQUIRE_SCREEN")
	screens := t.TempDir()
	if err := os.Chmod(screens, 0o700); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("pbwrap-test-%d", os.Getpid())
	t.Cleanup(func() { _ = exec.Command("env", "SCREENDIR="+screens, "screen", "-S", name, "-X", "quit").Run() })
	term, log := inFrontEnd(t, []string{"screen", "-c", "/dev/null", "-S", name}, "SCREENDIR="+screens)
	line := frontEndLogged(t, log, "GNU screen")
	version, _ := exec.Command("screen", "-v").Output()
	fourth := bytes.HasPrefix(version, []byte("Screen version 4"))
	if fourth && !strings.Contains(line, "screen 4 does not mark pastes") {
		t.Errorf("pbwrap's front end: %q, want screen 4 that does not mark pastes", line)
	}
	term.typeKeys("hi\r")

	body := ptytest.Lines(6000, "pasted through screen")
	term.Type([]byte(body), 0)
	term.waitSettled(len(body))
	term.typeKeys("!")
	got := term.File("input")
	ref := regexp.MustCompile(`^hi\r` + regexp.QuoteMeta(pasteStart) + `\[paste saved: (\S+)\]` + regexp.QuoteMeta(pasteEnd) + `!$`).FindStringSubmatch(got)
	if !fourth {
		if ref == nil && !strings.HasPrefix(got, "hi\r"+pasteStart+"[paste saved:") {
			t.Fatalf("screen %s: child got %.200q, want a reference", version, got)
		}
		return
	}
	if ref == nil {
		t.Fatalf("child got %.300q ... %.100q, want the keys, then one reference, then the key typed after", got, got[max(0, len(got)-100):])
	}
	saved, err := os.ReadFile(ref[1])
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(body, "\r", "\n")
	if !subsequence(saved, []byte(want)) || len(saved) < len(want)-len(want)/1000 {
		t.Errorf("the file holds %d bytes, want what screen delivered of the %d pasted (it drops a few)", len(saved), len(want))
	}
	if len(saved) != len(want) {
		t.Logf("screen dropped %d of the paste's %d bytes", len(want)-len(saved), len(want))
	}
}

// waitQuiet waits until the child's input has not grown for four times
// the gap that ends a paste: whatever pbwrap made of what was typed, it is
// done.
func (term *terminal) waitQuiet() {
	term.t.Helper()
	last, since := -1, time.Now()
	term.WaitFor("the child's input to settle", func() bool {
		if n := len(term.File("input")); n != last {
			last, since = n, time.Now()
		}
		return time.Since(since) > 4*termproto.BurstGap
	})
}

// subsequence reports whether s is t with some bytes left out.
func subsequence(s, t []byte) bool {
	for _, c := range s {
		i := bytes.IndexByte(t, c)
		if i < 0 {
			return false
		}
		t = t[i+1:]
	}
	return true
}

// Through mosh (mosh-server and mosh-client on 127.0.0.1), which passes
// pastes on marked and answers no question about it: pbwrap knows mosh by
// its server process, saves a marked paste, and passes on what comes
// unmarked as typed, 300 lines in one write included (the detector that
// looked wherever the terminal did not answer saved them).
func TestMoshFrontEnd(t *testing.T) {
	needTool(t, "mosh-server", "PBWRAP_REQUIRE_MOSH")
	needTool(t, "mosh-client", "PBWRAP_REQUIRE_MOSH")
	dir := t.TempDir()
	connect := filepath.Join(dir, "connect")
	// mosh-server detaches and says where to connect; then the client
	// runs on the test terminal.
	script := `out=$(mosh-server new -i 127.0.0.1 -- "$@" 2>&1); printf '%s\n' "$out" > "$MOSH_CONNECT_FILE"
set -- $(printf '%s\n' "$out" | sed -n 's/^MOSH CONNECT \([0-9]*\) \([^ ]*\).*$/\1 \2/p')
[ -n "$2" ] || { echo "mosh-server did not start: $out"; exit 1; }
MOSH_KEY=$2 exec mosh-client 127.0.0.1 "$1"`
	t.Cleanup(func() {
		out, _ := os.ReadFile(connect)
		if m := regexp.MustCompile(`detached, pid = (\d+)`).FindSubmatch(out); m != nil {
			if pid, err := strconv.Atoi(string(m[1])); err == nil {
				_ = syscall.Kill(pid, syscall.SIGTERM) // It hangs its session up: pbwrap and the child end.
			}
		}
	})
	term, log := inFrontEnd(t, []string{"sh", "-c", script, "sh"}, "MOSH_CONNECT_FILE="+connect, "MOSH_SERVER_NETWORK_TMOUT=60")
	frontEndLogged(t, log, "mosh: mosh-server (process")
	term.WaitOutput("\x1b[?2004h") // mosh-client passes the child's mode on, as pbwrap asked.
	term.typeKeys("hi\r")

	lines := ptytest.Lines(300, "typed by a program")
	term.Type([]byte(lines), 0)
	term.waitInputHas(lines)

	body := ptytest.Lines(600, "pasted through mosh")
	term.paste(body, 0)
	term.waitSettled(1 << 30)
	term.typeKeys("!")
	got := term.File("input")
	m := regexp.MustCompile(regexp.QuoteMeta(pasteStart) + `\[paste saved: (\S+)\]` + regexp.QuoteMeta(pasteEnd) + `!$`).FindStringSubmatch(got)
	if !strings.HasPrefix(got, "hi\r"+lines) || m == nil || strings.Contains(got, "pasted through mosh") {
		t.Fatalf("child got %.200q ... %.100q, want the keys, the program's lines as typed, then one reference", got, got[max(0, len(got)-100):])
	}
	if saved, err := os.ReadFile(m[1]); err != nil || string(saved) != strings.ReplaceAll(body, "\r", "\n") {
		t.Errorf("the file holds %d bytes (%v), want the %d pasted", len(saved), err, len(body))
	}
}

// Inside tmux, with and without $TMUX in pbwrap's environment (env -i,
// sudo, a shell that cleared it): pbwrap knows tmux, by its variable or by
// its server process, and so do pbwrap doctor, which says the same front
// end the wrapper logs, and doctor --paste, which says that a paste tmux
// sends unmarked is passed on as typed. What comes unmarked is typing: 300 lines pasted
// with paste-buffer (no -p) and a 10 KB line sent with send-keys, each in
// one write, reach the program as typed (without $TMUX, pbwrap looked for
// pastes and saved both, while doctor said tmux).
func TestTmuxWithoutTMUX(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bigFile := filepath.Join(dir, "big.txt")
	big := strings.ReplaceAll(ptytest.Lines(300, "a script's line"), "\r", "\n")
	if err := os.WriteFile(bigFile, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("0123456789", 1000)
	for _, tc := range []struct{ name, env string }{
		{"with $TMUX", ""},
		{"without $TMUX", "env -u TMUX "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startTmux(t, 120, 30)
			root := filepath.Join(dir, "root-"+strings.Fields(tc.name)[0])
			input := filepath.Join(dir, "input-"+strings.Fields(tc.name)[0])
			log := filepath.Join(dir, "log-"+strings.Fields(tc.name)[0])
			doctor := filepath.Join(dir, "doctor-"+strings.Fields(tc.name)[0])
			s.keys(fmt.Sprintf("%spbwrap --root %s doctor > %s 2>&1; echo doctor-$((40+2))", tc.env, root, doctor))
			s.waitScreen("doctor-42") // Not in the command line: doctor is done, and reads the terminal no more.
			// doctor --paste, with a paste tmux sends unmarked, says what
			// the wrapper does with it: it was said to be caught.
			s.keys(fmt.Sprintf("%spbwrap --root %s doctor --paste > %s.paste 2>&1; echo doctor-$((40+3))", tc.env, root, doctor))
			s.waitScreen("Waiting")
			s.run("set-buffer", "-b", "few", "three\nsmall\nlines\n")
			s.run("paste-buffer", "-b", "few")
			s.waitScreen("doctor-43")
			if report := readFile(t, doctor+".paste"); !strings.Contains(report, "  front end: tmux: tmux: server (process ") ||
				!strings.Contains(report, "bursts: not looked for (--burst auto: the front end marks pastes): pbwrap passes this paste on as typed") {
				t.Errorf("doctor --paste says\n%s\nwant the front end, and that pbwrap passes the paste on as typed", report)
			}
			s.keys(fmt.Sprintf("%sPBWRAP_ROOT=%s PBWRAP_TEST_CHILD=1 PBWRAP_TEST_INPUT=%s pbwrap --log %s --debug %s raw record bp:on ready block",
				tc.env, root, input, log, self))
			s.waitScreen("READY")
			wrapper := frontEndLogged(t, log, "tmux")
			report := readFile(t, doctor)
			if !strings.Contains(report, "  front end: "+wrapper+"\n") {
				t.Errorf("doctor says\n%s\nwant the front end the wrapper logs: %q", report, wrapper)
			}
			if !strings.Contains(report, "unmarked input: typed: the front end marks pastes") {
				t.Errorf("doctor says\n%s\nwant that unmarked input is typed", report)
			}

			s.run("load-buffer", "-b", "big", bigFile)
			s.run("paste-buffer", "-b", "big")
			waitFileHas(t, input, strings.ReplaceAll(big, "\n", "\r"))
			s.run("send-keys", "-l", long)
			s.key("Enter")
			waitFileHas(t, input, long+"\r")
			if got := readFile(t, input); strings.Contains(got, "[paste saved:") {
				t.Errorf("the program got a reference: %.200q", got)
			}
		})
	}
}

// In a terminal that answers nothing (a serial line, a bare PTY), once
// pbwrap has stopped waiting for the answer it looks for unmarked pastes:
// keys typed a person's way still reach the child one by one, and a paste
// of 100 KB paced 1 KB every 20 ms is saved as one file.
func TestSilentTerminal(t *testing.T) {
	const attempts = 5
	for attempt := 1; ; attempt++ {
		log := filepath.Join(t.TempDir(), "debug.log")
		term := startCaptureAnswering(t, false, ptytest.AnswerNothing, "PBWRAP_LOG="+log, "PBWRAP_DEBUG=1")
		time.Sleep(2500 * time.Millisecond) // capture.AnswerWait, and some.
		term.typeKeys("ab\r")
		body := []byte(ptytest.Lines(7000, "paced"))[:100<<10]
		kept := term.writeKept(body, 1024, 20*time.Millisecond)
		term.waitQuiet()
		got := term.typeSentinel()
		want := "ab\r" + term.oneReference(false) + "!"
		term.SignalWrapper(syscall.SIGTERM)
		term.WantExit("exit 143")
		switch {
		case got == want:
		case attempt < attempts:
			// The writes paused (kept says so), or the kernel's worker that
			// moves them to pbwrap's side did, unseen, on a loaded machine:
			// the paste was rightly split. Every time is a failure.
			t.Logf("attempt %d: the paste was split (the pace kept: %v); trying again", attempt, kept)
			continue
		case !kept:
			t.Skipf("the machine is too loaded to write as a terminal does: the terminal paused, and the paste was rightly split")
		default:
			text, _ := os.ReadFile(log)
			t.Fatalf("child got %.200q, want %q\npbwrap's log:\n%s", got, want, text)
		}
		saved, err := os.ReadFile(filepath.Join(term.sessionDir(), "paste-1.txt"))
		if err != nil || string(saved) != strings.ReplaceAll(string(body), "\r", "\n") {
			t.Errorf("the file holds %d bytes (%v), want the %d pasted", len(saved), err, len(body))
		}
		return
	}
}
