// Command pbwrap runs an AI coding agent (or any command) inside a
// pseudo-terminal and keeps large pastes out of the agent's context.
//
// Usage:
//
//	pbwrap [flags] [--] COMMAND [ARGS...]   run COMMAND wrapped
//	pbwrap list [--json]                    list the saved pastes
//	pbwrap show [last | SESSION[:N] | PATH] print a saved paste
//	pbwrap stats [--json] [--since DURATION | DATE]
//	                                        count what was kept out of context
//	pbwrap clean [--all [--yes]] [--older-than DURATION] [--dry-run]
//	                                        remove old saved pastes
//	pbwrap doctor [--paste] [--json]        check the root, terminal and agents
//	pbwrap reset-terminal                   undo the modes a crashed program left on
//	pbwrap expand [--check] [FILE | -]      expand {{file:...}} references
//	pbwrap hook AGENT                       an agent's hook for its edits
//	pbwrap setup [--yes | --print | --remove] [--force] AGENT
//	                                        install that hook in the agent's settings
//	pbwrap version [--json]                 print pbwrap's version
//	pbwrap completion bash|zsh|fish         print a shell completion script
//	pbwrap help [COMMAND | TOPIC]           print help
//	pbwrap help agents [AGENT]              print instructions for an agent
//	pbwrap help config                      print what the config file may hold
//
// AGENT, for hook and setup, is one of the agents pbwrap has a hook for:
// claude, codex, gemini, pi, qwen, crush, copilot, opencode, cline, kilo,
// auggie, droid or letta. pbwrap help agents takes those and the agents
// pbwrap knows without a hook: cn, cursor-agent, amp and goose.
//
// Run pbwrap --help for the flags and environment variables.
//
// The code is wiring: main.go decides the exit status; run.go reads the
// command line; config.go holds the settings (flags, environment and
// config file); commands.go is the command table, each command a value
// with its flags, its arguments and its run, which takes its streams, and
// each cmd_*.go one command; help.go and cmd_completion.go make the help
// and the completion scripts from those tables, and man_test.go the man
// page (doc/pbwrap.1); wrap.go runs a command wrapped. What pbwrap knows of each agent is in
// package agent, the paste check in internal/pastecheck, the store in
// store, the terminal in bracketed, capture and ptyproxy.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/ptyproxy"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == ptyproxy.ShimArg {
		os.Exit(ptyproxy.RunShim())
	}
	os.Exit(exitCode(run(osStreams(), os.Args[1:]), os.Stderr))
}

// quietExit ends pbwrap with its exit status and no message: the wrapped
// command's status, passed on without a word, or the status a command of
// pbwrap's chose after it said what there was to say (doctor's problems, a
// refused expansion or hook call).
type quietExit int

func (e quietExit) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a mistake on the command line or in a setting: it is
// reported in one line, with exit status 2. A mistake in how pbwrap or a
// command was called points at its help (hint).
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

// usagef is a bad value: the message says what is wanted.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// commandLinef is a mistake in pbwrap's own command line.
func commandLinef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: "pbwrap --help"}
}

// exitCode maps run's result to the process's exit status, the one place
// that decides it, writing the error, if any, as one line to stderr, with
// what does not print escaped (see printable.Inline).
func exitCode(err error, stderr io.Writer) int {
	var (
		status  quietExit
		usage   *usageError
		execErr *ptyproxy.ExecError
	)
	switch {
	case err == nil, errors.Is(err, errHelpWanted):
		return 0
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &usage):
		if usage.hint != "" {
			fmt.Fprintf(stderr, "pbwrap: %s; see %s\n", printable.Inline(usage.msg), usage.hint)
		} else {
			fmt.Fprintf(stderr, "pbwrap: %s\n", printable.Inline(usage.msg))
		}
		return 2
	case errors.As(err, &execErr):
		fmt.Fprintf(stderr, "pbwrap: %s\n", printable.Inline(execErr.Error()))
		return execErr.Code
	default:
		fmt.Fprintf(stderr, "pbwrap: %s\n", printable.Inline(err.Error()))
		return 1
	}
}
