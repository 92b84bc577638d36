// Command pbwrap runs an AI coding agent (or any command) inside a
// pseudo-terminal and keeps large pastes out of the agent's context.
//
// Usage:
//
//	pbwrap [flags] [--] COMMAND [ARGS...]   run COMMAND wrapped
//	pbwrap list [--json]                    list the saved pastes
//	pbwrap show [last | SESSION[:N] | PATH] print a saved paste
//	pbwrap stats                            count what was kept out of context
//	pbwrap clean [--all] [--older-than D] [--dry-run]
//	                                        remove old saved pastes
//	pbwrap doctor [--paste]                 check the root, terminal and agents
//	pbwrap reset-terminal                   undo the modes a crashed program left on
//	pbwrap expand [--check] [FILE | -]      expand {{file:...}} references
//	pbwrap hook claude|codex|gemini|pi      an agent's hook for its edits
//	pbwrap version [--json]                 print pbwrap's version
//	pbwrap completion bash|zsh|fish         print a shell completion script
//	pbwrap help [COMMAND | agents [AGENT]]  print help
//
// Run pbwrap --help for the flags and environment variables.
//
// The code: main.go decides the exit status; run.go reads the command
// line; config.go holds the settings (flags and environment); help.go
// makes the help from the tables of commands and settings; commands.go
// is the command table, and each cmd_*.go one command; wrap.go runs a
// command wrapped, with agents.go for what known agents need.
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

// quietExit ends pbwrap with its exit status and no message: the wrapped
// command's status, passed on without a word, or the status a command of
// pbwrap's chose after it said what there was to say (doctor's problems, a
// refused expansion or hook call).
type quietExit int

func (e quietExit) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

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
		status  quietExit
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
