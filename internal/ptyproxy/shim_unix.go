//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/pbwrap/pbwrap/internal/ptyio"
	"golang.org/x/sys/unix"
)

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

	pid, err := startForeground(args[0], args[1:])
	if err != nil {
		_ = report.Close() // Best effort: pbwrap reads no pid.
		return startFailed(args[1], err)
	}
	fmt.Fprintf(report, "%d\n", pid)
	_ = report.Close()      // Best effort.
	go hangUp(hangups, pid) // Lives as long as the session process.
	return superviseShim(pid)
}

// startForeground starts the command in a process group of its own, in
// the foreground of the terminal on standard input, and returns its pid.
func startForeground(path string, argv []string) (int, error) {
	return spawn(path, argv, nil, []*os.File{os.Stdin, os.Stdout, os.Stderr},
		&syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0})
}

// startFailed says why the command could not start and returns the status
// a shell gives for it: 127 when it does not exist, 126 otherwise.
func startFailed(name string, err error) int {
	fmt.Fprintf(os.Stderr, "pbwrap: %s: %v\r\n", name, unwrapPath(err))
	if errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
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

// superviseShim waits for the command to end and returns its status. Each
// time the command stops, the session process stops too, which pbwrap
// sees; pbwrap continues the command itself before it continues this
// process (see continueChild).
func superviseShim(pid int) int {
	st, err := ptyio.WaitExit(pid, func(int) { raiseStopSignal() })
	if err != nil {
		fmt.Fprintf(os.Stderr, "pbwrap: wait: %v\r\n", err)
		return 1
	}
	return st.ExitCode()
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
