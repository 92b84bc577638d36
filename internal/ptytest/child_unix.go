//go:build darwin || freebsd || linux

package ptytest

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// ChildArgv is the command line of the recording child with steps: the
// test binary, which plays the child when PBWRAP_TEST_CHILD is set (Start
// sets it).
func ChildArgv(t *testing.T, steps ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{self}, steps...)
}

// childMain is the recording child: it runs its arguments as steps (see
// the package doc), in order, and appends what it sees as lines to the
// file named by PBWRAP_TEST_REPORT; with the record step, the exact bytes
// it reads go to the file named by PBWRAP_TEST_INPUT.
func childMain(args []string) int {
	c := &child{report: reportFile{name: os.Getenv(reportEnv)}, input: os.Getenv(inputEnv)}
	for _, step := range args {
		if strings.HasPrefix(step, "-") {
			c.logf("arg %s", step) // Added by pbwrap for an agent.
			continue
		}
		if status, done := c.step(step); done {
			return status
		}
	}
	return 0
}

// step runs one step. It reports whether the child is done, and with
// which status.
func (c *child) step(step string) (status int, done bool) {
	name, arg, _ := strings.Cut(step, ":")
	switch name {
	case "raw":
		if _, err := term.MakeRaw(0); err != nil {
			c.logf("error raw %v", err)
		}
	case "cooked-nosig":
	case "size":
		c.size()
	case "watch":
		c.watch()
	case "redraw":
		c.redraw()
	case "record":
		c.record(false, -1)
	case "record-hold":
		c.record(false, int64(atoi(arg)))
	case "echo":
		c.record(true, -1)
	case "stdin-tty":
		c.stdinTTY()
	case "pid":
		c.logf("pid %d %d", os.Getpid(), os.Getppid())
	case "env":
		c.logf("env %s=%s", arg, os.Getenv(arg))
	case "print":
		fmt.Printf("%s\r\n", arg)
	case "bp":
		c.bracketedPaste(arg == "on")
	case "seq":
		fmt.Print(childSeqs[arg])
	case "write":
		c.write(arg)
	case "out":
		_, _ = os.Stdout.Write(Pattern(atoi(arg)))
	case "ready":
		fmt.Print("READY\r\n")
		c.logf("ready")
	case "until-input":
		c.untilInput(int64(atoi(arg)))
	case "until-eof":
		c.untilEOF()
	case "grandchild":
		c.grandchild(arg)
	case "sleep":
		d, _ := time.ParseDuration(arg)
		time.Sleep(d)
	case "block":
		for {
			time.Sleep(time.Hour)
		}
	case "nohup":
		signal.Ignore(syscall.SIGHUP)
	case "exit":
		return atoi(arg), true
	case "die":
		return die(syscall.Signal(atoi(arg))), true
	case "stop":
		c.stop(arg)
	default:
		c.logf("error unknown step %q", step)
		return 99, true
	}
	return 0, false
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// write writes the Go string literal q ("\x1b[?1049h"), unquoted, to
// stdout at once.
func (c *child) write(q string) {
	s, err := strconv.Unquote(q)
	if err != nil {
		c.logf("error write %q: %v", q, err)
		return
	}
	_, _ = os.Stdout.WriteString(s)
}

// childSeqs are escape sequences the child can write by name.
var childSeqs = map[string]string{
	"altscreen-bp": "\x1b[?1049;2004h", // alternate screen and bracketed paste at once
	"bp-cursor":    "\x1b[?2004;25l",   // bracketed paste off, cursor hidden
}

type child struct {
	report reportFile
	input  string
}

func (c *child) logf(format string, args ...any) { c.report.logf(format, args...) }

func (c *child) size() {
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil {
		c.logf("error size %v", err)
		return
	}
	c.logf("size %d %d", ws.Row, ws.Col)
}

// stdinTTY reports which terminal is on standard input by its device
// number, which every Unix has (no /proc/self/fd or ttyname needed); see
// StdinTTY for the line a test wants.
func (c *child) stdinTTY() {
	var st unix.Stat_t
	if !term.IsTerminal(0) || unix.Fstat(0, &st) != nil {
		c.logf("stdin-tty none")
		return
	}
	c.logf("stdin-tty %s", deviceID(&st))
}

// StdinTTY is the line that the recording child's stdin-tty step reports
// when its standard input is the terminal f: a PTY's slave side, found by
// its name.
func StdinTTY(t *testing.T, f *os.File) string {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(f.Name(), &st); err != nil {
		t.Fatalf("stat the terminal: %v", err)
	}
	return "stdin-tty " + deviceID(&st)
}

// deviceID names the device that a device file stands for, by number.
func deviceID(st *unix.Stat_t) string {
	return fmt.Sprintf("rdev %#x", uint64(st.Rdev))
}

func (c *child) bracketedPaste(on bool) {
	if on {
		fmt.Print("\x1b[?2004h")
		c.logf("bp on")
		return
	}
	fmt.Print("\x1b[?2004l")
	c.logf("bp off")
}

// die kills the child with sig, by its default action.
func die(sig syscall.Signal) int {
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(10 * time.Second)
	return 99
}

// stop stops the child with the signal named name (SIGSTOP, SIGTSTP),
// sent to its own pid, as Claude Code suspends itself, rather than by the
// terminal's Ctrl-Z. It reports "stopping NAME" first and "continued"
// once a SIGCONT has continued it.
func (c *child) stop(name string) {
	sig := unix.SignalNum(name)
	if sig == 0 {
		c.logf("error stop: no signal %q", name)
		return
	}
	conts := make(chan os.Signal, 1)
	signal.Notify(conts, syscall.SIGCONT)
	defer signal.Stop(conts)
	c.logf("stopping %s", name)
	if err := unix.Kill(os.Getpid(), sig); err != nil {
		c.logf("error stop: %v", err)
		return
	}
	<-conts
	c.logf("continued")
}

func (c *child) watch() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGCONT)
	go func() { // Lives as long as the child.
		for sig := range sigs {
			c.watched(sigs, sig.(syscall.Signal))
		}
	}()
}

// watched reports sig, and dies of it if it is one that ends a program.
func (c *child) watched(sigs <-chan os.Signal, sig syscall.Signal) {
	c.logf("signal %s", unix.SignalName(sig))
	switch sig {
	case syscall.SIGWINCH:
		c.size()
	case syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT:
		// Signals that came together are delivered in number order, not
		// in the order sent: report them all before dying of the first.
		c.drainSignals(sigs, 100*time.Millisecond)
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
	}
}

// drainSignals reports what else arrives on sigs for d.
func (c *child) drainSignals(sigs <-chan os.Signal, d time.Duration) {
	deadline := time.After(d)
	for {
		select {
		case sig := <-sigs:
			c.logf("signal %s", unix.SignalName(sig.(syscall.Signal)))
		case <-deadline:
			return
		}
	}
}

func (c *child) redraw() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGCONT)
	draw(0)
	go func() { // Lives as long as the child.
		n := 0
		for range sigs {
			n++
			draw(n)
		}
	}()
}

// draw prints the n-th "REDRAW" line with the terminal's size.
func draw(n int) {
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil {
		ws = &unix.Winsize{}
	}
	fmt.Printf("REDRAW %d %dx%d\r\n", n, ws.Row, ws.Col)
}

// record copies stdin to the input file in the background. Once it has
// read at least holdAt bytes (never when holdAt is negative) it stops
// reading until the test resumes it (see hold).
func (c *child) record(echo bool, holdAt int64) {
	f, err := os.OpenFile(c.input, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		c.logf("error record %v", err)
		return
	}
	go func() { // Lives as long as the child.
		buf := make([]byte, 64<<10)
		var read int64
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				_, _ = f.Write(buf[:n])
				if echo {
					show(buf[:n])
				}
			}
			if err != nil {
				return
			}
			read += int64(n)
			if holdAt >= 0 && read >= holdAt {
				c.hold()
				holdAt = -1
			}
		}
	}()
}

// hold stops reading input, reporting "holding", until the file named by
// PBWRAP_TEST_INPUT with ".resume" appended exists (see
// Terminal.ResumeChild), then reports "resumed". What is written to the
// child meanwhile fills its terminal's input queue, then blocks the
// writer.
func (c *child) hold() {
	c.logf("holding")
	for {
		if _, err := os.Stat(c.input + ".resume"); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.logf("resumed")
}

// show writes input to stdout with the paste markers made visible.
func show(input []byte) {
	shown := strings.NewReplacer("\x1b[200~", "<200~>", "\x1b[201~", "<201~>", "\r", "\r\n").Replace(string(input))
	_, _ = os.Stdout.WriteString(shown)
}

func (c *child) untilInput(n int64) {
	for {
		if fi, err := os.Stat(c.input); err == nil && fi.Size() >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *child) untilEOF() {
	buf := make([]byte, 4096)
	for {
		if _, err := os.Stdin.Read(buf); err != nil {
			c.logf("input ended: %v", err)
			return
		}
	}
}

func (c *child) grandchild(how string) {
	steps := []string{"watch", "ready", "sleep:60s"}
	if how == "nohup" {
		steps = []string{"nohup", "ready", "sleep:60s"}
	}
	cmd := exec.Command(os.Args[0], steps...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), reportEnv+"="+c.report.name+".grandchild")
	if how == "nohup" {
		// In a session of its own from the start, as a daemon is: the PTY's
		// hangup cannot reach it before it ignores SIGHUP, however slowly
		// it starts on a busy machine.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := cmd.Start(); err != nil {
		c.logf("error grandchild %v", err)
		return
	}
	c.logf("grandchild %d", cmd.Process.Pid)
}
