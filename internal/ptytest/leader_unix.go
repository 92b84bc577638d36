//go:build darwin || freebsd || linux

package ptytest

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

// leaderMain plays the interactive shell that runs the wrapper as a job:
// it leads the session of the test's terminal, starts the wrapper (its
// arguments) in a process group of its own in the foreground, and appends
// to the file named by PBWRAP_TEST_LEADER "pid N" at start, "stopped SIG"
// each time the wrapper stops, then when it ends "maxrss N" (the ru_maxrss
// of the wrapper and the processes it waited for, in this system's unit)
// and "exit N" or "signal N".
// SIGUSR1 makes it take the terminal back (as a shell does after Ctrl-Z
// or for bg); SIGUSR2 gives the terminal to the wrapper and continues it
// (fg); SIGALRM continues it in the background (bg); SIGVTALRM gives it
// the terminal without a SIGCONT (bash's fg of a job that is running). With PBWRAP_TEST_SHELL=FILE, once the wrapper has ended it takes
// the terminal back and copies what it reads there to FILE, as a shell
// reading its next command would, until it is killed.
func leaderMain(args []string) int {
	report := &reportFile{name: os.Getenv(leaderEnv)}
	// On a hangup of the terminal, a shell sends SIGHUP to its jobs; the
	// leader does the same and stays to report how the wrapper ended.
	jobs := make(chan os.Signal, 4)
	signal.Notify(jobs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGHUP)
	proc, err := os.StartProcess(args[0], args, &os.ProcAttr{
		Env:   withoutEnv(os.Environ(), leaderEnv),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0},
	})
	if err != nil {
		report.logf("error start %v", err)
		return 1
	}
	report.logf("pid %d", proc.Pid)
	go jobControl(report, jobs, proc.Pid) // Lives as long as the leader.
	status := reportEnd(report, proc.Pid)
	if name := os.Getenv(shellEnv); name != "" {
		readAsShell(name)
	}
	return status
}

// readAsShell takes the terminal back, as a shell does when its job has
// ended, and appends what it reads from it to the file name, for good.
func readAsShell(name string) {
	signal.Ignore(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, unix.Getpgrp())
	signal.Reset(syscall.SIGTTOU)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := os.Stdin.Read(buf)
		_, _ = f.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// jobControl does what the test asks of the shell, by signal, for the job
// pid.
func jobControl(report *reportFile, jobs <-chan os.Signal, pid int) {
	for sig := range jobs {
		if sig == syscall.SIGHUP {
			_ = unix.Kill(-pid, unix.SIGHUP)
			_ = unix.Kill(-pid, unix.SIGCONT)
			report.logf("did SIGHUP")
			continue
		}
		signal.Ignore(syscall.SIGTTOU)
		switch sig {
		case syscall.SIGUSR1: // The shell takes the terminal back.
			_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, unix.Getpgrp())
		case syscall.SIGUSR2: // fg of a stopped job.
			_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pid)
			_ = unix.Kill(-pid, unix.SIGCONT)
		case syscall.SIGALRM: // bg: continued, in the background.
			_ = unix.Kill(-pid, unix.SIGCONT)
		case syscall.SIGVTALRM: // fg of a running job: bash sends no SIGCONT.
			_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pid)
		}
		signal.Reset(syscall.SIGTTOU)
		report.logf("did %s", unix.SignalName(sig.(syscall.Signal)))
	}
}

// reportEnd reports each stop of the job pid, then its peak memory and
// how it ended.
func reportEnd(report *reportFile, pid int) int {
	st, err := ptyio.WaitExit(pid, func(sig int) {
		report.logf("stopped %s", unix.SignalName(syscall.Signal(sig)))
	})
	if err != nil {
		report.logf("error wait %v", err)
		return 1
	}
	// The job is the leader's only child, and it waited for its own.
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_CHILDREN, &ru); err == nil {
		report.logf("maxrss %d", ru.Maxrss)
	}
	switch {
	case st.Kind == ptyio.Exited:
		report.logf("exit %d", st.N)
	default:
		report.logf("signal %d", st.N)
	}
	return 0
}
