//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

// The descriptors on which the session process reads the command from
// pbwrap (see encodeCommand), and reports the command's pid to it.
const (
	shimCommandFd = 3
	shimReportFd  = 4
)

// RunShim is the session process. It leads the PTY's session, as a login
// shell does, reads the command from pbwrap (see Start), and starts it in
// a process group of its own, in the foreground of the PTY. Because its parent is in
// the same session, that group is not orphaned, so the kernel honours
// Ctrl-Z and other stop signals for it. When the command stops, the session
// process stops itself with SIGSTOP, which pbwrap sees; pbwrap continues
// the command and then the session process. It returns the command's exit
// status, 128+N when the command died of signal N.
func RunShim() int {
	report := os.NewFile(shimReportFd, "report")
	// pbwrap sends the signals it forwards to the command's process group
	// itself; the session process only has to outlive the command to
	// report its status. Catching the signals, rather than ignoring them,
	// leaves the command their default dispositions.
	strays := make(chan os.Signal, 1)
	signal.Notify(strays, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM)
	hangups := make(chan os.Signal, 1)
	signal.Notify(hangups, syscall.SIGHUP)

	path, argv, env, err := readCommand(os.NewFile(shimCommandFd, "command"))
	switch {
	case errors.Is(err, errNoCommand):
		return 0 // pbwrap did not run a command after all.
	case err != nil:
		fmt.Fprintf(os.Stderr, "pbwrap: session process: %v\r\n", err)
		return 2
	}
	pid, err := startForeground(path, argv, env)
	if err != nil {
		_ = report.Close() // Best effort: pbwrap reads no pid.
		return startFailed(argv[0], err)
	}
	fmt.Fprintf(report, "%d\n", pid)
	_ = report.Close()      // Best effort.
	go hangUp(hangups, pid) // Lives as long as the session process.
	return superviseShim(pid)
}

// readCommand reads the command that pbwrap sends on f, to its end.
func readCommand(f *os.File) (path string, argv, env []string, err error) {
	b, err := io.ReadAll(io.LimitReader(f, maxCommand+1))
	_ = f.Close() // Read to its end, or failed.
	switch {
	case err != nil:
		return "", nil, nil, fmt.Errorf("read the command: %w", err)
	case len(b) > maxCommand:
		return "", nil, nil, fmt.Errorf("read the command: more than %d bytes", maxCommand)
	}
	return decodeCommand(b)
}

// startForeground starts the command in a process group of its own, in
// the foreground of the terminal on standard input, and returns its pid.
func startForeground(path string, argv, env []string) (int, error) {
	return spawn(path, argv, env, []*os.File{os.Stdin, os.Stdout, os.Stderr},
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
