//go:build darwin || freebsd || linux

package main

// End-to-end tests of pbwrap as a whole: the test is the user's terminal
// and runs the built pbwrap (see ptytest). How the proxy itself behaves
// (sizes, signals, job control, restoring the terminal) is tested in
// ptyproxy.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/pbwrap/pbwrap/internal/termproto"

	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/shellword"
)

// Every byte the user types reaches the child, and every byte the child
// writes reaches the terminal, through the whole of pbwrap with its paste
// and mode filters on the way, in order, whatever the chunking, both ways
// at once. ptyproxy's own tests show the same of the proxy alone.
func TestBytesPassThrough(t *testing.T) {
	const in, out = 1 << 20, 3 << 20
	term := startPbwrap(t, ptytest.Job{Steps: []string{"raw", "record", "ready", fmt.Sprintf("out:%d", out), fmt.Sprintf("until-input:%d", in), "exit:0"}})
	term.WaitReport("ready")
	term.WantInput(ptytest.Noise(in))
	term.WantExit("exit 0")
	// pbwrap's own: bracketed paste on at start and its question, off at exit.
	want := slices.Concat([]byte("\x1b[?2004h"+termproto.Question+"READY\r\n"), ptytest.Pattern(out), []byte("\x1b[?2004l"))
	term.WaitFor("all output", func() bool { return len(term.Output()) >= len(want) })
	if diff := ptytest.Diff(term.Output(), want); diff != "" {
		t.Errorf("terminal: %s", diff)
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
			term := startPbwrap(t, ptytest.Job{Command: tc.command})
			term.WantExit(tc.want)
			term.WaitOutput(tc.msg)
			if out := string(term.Output()); !strings.HasSuffix(out, tc.msg) || strings.Count(out, "\n") != 1 {
				t.Errorf("pbwrap said %q, want one line ending in %q", out, tc.msg)
			}
		})
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
		name            string
		flags, env      []string
		pipeIn, pipeOut bool
		wantStdinTTY    bool
	}{
		{name: "stdin is a pipe", pipeIn: true},
		{name: "stdout is a pipe", pipeOut: true, wantStdinTTY: true},
		{name: "nested", env: []string{"PBWRAP_SESSION=0190abcd"}, wantStdinTTY: true},
		{name: "--off", flags: []string{"--off"}, wantStdinTTY: true},
		{name: "PBWRAP_OFF=1", env: []string{"PBWRAP_OFF=1"}, wantStdinTTY: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave, err := ptyio.OpenPTY()
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			defer slave.Close()
			go func() { _, _ = copyAll(master) }() // Ends when the master is closed.
			dir := t.TempDir()
			report := filepath.Join(dir, "report")
			args := append(append(tc.flags, "--"), ptytest.ChildArgv(t, "pid", "stdin-tty", "exit:7")...)
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
			err = runWithin(t, cmd)
			if code := cmd.ProcessState.ExitCode(); code != 7 {
				t.Fatalf("pbwrap exited %d (%v), want the child's 7", code, err)
			}
			b, _ := os.ReadFile(report)
			got := string(b)
			if want := fmt.Sprintf("pid %d ", cmd.Process.Pid); !strings.Contains(got, want) {
				t.Errorf("child reported %q, want it to be pbwrap's own process (%q)", got, want)
			}
			if tc.wantStdinTTY {
				if want := ptytest.StdinTTY(t, slave) + "\n"; !strings.Contains(got, want) {
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

// When the root cannot be used at start, pbwrap says so in one line that
// names the doctor command for that root, and runs the command; with
// --require-store or PBWRAP_REQUIRE_STORE it refuses to run it, exit 1
// (issue 14).
func TestUnusableRootAtStart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(file, "root")
	hint := "(pbwrap --root " + shellword.Quote(root) + " doctor tells more)\r\n"
	for _, tc := range []struct {
		name  string
		flags []string
		env   []string
		runs  bool
	}{
		{name: "default", runs: true},
		{name: "--require-store", flags: []string{"--require-store"}},
		{name: "PBWRAP_REQUIRE_STORE=yes", env: []string{"PBWRAP_REQUIRE_STORE=yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := startPbwrap(t, ptytest.Job{Env: append([]string{"PBWRAP_ROOT=" + root}, tc.env...), Steps: []string{"ready", "exit:0"}}, tc.flags...)
			if tc.runs {
				term.WaitOutput("READY")
				term.WantExit("exit 0")
			} else {
				term.WantExit("exit 1")
			}
			term.WaitOutput(hint)
			out := string(term.Output())
			prefix := "pbwrap: not saving pastes: "
			if !tc.runs {
				prefix = "pbwrap: not running "
			}
			if !strings.HasPrefix(out, prefix) || strings.Count(out, hint) != 1 {
				t.Errorf("pbwrap said %q, want one line from %q to %q", out, prefix, hint)
			}
			if ran := strings.Contains(out, "READY"); ran != tc.runs {
				t.Errorf("the command ran: %v, want %v (terminal: %q)", ran, tc.runs, out)
			}
		})
	}
}

// A root whose path does not print (a newline, ESC) is refused, and the
// warning, or the --require-store error, is still one line, with the path
// escaped and nothing the terminal would act on (review finding 6).
func TestUnusableRootNotPrintable(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a\nb\x1b[31mRED")
	for _, tc := range []struct {
		name   string
		flags  []string
		prefix string
		runs   bool
	}{
		{name: "warning", prefix: "pbwrap: not saving pastes: ", runs: true},
		{name: "--require-store", flags: []string{"--require-store"}, prefix: "pbwrap: not running "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := startPbwrap(t, ptytest.Job{Steps: []string{"ready", "exit:0"}}, append([]string{"--root", root}, tc.flags...)...)
			if tc.runs {
				term.WaitOutput("READY")
				term.WantExit("exit 0")
			} else {
				term.WantExit("exit 1")
			}
			const hint = " (pbwrap doctor tells more)\r\n"
			term.WaitOutput(hint)
			out := string(term.Output())
			line, _, _ := strings.Cut(out, hint)
			if !strings.HasPrefix(line, tc.prefix) || strings.ContainsAny(line, "\r\n\x1b") || !strings.Contains(line, `a\nb\x1b[31mRED`) {
				t.Errorf("pbwrap said %q, want one line from %q to %q, the root escaped", out, tc.prefix, hint)
			}
		})
	}
}
