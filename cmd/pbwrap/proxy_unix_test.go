//go:build unix

package main

// End-to-end tests of the transparent wrapper. Each test is the user's
// terminal: it runs the built pbwrap on a PTY, under a job-control shell,
// with the test binary as the child that reports what it sees.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/ptyproxy"
	"golang.org/x/sys/unix"
)

// The child starts in a PTY of the terminal's size, and follows resizes.
func TestWindowSize(t *testing.T) {
	term := startTerminal(t, session{rows: 30, cols: 100, steps: []string{"watch", "size", "ready", "block"}})
	term.waitReport("ready")
	if got := term.reportLines("report", "size "); len(got) == 0 || got[0] != "size 30 100" {
		t.Fatalf("child's first size: %q, want size 30 100", got)
	}
	if err := ptyproxy.SetSize(term.master, 40, 132); err != nil {
		t.Fatal(err)
	}
	term.waitReport("size 40 132")
	term.signalPbwrap(syscall.SIGTERM)
	term.wantExit("exit 143")
}

// The terminal's termios are restored exactly on every way out.
func TestTermiosRestoredOnEveryExit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string
		env   []string
		do    func(*terminal)
		want  string
	}{
		{name: "child exits 0", steps: []string{"raw", "ready", "exit:0"}, want: "exit 0"},
		{name: "child exits 3", steps: []string{"raw", "ready", "exit:3"}, want: "exit 3"},
		{name: "child killed by SIGKILL", steps: []string{"raw", "ready", "die:9"}, want: "exit 137"},
		{name: "child killed by SIGTERM", steps: []string{"ready", "die:15"}, want: "exit 143"},
		{name: "SIGTERM to pbwrap", steps: []string{"raw", "ready", "block"}, want: "exit 143",
			do: func(term *terminal) { term.signalPbwrap(syscall.SIGTERM) }},
		{name: "SIGHUP to pbwrap", steps: []string{"raw", "ready", "block"}, want: "exit 129",
			do: func(term *terminal) { term.signalPbwrap(syscall.SIGHUP) }},
		{name: "SIGINT to pbwrap", steps: []string{"raw", "ready", "block"}, want: "exit 130",
			do: func(term *terminal) { term.signalPbwrap(syscall.SIGINT) }},
		{name: "pbwrap panics", steps: []string{"ready", "print:BOOM", "block"}, want: "exit 2",
			env: []string{"PBWRAP_TEST_PANIC=BOOM"}},
		{
			// The shell took the terminal back (bg): restoring from a
			// background process group must not stop pbwrap on SIGTTOU.
			name: "exit while in the background", steps: []string{"raw", "ready", "block"}, want: "exit 143",
			do: func(term *terminal) {
				term.signalLeader(syscall.SIGUSR1)
				term.waitLeader("did SIGUSR1")
				// As the shell's kill does: SIGTERM, then SIGCONT.
				term.signalPbwrap(syscall.SIGTERM)
				term.continuePbwrap()
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := startTerminal(t, session{steps: tc.steps, env: tc.env})
			term.waitReport("ready")
			if tc.do != nil {
				tc.do(term)
			}
			term.wantExit(tc.want)
		})
	}
}

// pbwrap exits with the child's status, 127 for a command that is not
// found and 126 for one that cannot be executed, with a one-line message.
func TestExitStatusOfUnrunnableCommand(t *testing.T) {
	dir := t.TempDir()
	noexec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command []string
		want    string
		msg     string
	}{
		{[]string{"pbwrap-no-such-command"}, "exit 127", "pbwrap: pbwrap-no-such-command: command not found\r\n"},
		{[]string{filepath.Join(dir, "missing")}, "exit 127", "missing: no such file or directory\r\n"},
		{[]string{noexec}, "exit 126", "noexec: cannot execute: permission denied\r\n"},
		{[]string{dir}, "exit 126", ": cannot execute: is a directory\r\n"},
	} {
		t.Run(tc.command[0], func(t *testing.T) {
			term := startTerminal(t, session{command: tc.command})
			term.wantExit(tc.want)
			term.waitOutput(tc.msg)
			if out := string(term.out.Bytes()); !strings.HasSuffix(out, tc.msg) || strings.Count(out, "\n") != 1 {
				t.Errorf("pbwrap said %q, want one line ending in %q", out, tc.msg)
			}
		})
	}
}

// Every byte the child writes reaches the terminal, in order, including
// what it writes just before it exits.
func TestOutputComplete(t *testing.T) {
	const n = 3 << 20
	term := startTerminal(t, session{steps: []string{"raw", fmt.Sprintf("out:%d", n), "exit:0"}})
	term.wantExit("exit 0")
	// pbwrap's own: bracketed paste on at start, off at exit.
	want := append(append([]byte("\x1b[?2004h"), pattern(n)...), "\x1b[?2004l"...)
	term.waitFor("all output", func() bool { return len(term.out.Bytes()) >= len(want) })
	if got := term.out.Bytes(); !bytes.Equal(got, want) {
		t.Fatalf("terminal got %d bytes, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}

// A grandchild that keeps the PTY open cannot keep pbwrap alive: the
// output is drained for a bounded time only.
func TestDrainIsBounded(t *testing.T) {
	term := startTerminal(t, session{steps: []string{"grandchild:nohup", "sleep:100ms", "print:BYE", "exit:0"}})
	start := time.Now()
	term.wantExit("exit 0")
	term.waitOutput("BYE")
	if !term.fileHas("report.grandchild", "ready") {
		t.Fatal("the grandchild did not start")
	}
	t.Logf("pbwrap ended %v after start, grandchild still holding the PTY", time.Since(start))
}

// Every byte the user types reaches the child, in order, whatever the
// chunking.
func TestInputComplete(t *testing.T) {
	const n = 1 << 20
	in := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range in {
		in[i] = byte(rng.IntN(256))
	}
	term := startTerminal(t, session{steps: []string{"raw", "record", "ready", fmt.Sprintf("until-input:%d", n), "exit:0"}})
	term.waitReport("ready")
	for off, i := 0, 0; off < n; i++ {
		size := []int{1, 7, 3, 4096, 65537, 2, 31}[i%7]
		size = min(size, n-off)
		term.type_(in[off:off+size], 0)
		off += size
	}
	got := term.waitInput(n)
	term.wantExit("exit 0")
	if !bytes.Equal(got, in) {
		t.Fatalf("child got %d bytes, want %d; first difference at %d", len(got), n, firstDiff(got, in))
	}
}

// A child that floods its output while a megabyte is written to its input
// does not deadlock: writing to the child never blocks the output pump.
func TestFloodBothWays(t *testing.T) {
	const in, out = 1 << 20, 8 << 20
	term := startTerminal(t, session{steps: []string{"raw", "ready", fmt.Sprintf("out:%d", out), "record", fmt.Sprintf("until-input:%d", in), "exit:0"}})
	term.waitReport("ready")
	input := bytes.Repeat([]byte("0123456789abcdef"), in/16)
	written := make(chan struct{})
	go func() { // Ends when all input is written, or at cleanup when the terminal closes.
		defer close(written)
		_, _ = term.master.Write(input)
	}()
	got := term.waitInput(in)
	term.wantExit("exit 0")
	<-written
	if !bytes.Equal(got, input) {
		t.Fatalf("child got %d bytes of input, want %d", len(got), in)
	}
	term.waitFor("all output", func() bool { return len(term.out.Bytes()) >= out+len("READY\r\n") })
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
			term := startTerminal(t, session{steps: []string{"watch", "grandchild", "ready", "block"}})
			term.waitReport("ready")
			term.waitFor("grandchild ready", func() bool { return term.fileHas("report.grandchild", "ready") })
			term.signalPbwrap(tc.sig)
			term.waitReport("signal " + name)
			term.waitFor("grandchild's "+name, func() bool { return term.fileHas("report.grandchild", "signal "+name) })
			term.wantExit(tc.want)
		})
	}
}

// Closing the terminal hangs pbwrap up; the child gets SIGHUP and pbwrap
// ends with its status instead of lingering.
func TestTerminalClosed(t *testing.T) {
	term := startTerminal(t, session{steps: []string{"watch", "ready", "block"}})
	term.waitReport("ready")
	term.master.Close()
	term.waitReport("signal SIGHUP")
	if got := term.exit(); got != "exit 129" {
		t.Errorf("pbwrap ended with %q, want exit 129", got)
	}
}

// When pbwrap itself dies without a chance to clean up, the child is hung
// up rather than left running with nobody at the terminal.
func TestPbwrapKilled(t *testing.T) {
	term := startTerminal(t, session{steps: []string{"watch", "ready", "block"}})
	term.waitReport("ready")
	term.signalPbwrap(syscall.SIGKILL)
	term.waitReport("signal SIGHUP")
	if got := term.exit(); got != "signal 9" {
		t.Errorf("pbwrap ended with %q, want signal 9", got)
	}
}

// Ctrl-Z stops the child and pbwrap with it, the terminal restored; fg
// takes the terminal again, continues the child and resends the size, and
// the child redraws.
func TestCtrlZAndFg(t *testing.T) {
	term := startTerminal(t, session{rows: 30, cols: 90, steps: []string{"redraw", "ready", "block"}})
	term.waitReport("ready")
	term.waitOutput("REDRAW 0 30x90")
	term.type_([]byte{0x1a}, 0) // Ctrl-Z
	term.waitLeader("stopped SIGTSTP")
	term.wantTermiosRestored()

	// The shell takes the terminal, the user resizes it, then types fg.
	term.signalLeader(syscall.SIGUSR1)
	term.waitLeader("did SIGUSR1")
	if err := ptyproxy.SetSize(term.master, 33, 91); err != nil {
		t.Fatal(err)
	}
	term.signalLeader(syscall.SIGUSR2)
	term.waitLeader("did SIGUSR2")
	term.waitOutput("33x91")
	after, err := unix.IoctlGetTermios(int(term.slave.Fd()), ioctlReadTermios)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag&unix.ICANON != 0 {
		t.Error("after fg the terminal is not in raw mode again")
	}
	term.type_([]byte{0x03}, 0) // Ctrl-C: the child dies of SIGINT.
	term.wantExit("exit 130")
}

// A stopped pbwrap killed from the shell (kill %1: SIGTERM, then SIGCONT)
// ends, and its child with it, instead of stopping again to read input.
func TestKillStoppedJob(t *testing.T) {
	term := startTerminal(t, session{steps: []string{"watch", "ready", "block"}})
	term.waitReport("ready")
	term.type_([]byte{0x1a}, 0) // Ctrl-Z
	term.waitLeader("stopped SIGTSTP")
	term.signalLeader(syscall.SIGUSR1)
	term.waitLeader("did SIGUSR1")
	term.signalPbwrap(syscall.SIGTERM)
	term.continuePbwrap()
	term.waitReport("signal SIGTERM")
	term.wantExit("exit 143")
}

// Continued in the background (bg), pbwrap leaves the child stopped, as a
// full-screen program stops again when it finds it does not own the
// terminal, and does not read the terminal; fg then brings both back.
func TestBgThenFg(t *testing.T) {
	term := startTerminal(t, session{steps: []string{"pid", "redraw", "record", "ready", "until-input:3", "exit:0"}})
	term.waitReport("ready")
	term.type_([]byte{0x1a}, 0) // Ctrl-Z
	term.waitLeader("stopped SIGTSTP")
	term.signalLeader(syscall.SIGUSR1)
	term.waitLeader("did SIGUSR1")
	term.signalPbwrap(syscall.SIGCONT) // bg
	term.waitFor("pbwrap running in the background", func() bool { return procState(term.pbwrapPid()) != 'T' })
	term.type_([]byte("shell\r"), 0) // Typed at the shell's prompt: not pbwrap's.
	time.Sleep(300 * time.Millisecond)
	if state := procState(term.childPid()); state != 'T' {
		t.Errorf("the child is in state %q while pbwrap is in the background, want stopped (T)", state)
	}
	if bytes.Contains(term.out.Bytes(), []byte("REDRAW 1")) {
		t.Error("the child was continued while pbwrap was in the background")
	}
	// The shell reads what was typed for it (the terminal is cooked: a
	// line) before fg; pbwrap took none of it.
	got := make(chan string, 1)
	go func() { // Ends when the line is read, or at cleanup when the slave closes.
		buf := make([]byte, 16)
		n, _ := term.slave.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case line := <-got:
		if line != "shell\n" {
			t.Errorf("the shell read %q, want %q", line, "shell\n")
		}
	case <-time.After(watchdog):
		t.Fatal("watchdog: the shell never got the line typed for it")
	}
	term.signalLeader(syscall.SIGUSR2) // fg
	term.waitOutput("REDRAW 1")
	term.type_([]byte("ok\r"), 0)
	if got := string(term.waitInput(3)); got != "ok\n" {
		t.Errorf("child got %q, want %q", got, "ok\n")
	}
	term.wantExit("exit 0")
}

// Ctrl-Z a second time, and keystrokes after fg still reach the child.
func TestCtrlZTwiceKeepsInput(t *testing.T) {
	term := startTerminal(t, session{steps: []string{"record", "ready", "until-input:6", "exit:0"}})
	term.waitReport("ready")
	for range 2 {
		term.type_([]byte{0x1a}, 0)
		term.waitFor("a stop", func() bool { return strings.Count(readFile(term.path("leader")), "stopped") == 1 })
		term.signalLeader(syscall.SIGUSR1)
		term.waitFor("a shell", func() bool { return strings.Count(readFile(term.path("leader")), "did SIGUSR1") >= 1 })
		term.signalLeader(syscall.SIGUSR2)
		term.waitFor("a fg", func() bool { return strings.Count(readFile(term.path("leader")), "did SIGUSR2") >= 1 })
		os.WriteFile(term.path("leader"), nil, 0o600) // Count afresh.
	}
	term.type_([]byte("abc\r"), 0)
	term.type_([]byte("de\r"), 0)
	if got := string(term.waitInput(6)); got != "abc\nde\n" {
		t.Errorf("child got %q, want %q", got, "abc\nde\n")
	}
}

// procState is a process's state letter from /proc (T: stopped), or 0.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2]
	}
	return 0
}

// childPid is the recording child's pid, from its "pid" report.
func (term *terminal) childPid() int {
	term.t.Helper()
	for _, line := range term.reportLines("report", "pid ") {
		var pid, ppid int
		if _, err := fmt.Sscanf(line, "pid %d %d", &pid, &ppid); err == nil {
			return pid
		}
	}
	term.t.Fatal("the child did not report its pid")
	return 0
}

func readFile(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

func (term *terminal) signalLeader(sig syscall.Signal) {
	term.t.Helper()
	if err := term.leader.Process.Signal(sig); err != nil {
		term.t.Fatalf("signal leader: %v", err)
	}
}

// Without a terminal on both sides, nested in pbwrap, or when turned off,
// pbwrap becomes the command: same process, same descriptors.
func TestPassThrough(t *testing.T) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err == nil {
		tty.Close()
	}
	for _, tc := range []struct {
		name             string
		flags, env       []string
		pipeIn, pipeOut  bool
		wantStdinTTYName bool
	}{
		{name: "stdin is a pipe", pipeIn: true},
		{name: "stdout is a pipe", pipeOut: true, wantStdinTTYName: true},
		{name: "nested", env: []string{"PBWRAP_SESSION=0190abcd"}, wantStdinTTYName: true},
		{name: "--off", flags: []string{"--off"}, wantStdinTTYName: true},
		{name: "PBWRAP_OFF=1", env: []string{"PBWRAP_OFF=1"}, wantStdinTTYName: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave, err := ptyproxy.OpenPTY()
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			defer slave.Close()
			go func() { _, _ = copyAll(master) }() // Ends when the master is closed.
			dir := t.TempDir()
			report := filepath.Join(dir, "report")
			args := append(append(tc.flags, "--"), childArgv(t, "pid", "stdin-tty", "exit:7")...)
			cmd := exec.Command(pbwrapBin, args...)
			cmd.Env = append(append(os.Environ(), "PBWRAP_TEST_CHILD=1", "PBWRAP_TEST_REPORT="+report), tc.env...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			if tc.pipeIn {
				cmd.Stdin = strings.NewReader("")
			}
			if tc.pipeOut {
				cmd.Stdout = new(bytes.Buffer)
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if tc.pipeIn {
				cmd.SysProcAttr.Ctty = 1
			}
			err = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 7 {
				t.Fatalf("pbwrap exited %d (%v), want the child's 7", code, err)
			}
			got := readFile(report)
			if want := fmt.Sprintf("pid %d ", cmd.Process.Pid); !strings.Contains(got, want) {
				t.Errorf("child reported %q, want it to be pbwrap's own process (%q)", got, want)
			}
			if tc.wantStdinTTYName {
				if want := "stdin-tty " + slave.Name(); !strings.Contains(got, want) {
					t.Errorf("child reported %q, want the terminal's own descriptor (%q)", got, want)
				}
			}
		})
	}
}

func copyAll(f *os.File) (int, error) {
	buf := make([]byte, 4096)
	total := 0
	for {
		n, err := f.Read(buf)
		total += n
		if err != nil {
			return total, err
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
