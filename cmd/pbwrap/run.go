package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pbwrap/pbwrap/ptyproxy"
	"golang.org/x/term"
)

// version is pbwrap's version, set at release time with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const shortUsage = "usage: pbwrap [flags] [--] COMMAND [ARGS...]; pbwrap --help for more\n"

const helpText = `pbwrap runs an AI coding agent, or any command, inside a pseudo-terminal.
You cannot tell it is there: keystrokes, output, window size, Ctrl-C, Ctrl-Z
and the exit status pass through unchanged.

Usage:
  pbwrap [flags] [--] COMMAND [ARGS...]   run COMMAND wrapped
  pbwrap version                          print pbwrap's version
  pbwrap help                             print this help

Flags stop at the first word that is not a flag: in "pbwrap claude --resume"
the --resume is claude's. To wrap a program named like one of pbwrap's own
commands, put -- before it: pbwrap -- version.

Flags:
  --off          run COMMAND directly, wrapping nothing (as PBWRAP_OFF=1)
  -h, --help     print this help

Environment:
  PBWRAP_OFF=1     run commands directly, wrapping nothing
  PBWRAP_SESSION   set inside a wrapped command; a nested pbwrap runs its
                   command directly

pbwrap also runs the command directly, unwrapped, when standard input or
standard output is not a terminal.

Example, in ~/.bashrc or ~/.zshrc:
  alias claude='pbwrap claude'
`

// options are the global flags, merged with their environment forms.
type options struct {
	off bool
}

// run parses the command line and does what it asks. The error, if any,
// says how pbwrap should exit (see exitCode).
func run(args []string) error {
	var opts options
	fs := flag.NewFlagSet("pbwrap", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&opts.off, "off", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Print(helpText)
			return nil
		}
		return usagef("%v", err)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("missing COMMAND")
	}
	afterDashDash := len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"
	if !afterDashDash {
		switch rest[0] {
		case "help":
			fmt.Print(helpText)
			return nil
		case "version":
			fmt.Printf("pbwrap %s\n", version)
			return nil
		}
	}
	return wrap(opts, rest)
}

// wrap runs argv in a PTY, or directly when wrapping is off, nested, or
// has no terminal to work with.
func wrap(opts options, argv []string) error {
	off, err := envBool("PBWRAP_OFF")
	if err != nil {
		return usagef("%v", err)
	}
	path, err := ptyproxy.LookPath(argv[0])
	if err != nil {
		return err
	}
	if opts.off || off || os.Getenv("PBWRAP_SESSION") != "" ||
		!term.IsTerminal(0) || !term.IsTerminal(1) {
		return ptyproxy.Exec(path, argv, os.Environ())
	}
	status, err := ptyproxy.Run(ptyproxy.Config{
		Path: path,
		Args: argv,
		Env:  os.Environ(),
	})
	if err != nil {
		return err
	}
	return exitStatus(status)
}

// envBool reads a boolean environment variable: unset or empty is false.
func envBool(name string) (bool, error) {
	switch v := os.Getenv(name); strings.ToLower(v) {
	case "", "0", "false", "no", "off":
		return false, nil
	case "1", "true", "yes", "on":
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q: want 1 or 0", name, v)
	}
}
