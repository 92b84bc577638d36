// Command pbwrap runs an AI coding agent (or any command) inside a
// pseudo-terminal and keeps large pastes out of the agent's context.
//
// Usage:
//
//	pbwrap [flags] [--] COMMAND [ARGS...]
//	pbwrap help | version
//
// Run pbwrap --help for the flags and environment variables.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pbwrap/pbwrap/ptyproxy"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == ptyproxy.ShimArg {
		os.Exit(ptyproxy.RunShim(os.Args[2:]))
	}
	os.Exit(exitCode(run(os.Args[1:]), os.Stderr))
}

// exitStatus is an error that carries the wrapped command's exit status,
// which pbwrap passes on without a word.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a mistake on the command line: it is reported with the
// usage line (pbwrap's, or the command's) and exit status 2.
type usageError struct{ msg, usage string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCode maps run's result to the process's exit status, the one place
// that decides it, writing the error, if any, as one line to stderr.
func exitCode(err error, stderr io.Writer) int {
	var (
		status  exitStatus
		usage   *usageError
		execErr *ptyproxy.ExecError
	)
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &usage):
		line := usage.usage
		if line == "" {
			line = shortUsage
		}
		fmt.Fprintf(stderr, "pbwrap: %s\n%s", usage.msg, line)
		return 2
	case errors.As(err, &execErr):
		fmt.Fprintf(stderr, "pbwrap: %v\n", execErr)
		return execErr.Code
	default:
		fmt.Fprintf(stderr, "pbwrap: %v\n", err)
		return 1
	}
}
