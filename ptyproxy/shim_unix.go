//go:build unix

package ptyproxy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// ShimArg, as the first argument, makes pbwrap act as the session process
// of a wrapped run instead of parsing its command line: main must hand the
// remaining arguments to RunShim before anything else.
const ShimArg = "__pbwrap-session"

// shimReportFd is the descriptor on which the session process reports the
// command's pid to pbwrap.
const shimReportFd = 3

// RunShim is the session process. It leads the PTY's session, as a login
// shell does, and starts the command (args: path, then argv) in a process
// group of its own, in the foreground of the PTY. Because its parent is in
// the same session, that group is not orphaned, so the kernel honours
// Ctrl-Z and other stop signals for it. When the command stops, the session
// process stops itself with SIGSTOP, which pbwrap sees; pbwrap continues
// the command and then the session process. It returns the command's exit
// status, 128+N when the command died of signal N.
func RunShim(args []string) int {
	report := os.NewFile(shimReportFd, "report")
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "pbwrap: session process: missing command")
		return 2
	}
	// pbwrap sends the signals it forwards to the command's process group
	// itself; the session process only has to outlive the command to
	// report its status. Catching the signals, rather than ignoring them,
	// leaves the command their default dispositions.
	strays := make(chan os.Signal, 1)
	signal.Notify(strays, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM)
	hangups := make(chan os.Signal, 1)
	signal.Notify(hangups, syscall.SIGHUP)

	proc, err := os.StartProcess(args[0], args[1:], &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0},
	})
	if err != nil {
		_ = report.Close() // Best effort: pbwrap reads no pid.
		fmt.Fprintf(os.Stderr, "pbwrap: %s: %v\r\n", args[1], unwrapPath(err))
		if errors.Is(err, fs.ErrNotExist) {
			return 127
		}
		return 126
	}
	fmt.Fprintf(report, "%d\n", proc.Pid)
	_ = report.Close()           // Best effort.
	go hangUp(hangups, proc.Pid) // Lives as long as the session process.
	return superviseShim(proc.Pid)
}

// hangUp passes a hangup on to the command's process group, as a shell
// does for its jobs. The kernel signals only the session leader when the
// PTY's master side closes (pbwrap killed or crashed); without this the
// command would never learn that nobody is listening.
func hangUp(hangups <-chan os.Signal, pid int) {
	for range hangups {
		_ = unix.Kill(-pid, unix.SIGHUP)  // Best effort.
		_ = unix.Kill(-pid, unix.SIGCONT) // A stopped job must wake to die.
	}
}

func superviseShim(pid int) int {
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, unix.WUNTRACED, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "pbwrap: wait: %v\r\n", err)
			return 1
		case ws.Stopped():
			// pbwrap sees this stop, and continues the command itself
			// before it continues this process (see continueChild).
			raiseStopSignal()
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
