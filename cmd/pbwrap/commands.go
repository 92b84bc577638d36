package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// A command is one of pbwrap's own verbs.
type command struct {
	name    string
	usage   string // the usage line, after "pbwrap "
	summary string // one line for pbwrap help
	help    string // what --help prints after the usage line
	run     func(c *command, cfg *config, args []string) error
}

// commands are pbwrap's own verbs, in the order help lists them.
var commands []*command

func init() {
	commands = []*command{
		listCommand, showCommand, statsCommand, cleanCommand, doctorCommand, resetTerminalCommand, expandCommand, hookCommand,
		versionCommand, completionCommand,
		{name: "help", usage: "help [COMMAND | TOPIC]", summary: "print help on pbwrap, one of its commands, or a topic", run: runHelp},
	}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// flags returns the command's flag set, quiet: parse errors are reported
// once, by exitCode.
func (c *command) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("pbwrap "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses the command's arguments, allowing at most maxArgs words
// after the flags. It returns errHelpShown after printing the command's
// help for -h or --help.
func (c *command) parse(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printHelp(os.Stdout)
			return errHelpShown
		}
		return c.usagef("%v", err)
	}
	if fs.NArg() > maxArgs {
		return c.usagef("unexpected argument %q", fs.Arg(maxArgs))
	}
	return nil
}

// errHelpShown ends a command successfully after its help was printed.
var errHelpShown = errors.New("help shown")

func (c *command) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: pbwrap %s\n\n%s\n", c.usage, strings.TrimSpace(c.summary)+".")
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
}

// usagef is a usage error of this command: it is shown with the
// command's own usage line.
func (c *command) usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), usage: "usage: pbwrap " + c.usage + "\n"}
}
