//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// childMain is the wrapped command of the end-to-end tests: the test
// binary re-run under pbwrap with PBWRAP_TEST_CHILD set. It runs its
// arguments as steps, in order, and appends what it sees as lines to the
// file named by PBWRAP_TEST_REPORT; with the record step, the exact bytes
// it reads go to the file named by PBWRAP_TEST_INPUT.
//
// Arguments that start with "-" are not steps: they are reported as
// "arg ARG" (pbwrap adds some for known agents).
//
// Steps:
//
//	raw            put its terminal in raw mode
//	cooked-nosig   keep the terminal cooked (the default); a no-op, for clarity
//	size           report "size ROWS COLS"
//	watch          report signals as "signal NAME" (and sizes on SIGWINCH);
//	               die of TERM, HUP, INT and QUIT once reported
//	redraw         print "REDRAW n ROWSxCOLS" to stdout now and on each
//	               SIGCONT and SIGWINCH
//	record         copy stdin to the input file, in the background
//	echo           the same, and also show it on stdout, with the paste
//	               markers made visible as <200~> and <201~>
//	stdin-tty      report "stdin-tty NAME" (or "stdin-tty none")
//	pid            report "pid PID PPID"
//	env:NAME       report "env NAME=VALUE"
//	print:TEXT     write TEXT and CRLF to stdout
//	bp:on, bp:off  turn bracketed paste on or off, as an editor does
//	               (ESC[?2004h, ESC[?2004l), and report "bp on" or "bp off"
//	seq:NAME       write a named escape sequence (see childSeqs)
//	out:N          write N bytes of a known pattern to stdout
//	ready          write "READY" CRLF to stdout and report "ready"
//	until-input:N  wait until the input file holds N bytes
//	grandchild     start a background grandchild in the same process group,
//	               which reports its own signals, holds the terminal open
//	               and lives for 60 s
//	grandchild:nohup  the same, but one that ignores SIGHUP
//	nohup          ignore SIGHUP
//	sleep:D        sleep for the duration D
//	block          wait forever (until a signal kills it)
//	exit:N         exit with status N
//	die:SIG        kill itself with signal SIG (a number)
func childMain(args []string) int {
	c := &child{report: os.Getenv("PBWRAP_TEST_REPORT"), input: os.Getenv("PBWRAP_TEST_INPUT")}
	for _, step := range args {
		if strings.HasPrefix(step, "-") {
			c.logf("arg %s", step) // Added by pbwrap for an agent.
			continue
		}
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
			c.record(false)
		case "echo":
			c.record(true)
		case "stdin-tty":
			name, err := os.Readlink("/proc/self/fd/0")
			if err != nil || !term.IsTerminal(0) {
				name = "none"
			}
			c.logf("stdin-tty %s", name)
		case "pid":
			c.logf("pid %d %d", os.Getpid(), os.Getppid())
		case "env":
			c.logf("env %s=%s", arg, os.Getenv(arg))
		case "print":
			fmt.Printf("%s\r\n", arg)
		case "bp":
			if arg == "on" {
				fmt.Print("\x1b[?2004h")
			} else {
				fmt.Print("\x1b[?2004l")
			}
			c.logf("bp %s", arg)
		case "seq":
			fmt.Print(childSeqs[arg])
		case "out":
			n, _ := strconv.Atoi(arg)
			_, _ = os.Stdout.Write(pattern(n))
		case "ready":
			fmt.Print("READY\r\n")
			c.logf("ready")
		case "until-input":
			n, _ := strconv.Atoi(arg)
			c.untilInput(int64(n))
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
			n, _ := strconv.Atoi(arg)
			return n
		case "die":
			n, _ := strconv.Atoi(arg)
			signal.Reset(syscall.Signal(n))
			_ = syscall.Kill(os.Getpid(), syscall.Signal(n))
			time.Sleep(10 * time.Second)
			return 99
		default:
			c.logf("error unknown step %q", step)
			return 99
		}
	}
	return 0
}

// childSeqs are escape sequences the child can write by name.
var childSeqs = map[string]string{
	"altscreen-bp": "\x1b[?1049;2004h", // alternate screen and bracketed paste at once
	"bp-cursor":    "\x1b[?2004;25l",   // bracketed paste off, cursor hidden
}

type child struct {
	report, input string
	mu            sync.Mutex
}

func (c *child) logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.OpenFile(c.report, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, format+"\n", args...)
}

func (c *child) size() {
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil {
		c.logf("error size %v", err)
		return
	}
	c.logf("size %d %d", ws.Row, ws.Col)
}

func (c *child) watch() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGCONT)
	go func() { // Lives as long as the child.
		for sig := range sigs {
			s := sig.(syscall.Signal)
			c.logf("signal %s", unix.SignalName(s))
			switch s {
			case syscall.SIGWINCH:
				c.size()
			case syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT:
				// Signals that came together are delivered in number
				// order, not in the order sent: report them all before
				// dying of the first.
				c.drainSignals(sigs, 100*time.Millisecond)
				signal.Reset(s)
				_ = syscall.Kill(os.Getpid(), s)
			}
		}
	}()
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
	draw := func(n int) {
		ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
		if err != nil {
			ws = &unix.Winsize{}
		}
		fmt.Printf("REDRAW %d %dx%d\r\n", n, ws.Row, ws.Col)
	}
	draw(0)
	go func() { // Lives as long as the child.
		n := 0
		for range sigs {
			n++
			draw(n)
		}
	}()
}

func (c *child) record(echo bool) {
	f, err := os.OpenFile(c.input, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		c.logf("error record %v", err)
		return
	}
	go func() { // Lives as long as the child.
		buf := make([]byte, 64<<10)
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				_, _ = f.Write(buf[:n])
				if echo {
					shown := strings.NewReplacer("\x1b[200~", "<200~>", "\x1b[201~", "<201~>", "\r", "\r\n").Replace(string(buf[:n]))
					_, _ = os.Stdout.WriteString(shown)
				}
			}
			if err != nil {
				return
			}
		}
	}()
}

func (c *child) untilInput(n int64) {
	for {
		if fi, err := os.Stat(c.input); err == nil && fi.Size() >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *child) grandchild(how string) {
	steps := []string{"watch", "ready", "sleep:60s"}
	if how == "nohup" {
		steps = []string{"nohup", "ready", "sleep:60s"}
	}
	cmd := exec.Command(os.Args[0], steps...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "PBWRAP_TEST_REPORT="+c.report+".grandchild")
	if err := cmd.Start(); err != nil {
		c.logf("error grandchild %v", err)
		return
	}
	c.logf("grandchild %d", cmd.Process.Pid)
}

// pattern returns n bytes of printable text that changes along its length,
// so that a lost, repeated or reordered block shows in a comparison.
func pattern(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%08d abcdefghijklmnopqrstuvwxyz\r\n", i)
	}
	return b.Bytes()[:n]
}

// leaderMain plays the interactive shell that runs pbwrap as a job: it
// leads the session of the test's terminal, starts pbwrap (its arguments)
// in a process group of its own in the foreground, and appends to the file
// named by PBWRAP_TEST_LEADER "pid N" at start, "stopped" when pbwrap stops,
// then "exit N" or "signal N" when it ends. SIGUSR1 makes it take the
// terminal back (as a shell does after Ctrl-Z or for bg); SIGUSR2 gives
// the terminal to pbwrap and continues it (fg).
func leaderMain(args []string) int {
	report := os.Getenv("PBWRAP_TEST_LEADER")
	logf := func(format string, a ...any) {
		f, err := os.OpenFile(report, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return
		}
		defer f.Close()
		fmt.Fprintf(f, format+"\n", a...)
	}
	// On a hangup of the terminal, a shell sends SIGHUP to its jobs; the
	// leader does the same and stays to report how pbwrap ended.
	jobs := make(chan os.Signal, 4)
	signal.Notify(jobs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP)

	env := os.Environ()
	for i, kv := range env {
		if strings.HasPrefix(kv, "PBWRAP_TEST_LEADER=") {
			env = append(env[:i:i], env[i+1:]...)
			break
		}
	}
	proc, err := os.StartProcess(args[0], args, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0},
	})
	if err != nil {
		logf("error start %v", err)
		return 1
	}
	pid := proc.Pid
	logf("pid %d", pid)
	go func() { // Lives as long as the leader.
		for sig := range jobs {
			if sig == syscall.SIGHUP {
				_ = unix.Kill(-pid, unix.SIGHUP)
				_ = unix.Kill(-pid, unix.SIGCONT)
				logf("did SIGHUP")
				continue
			}
			signal.Ignore(syscall.SIGTTOU)
			if sig == syscall.SIGUSR1 {
				_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, unix.Getpgrp())
			} else {
				_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pid)
				_ = unix.Kill(-pid, unix.SIGCONT)
			}
			signal.Reset(syscall.SIGTTOU)
			logf("did %s", unix.SignalName(sig.(syscall.Signal)))
		}
	}()
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, unix.WUNTRACED, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			logf("error wait %v", err)
			return 1
		case ws.Stopped():
			logf("stopped %s", unix.SignalName(ws.StopSignal()))
		case ws.Exited():
			logf("exit %d", ws.ExitStatus())
			return 0
		case ws.Signaled():
			logf("signal %d", int(ws.Signal()))
			return 0
		}
	}
}
