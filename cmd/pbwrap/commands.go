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
		listCommand, showCommand, statsCommand, cleanCommand, doctorCommand, expandCommand, hookCommand,
		{name: "version", usage: "version", summary: "print pbwrap's version", run: runVersion},
		{name: "help", usage: "help [COMMAND]", summary: "print help on pbwrap or one of its commands", run: runHelp},
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

func runVersion(c *command, _ *config, args []string) error {
	if len(args) > 0 {
		return c.usagef("unexpected argument %q", args[0])
	}
	fmt.Printf("pbwrap %s\n", version)
	return nil
}

func runHelp(c *command, _ *config, args []string) error {
	switch {
	case len(args) == 0:
		fmt.Print(helpText)
		return nil
	case len(args) > 1:
		return c.usagef("unexpected argument %q", args[1])
	}
	if topic, ok := helpTopics[args[0]]; ok {
		fmt.Print(topic)
		return nil
	}
	topic := findCommand(args[0])
	if topic == nil {
		return c.usagef("no command or topic %q", args[0])
	}
	topic.printHelp(os.Stdout)
	return nil
}

// helpTopics are texts pbwrap help prints that are not commands.
var helpTopics = map[string]string{"agents": agentsText}

// agentsText teaches a model both conventions, for an agent's instructions
// file (AGENTS.md, CLAUDE.md); pbwrap help agents prints it.
const agentsText = `## Pasted files and file references (pbwrap)

The user runs you through pbwrap, which keeps large text out of this
conversation in both directions.

**[paste saved: PATH]** in a user message is something the user pasted: it
was saved to PATH instead of being typed in. Treat it as part of the message
and read the file with your file-reading tool, only as far as the task needs:
check its size first (for example wc -l PATH), read the lines that matter or
search it, and do not print it whole or ask the user to paste it again.

**{{file:/absolute/path:START:END}}** stands for lines START to END (1-based,
inclusive) of a file, exactly as they are, trailing newline included. When a
Write or Edit would repeat more than a few lines that already exist in a file
(moving or copying a block, or putting a pasted file into the repository:
{{file:PATH:1:N}} for a paste of N lines), write the reference instead of
retyping the lines. It is expanded before the edit is applied. If it is wrong
(a relative path, a missing file, a range outside the file) the edit is
refused with the reason and nothing is written: check the path and the line
numbers (wc -l) and try again. Write new text directly; references are for
text that already exists. To write the literal characters {{file: in a file,
put a backslash before them: \{{file:
`
