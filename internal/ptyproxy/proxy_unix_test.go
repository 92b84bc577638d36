//go:build darwin || freebsd || linux

package ptyproxy

// End-to-end tests of the proxy. Each test is the user's terminal: it runs
// the test binary as the wrapper (wrapMain) on a PTY, under a job-control
// shell, with the test binary as the child that reports what it sees.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// The child starts in a PTY of the terminal's size, and follows resizes.
func TestWindowSize(t *testing.T) {
	term := start(t, ptytest.Job{Rows: 30, Cols: 100, Steps: []string{"watch", "size", "ready", "block"}})
	term.WaitReport("ready")
	if got := term.ReportLines("report", "size "); len(got) == 0 || got[0] != "size 30 100" {
		t.Fatalf("child's first size: %q, want size 30 100", got)
	}
	term.Resize(40, 132)
	term.WaitReport("size 40 132")
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// A run that Start began and the caller gives up (pbwrap refusing to run
// after all) runs nothing: the session process is gone, reaped, by the
// time Close returns, and the command never starts.
func TestStartThenCloseRunsNothing(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state")
	term := start(t, ptytest.Job{Steps: []string{"ready", "block"}, Env: []string{"PBWRAP_TEST_ABANDON=" + stateFile}})
	term.WantExit("exit 3")
	if b, err := os.ReadFile(stateFile); err != nil || string(b) != "gone" {
		t.Errorf("the session process after Close: %q (%v), want gone", b, err)
	}
	if got := term.ReportLines("report", "ready"); len(got) > 0 {
		t.Errorf("the command ran: %q", got)
	}
}

// The terminal's termios are restored exactly on every way out.
func TestTermiosRestoredOnEveryExit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string
		env   []string
		do    func(*ptytest.Terminal)
		want  string
	}{
		{name: "child exits 0", steps: []string{"raw", "ready", "exit:0"}, want: "exit 0"},
		{name: "child exits 3", steps: []string{"raw", "ready", "exit:3"}, want: "exit 3"},
		{name: "child killed by SIGKILL", steps: []string{"raw", "ready", "die:9"}, want: "exit 137"},
		{name: "child killed by SIGTERM", steps: []string{"ready", "die:15"}, want: "exit 143"},
		{name: "SIGTERM to pbwrap", steps: []string{"raw", "ready", "block"}, want: "exit 143",
			do: func(term *ptytest.Terminal) { term.SignalWrapper(syscall.SIGTERM) }},
		{name: "SIGHUP to pbwrap", steps: []string{"raw", "ready", "block"}, want: "exit 129",
			do: func(term *ptytest.Terminal) { term.SignalWrapper(syscall.SIGHUP) }},
		{name: "SIGINT to pbwrap", steps: []string{"raw", "ready", "block"}, want: "exit 130",
			do: func(term *ptytest.Terminal) { term.SignalWrapper(syscall.SIGINT) }},
		{name: "pbwrap panics", steps: []string{"ready", "print:BOOM", "block"}, want: "exit 2",
			env: []string{"PBWRAP_TEST_PANIC=BOOM"}},
		{
			// The shell took the terminal back (bg): restoring from a
			// background process group must not stop pbwrap on SIGTTOU.
			name: "exit while in the background", steps: []string{"raw", "ready", "block"}, want: "exit 143",
			do: func(term *ptytest.Terminal) {
				term.SignalLeader(syscall.SIGUSR1)
				term.WaitLeader("did SIGUSR1")
				// As the shell's kill does: SIGTERM, then SIGCONT.
				term.SignalWrapper(syscall.SIGTERM)
				term.ContinueWrapper()
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := start(t, ptytest.Job{Steps: tc.steps, Env: tc.env})
			term.WaitReport("ready")
			if tc.do != nil {
				tc.do(term)
			}
			term.WantExit(tc.want)
		})
	}
}

// Every byte the child writes reaches the terminal, in order, including
// what it writes just before it exits.
func TestOutputComplete(t *testing.T) {
	const n = 3 << 20
	term := start(t, ptytest.Job{Steps: []string{"raw", fmt.Sprintf("out:%d", n), "exit:0"}})
	term.WantExit("exit 0")
	// pbwrap's own: bracketed paste on at start, off at exit.
	want := append(append([]byte("\x1b[?2004h"), ptytest.Pattern(n)...), "\x1b[?2004l"...)
	term.WaitFor("all output", func() bool { return len(term.Output()) >= len(want) })
	if diff := ptytest.Diff(term.Output(), want); diff != "" {
		t.Fatalf("terminal: %s", diff)
	}
}

// A grandchild that keeps the PTY open cannot keep the wrapper alive: once
// the command has exited, its output is drained for DrainTimeout at most,
// and the wrapper ends while the grandchild, which lives a minute, still
// holds the PTY. The watchdog is a small multiple of DrainTimeout, counted
// from the command's last report: an unbounded drain fails the test soon
// after the bound, and a machine loaded enough to delay the wrapper's end
// by three times the bound does not.
func TestDrainIsBounded(t *testing.T) {
	logf := t.TempDir() + "/log"
	term := start(t, ptytest.Job{
		Steps: []string{"grandchild:nohup", "print:BYE", "ready", "exit:0"},
		Env:   []string{"PBWRAP_TEST_LOG=" + logf},
	})
	term.WaitReport("ready")
	if got := term.ExitWithin(4 * DrainTimeout); got != "exit 0" {
		t.Errorf("the wrapper ended with %q, want exit 0", got)
	}
	term.WantTermiosRestored()
	term.WaitOutput("BYE")
	// It ended by the bound, not because the PTY was closed.
	if b, _ := os.ReadFile(logf); !bytes.Contains(b, []byte("drain: the PTY is still open")) {
		t.Errorf("the drain did not end at its bound; log:\n%s", b)
	}
	// The grandchild reports on its own time: the wrapper may have ended first.
	term.WaitFor("the grandchild to start", func() bool { return term.FileHas("report.grandchild", "ready") })
}

// Every byte the user types reaches the child, in order, whatever the
// chunking.
func TestInputComplete(t *testing.T) {
	const n = 1 << 20
	term := start(t, ptytest.Job{Steps: []string{"raw", "record", "ready", fmt.Sprintf("until-input:%d", n), "exit:0"}})
	term.WaitReport("ready")
	term.WantInput(ptytest.Noise(n))
	term.WantExit("exit 0")
}

// A child that floods its output while a megabyte is written to its input
// does not deadlock: writing to the child never blocks the output pump.
func TestFloodBothWays(t *testing.T) {
	const in, out = 1 << 20, 8 << 20
	term := start(t, ptytest.Job{Steps: []string{"raw", "ready", fmt.Sprintf("out:%d", out), "record", fmt.Sprintf("until-input:%d", in), "exit:0"}})
	term.WaitReport("ready")
	input := bytes.Repeat([]byte("0123456789abcdef"), in/16)
	written := term.TypeAsync(input)
	got := term.WaitInput(in)
	term.WantExit("exit 0")
	if err := <-written; err != nil {
		t.Fatalf("write to terminal: %v", err)
	}
	if !bytes.Equal(got, input) {
		t.Fatalf("child got %d bytes of input, want %d", len(got), in)
	}
	term.WaitFor("all output", func() bool { return len(term.Output()) >= out+len("READY\r\n") })
}

// SIGTERM and SIGHUP sent to pbwrap reach the child's process group, and
// pbwrap exits with the child's status.
func TestSignalsReachProcessGroup(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGTERM, "exit 143"},
		{syscall.SIGHUP, "exit 129"},
		{syscall.SIGINT, "exit 130"},
		// A Go program dumps its goroutines and exits 2 on SIGQUIT.
		{syscall.SIGQUIT, "exit 2"},
	} {
		name := unix.SignalName(tc.sig)
		t.Run(name, func(t *testing.T) {
			term := start(t, ptytest.Job{Steps: []string{"watch", "grandchild", "ready", "block"}})
			term.WaitReport("ready")
			term.WaitFor("grandchild ready", func() bool { return term.FileHas("report.grandchild", "ready") })
			term.SignalWrapper(tc.sig)
			term.WaitReport("signal " + name)
			term.WaitFor("grandchild's "+name, func() bool { return term.FileHas("report.grandchild", "signal "+name) })
			term.WantExit(tc.want)
		})
	}
}

// Closing the terminal hangs pbwrap up; the child gets SIGHUP and pbwrap
// ends with its status instead of lingering.
func TestTerminalClosed(t *testing.T) {
	term := start(t, ptytest.Job{Steps: []string{"watch", "ready", "block"}})
	term.WaitReport("ready")
	term.Master.Close()
	term.WaitReport("signal SIGHUP")
	if got := term.Exit(); got != "exit 129" {
		t.Errorf("pbwrap ended with %q, want exit 129", got)
	}
}

// A command that ignores SIGHUP learns that the terminal hung up as it
// would without pbwrap: its reads end. Before, pbwrap kept its PTY open,
// and the command read on, for ever, from a terminal nobody was at.
func TestTerminalClosedCommandIgnoresHangup(t *testing.T) {
	logf := t.TempDir() + "/log"
	term := start(t, ptytest.Job{Steps: []string{"nohup", "ready", "until-eof", "exit:7"}, Env: []string{"PBWRAP_TEST_LOG=" + logf}})
	term.WaitReport("ready")
	term.Master.Close()
	term.WaitReport("input ended")
	got := term.Exit()
	b, _ := os.ReadFile(logf)
	if got != "exit 7" {
		t.Errorf("pbwrap ended with %q, want exit 7; log:\n%s", got, b)
	}
	// The output pump ended with the PTY it closed, at once.
	if bytes.Contains(b, []byte("drain:")) {
		t.Errorf("the output pump did not end with the PTY; log:\n%s", b)
	}
}

// When pbwrap itself dies without a chance to clean up, the child is hung
// up rather than left running with nobody at the terminal.
func TestPbwrapKilled(t *testing.T) {
	term := start(t, ptytest.Job{Steps: []string{"watch", "ready", "block"}})
	term.WaitReport("ready")
	term.SignalWrapper(syscall.SIGKILL)
	term.WaitReport("signal SIGHUP")
	if got := term.Exit(); got != "signal 9" {
		t.Errorf("pbwrap ended with %q, want signal 9", got)
	}
}

// Ctrl-Z stops the child and pbwrap with it, the terminal restored; fg
// takes the terminal again, continues the child and resends the size, and
// the child redraws.
func TestCtrlZAndFg(t *testing.T) {
	term := start(t, ptytest.Job{Rows: 30, Cols: 90, Steps: []string{"redraw", "ready", "block"}})
	term.WaitReport("ready")
	term.WaitOutput("REDRAW 0 30x90")
	term.Type([]byte{0x1a}, 0) // Ctrl-Z
	term.WaitLeader("stopped SIGTSTP")
	term.WantTermiosRestored()

	// The shell takes the terminal, the user resizes it, then types fg.
	term.SignalLeader(syscall.SIGUSR1)
	term.WaitLeader("did SIGUSR1")
	term.Resize(33, 91)
	term.SignalLeader(syscall.SIGUSR2)
	term.WaitLeader("did SIGUSR2")
	term.WaitOutput("33x91")
	if term.Termios().Lflag&unix.ICANON != 0 {
		t.Error("after fg the terminal is not in raw mode again")
	}
	term.Type([]byte{0x03}, 0) // Ctrl-C: the child dies of SIGINT.
	term.WantExit("exit 130")
}

// Ctrl-Z, bg, fg: bg continues pbwrap in the background, where it leaves
// the child stopped; the shell's fg of a job that is running sends no
// SIGCONT, and pbwrap still takes the terminal back, continues the child
// and resends the size. Before, the terminal stayed cooked and the child
// stopped.
func TestCtrlZBgFg(t *testing.T) {
	term := start(t, ptytest.Job{Rows: 30, Cols: 90, Steps: []string{"redraw", "ready", "block"}})
	term.WaitReport("ready")
	term.WaitOutput("REDRAW 0 30x90")
	term.Type([]byte{0x1a}, 0) // Ctrl-Z
	term.WaitLeader("stopped SIGTSTP")
	term.SignalLeader(syscall.SIGUSR1) // The shell takes the terminal.
	term.WaitLeader("did SIGUSR1")
	term.SignalLeader(syscall.SIGALRM) // bg
	term.WaitLeader("did SIGALRM")
	term.Resize(33, 91)
	term.SignalLeader(syscall.SIGVTALRM) // fg, without SIGCONT
	term.WaitLeader("did SIGVTALRM")
	term.WaitOutput("33x91")
	term.WaitFor("raw mode again", func() bool { return term.Termios().Lflag&unix.ICANON == 0 })
	term.Type([]byte{0x03}, 0) // Ctrl-C: the child dies of SIGINT.
	term.WantExit("exit 130")
}

// A child that stops itself by a signal to its own pid, as Claude Code
// does with SIGSTOP (not through the terminal's Ctrl-Z), stops pbwrap with
// it: the shell sees pbwrap stop and gets the terminal back restored. fg
// continues the child, which redraws at the size the terminal has now,
// takes input again and exits with its own status. Regression test for
// macOS, where pbwrap missed stops by SIGSTOP.
func TestChildStopsItself(t *testing.T) {
	for _, sig := range []string{"SIGSTOP", "SIGTSTP"} {
		t.Run(sig, func(t *testing.T) {
			term := start(t, ptytest.Job{Rows: 30, Cols: 90, Steps: []string{
				"pid", "redraw", "record", "ready", "stop:" + sig, "until-input:3", "exit:3"}})
			term.WaitReport("ready")
			term.WaitOutput("REDRAW 0 30x90")
			term.WaitReport("stopping " + sig)
			term.WaitLeader("stopped SIGTSTP")
			term.WantTermiosRestored()
			if !term.Stopped(term.ChildPid()) {
				t.Error("the child is running while pbwrap is stopped")
			}
			if term.FileHas("report", "continued") {
				t.Error("the child was continued before fg")
			}

			// The shell takes the terminal, the user resizes it, then
			// types fg.
			term.SignalLeader(syscall.SIGUSR1)
			term.WaitLeader("did SIGUSR1")
			term.Resize(33, 91)
			term.SignalLeader(syscall.SIGUSR2)
			term.WaitLeader("did SIGUSR2")
			term.WaitReport("continued")
			term.WaitOutput("33x91")
			if term.Termios().Lflag&unix.ICANON != 0 {
				t.Error("after fg the terminal is not in raw mode again")
			}
			term.Type([]byte("ok\r"), 0)
			if got := string(term.WaitInput(3)); got != "ok\n" {
				t.Errorf("child got %q, want %q", got, "ok\n")
			}
			term.WantExit("exit 3")
			if n := len(term.ReportLines("leader", "stopped ")); n != 1 {
				t.Errorf("the leader saw pbwrap stop %d times, want once", n)
			}
		})
	}
}

// A stopped pbwrap killed from the shell (kill %1: SIGTERM, then SIGCONT)
// ends, and its child with it, instead of stopping again to read input.
func TestKillStoppedJob(t *testing.T) {
	term := start(t, ptytest.Job{Steps: []string{"watch", "ready", "block"}})
	term.WaitReport("ready")
	term.Type([]byte{0x1a}, 0) // Ctrl-Z
	term.WaitLeader("stopped SIGTSTP")
	term.SignalLeader(syscall.SIGUSR1)
	term.WaitLeader("did SIGUSR1")
	term.SignalWrapper(syscall.SIGTERM)
	term.ContinueWrapper()
	term.WaitReport("signal SIGTERM")
	term.WantExit("exit 143")
}

// Continued in the background (bg), pbwrap leaves the child stopped, as a
// full-screen program stops again when it finds it does not own the
// terminal, and does not read the terminal; fg then brings both back.
func TestBgThenFg(t *testing.T) {
	term := start(t, ptytest.Job{Steps: []string{"pid", "redraw", "record", "ready", "until-input:3", "exit:0"}})
	term.WaitReport("ready")
	term.Type([]byte{0x1a}, 0) // Ctrl-Z
	term.WaitLeader("stopped SIGTSTP")
	term.SignalLeader(syscall.SIGUSR1)
	term.WaitLeader("did SIGUSR1")
	term.SignalWrapper(syscall.SIGCONT) // bg
	term.WaitFor("pbwrap running in the background", func() bool { return !term.Stopped(term.WrapperPid()) })
	term.Type([]byte("shell\r"), 0) // Typed at the shell's prompt: not pbwrap's.
	time.Sleep(300 * time.Millisecond)
	if !term.Stopped(term.ChildPid()) {
		t.Error("the child is running while pbwrap is in the background, want it stopped")
	}
	if bytes.Contains(term.Output(), []byte("REDRAW 1")) {
		t.Error("the child was continued while pbwrap was in the background")
	}
	// The shell reads what was typed for it (the terminal is cooked: a
	// line) before fg; pbwrap took none of it.
	got := make(chan string, 1)
	go func() { // Ends when the line is read, or at cleanup when the slave closes.
		buf := make([]byte, 16)
		n, _ := term.Slave.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case line := <-got:
		if line != "shell\n" {
			t.Errorf("the shell read %q, want %q", line, "shell\n")
		}
	case <-time.After(ptytest.Watchdog):
		t.Fatal("watchdog: the shell never got the line typed for it")
	}
	term.SignalLeader(syscall.SIGUSR2) // fg
	term.WaitOutput("REDRAW 1")
	term.Type([]byte("ok\r"), 0)
	if got := string(term.WaitInput(3)); got != "ok\n" {
		t.Errorf("child got %q, want %q", got, "ok\n")
	}
	term.WantExit("exit 0")
}

// Ctrl-Z a second time, and keystrokes after fg still reach the child.
func TestCtrlZTwiceKeepsInput(t *testing.T) {
	term := start(t, ptytest.Job{Steps: []string{"record", "ready", "until-input:6", "exit:0"}})
	term.WaitReport("ready")
	for range 2 {
		term.Type([]byte{0x1a}, 0)
		term.WaitFor("a stop", func() bool { return strings.Count(term.File("leader"), "stopped") == 1 })
		term.SignalLeader(syscall.SIGUSR1)
		term.WaitFor("a shell", func() bool { return strings.Count(term.File("leader"), "did SIGUSR1") >= 1 })
		term.SignalLeader(syscall.SIGUSR2)
		term.WaitFor("a fg", func() bool { return strings.Count(term.File("leader"), "did SIGUSR2") >= 1 })
		os.WriteFile(term.Path("leader"), nil, 0o600) // Count afresh.
	}
	term.Type([]byte("abc\r"), 0)
	term.Type([]byte("de\r"), 0)
	if got := string(term.WaitInput(6)); got != "abc\nde\n" {
		t.Errorf("child got %q, want %q", got, "abc\nde\n")
	}
}

// When the command ends while the input filter wants more, the proxy
// reads the terminal on until the filter is done, and nothing it was
// sending reaches the shell after the proxy. Regression test for issue
// 10, point 7 (a paste's rest ran in the shell).
func TestUnfinishedInputReadToItsEnd(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "log")
	term := start(t, ptytest.Job{Steps: []string{"raw", "pid", "record", "ready", "block"}, Shell: true,
		Env: []string{"PBWRAP_TEST_FILTER=dot", "PBWRAP_TEST_LOG=" + logFile}})
	term.WaitReport("ready")
	term.Type([]byte("started"), 0)
	term.WaitInput(len("started"))
	if err := syscall.Kill(term.ChildPid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	term.WaitFor("the proxy to read on", func() bool {
		log, _ := os.ReadFile(logFile)
		return bytes.Contains(log, []byte("the filter wants more")) || term.FileHas("leader", "exit ")
	})
	term.Type([]byte("ls\rrm -rf ~\rdone."), 0)
	term.WantExit("exit 137")
	term.Type([]byte("echo next\r"), 0)
	term.WaitFor("the shell to read a line", func() bool { return term.FileHas("shell", "echo next") })
	if got := term.File("shell"); got != "echo next\n" {
		t.Errorf("the shell read %q before the line typed for it, want nothing", got)
	}
}

// A filter that never stops wanting more cannot keep the proxy alive: the
// wait is bounded by its deadline (here none) and lingerSlack. The
// watchdog, counted from the command's death, is a small multiple of that
// bound (the drain, which could add DrainTimeout, ends at once here: the
// PTY closes with the command).
func TestUnfinishedInputWaitIsBounded(t *testing.T) {
	term := start(t, ptytest.Job{Steps: []string{"raw", "pid", "record", "ready", "block"},
		Env: []string{"PBWRAP_TEST_FILTER=forever"}})
	term.WaitReport("ready")
	term.Type([]byte("started"), 0)
	term.WaitInput(len("started"))
	if err := syscall.Kill(term.ChildPid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := term.ExitWithin(4 * lingerSlack); got != "exit 137" {
		t.Errorf("the wrapper ended with %q, want exit 137", got)
	}
	term.WantTermiosRestored()
}
