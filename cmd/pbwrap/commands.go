package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// A command is one of pbwrap's own verbs.
type command struct {
	name    string
	usage   string // the usage line, after "pbwrap "
	summary string // one line for pbwrap help
	help    string // what --help prints after the usage line
	run     func(c *command, cfg *config, args []string) error

	// globals are the settings (by flag) the command uses, which it
	// accepts after its name too; allGlobals accepts every one.
	globals    []string
	allGlobals bool
	// lenient commands run with a bad setting, which keeps its default:
	// doctor, to report it; hook and expand, which would block every edit
	// of the agent; and help, version, completion, reset-terminal and
	// setup, which need no setting they could get wrong. README.md's table
	// of commands says which are (TestReadmeCommandTable).
	lenient bool
	// words are the words the command takes as its arguments, for
	// completion; nil when they are none or not known in advance.
	words func() []string
}

// commands are pbwrap's own verbs, in the order help lists them.
var commands []*command

func init() {
	commands = []*command{
		listCommand, showCommand, statsCommand, cleanCommand, doctorCommand, resetTerminalCommand, expandCommand, hookCommand, setupCommand,
		versionCommand, completionCommand,
		{name: "help", usage: "help [COMMAND | TOPIC]", summary: "print help on pbwrap, one of its commands, or a topic", run: runHelp,
			globals: []string{"ref-format"}, lenient: true},
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

// flags returns the command's flag set, with the settings it uses
// (globals), quiet: parse errors are reported once, by exitCode.
func (c *command) flags(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("pbwrap "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.allGlobals {
		cfg.addFlags(fs, nil)
	} else if len(c.globals) > 0 {
		cfg.addFlags(fs, c.globals)
	}
	return fs
}

// parse parses the command's arguments, flags and words in any order (up
// to a --), allowing at most maxArgs words, which fs.Args then returns.
// It returns errHelpShown after printing the command's help for -h or
// --help. Then it loads the configuration: a bad setting is an error,
// except for a lenient command.
func (c *command) parse(cfg *config, fs *flag.FlagSet, args []string, maxArgs int) error {
	words, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printHelp(os.Stdout, cfg)
			return errHelpShown
		}
		return c.usagef("%v", err)
	}
	if len(words) > maxArgs {
		return c.usagef("unexpected argument %q", words[maxArgs])
	}
	if err := fs.Parse(append([]string{"--"}, words...)); err != nil { // Leaves words in fs.Args.
		return c.usagef("%v", err)
	}
	if err := cfg.load(); err != nil && !c.lenient {
		return err
	}
	return nil
}

// parseInterspersed parses args with fs, taking flags wherever they are
// until a --, and returns the other words in their order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return words, nil
		}
		if done := args[:len(args)-len(rest)]; len(done) > 0 && done[len(done)-1] == "--" {
			return append(words, rest...), nil
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
}

// boolFlag defines a switch of a command that takes what a setting's
// switch takes (1/0, true/false, yes/no, on/off).
func boolFlag(fs *flag.FlagSet, name string) *bool {
	p := new(bool)
	fs.Var(switchValue{p}, name, "")
	return p
}

// switchValue is a command's switch as the flag package sees it.
type switchValue struct{ p *bool }

func (v switchValue) String() string   { return "" }
func (v switchValue) IsBoolFlag() bool { return true }
func (v switchValue) Set(s string) error {
	b, ok := parseBool(s)
	if !ok {
		return fmt.Errorf("want %s", boolWords)
	}
	*v.p = b
	return nil
}

// errHelpShown ends a command successfully after its help was printed.
var errHelpShown = errors.New("help shown")

func (c *command) printHelp(w io.Writer, cfg *config) {
	fmt.Fprintf(w, "usage: pbwrap %s\n\n%s\n", c.usage, strings.TrimSpace(c.summary)+".")
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
	var b strings.Builder
	for _, s := range cfg.settings {
		if c.allGlobals || slices.Contains(c.globals, s.flag) {
			writeFlag(&b, s)
		}
	}
	if b.Len() > 0 {
		fmt.Fprintf(w, "\npbwrap's flags it uses, here or before %s (pbwrap --help says more):\n%s", c.name, b.String())
	}
}

// usagef is a mistake in how this command was called: the message points
// at the command's help.
func (c *command) usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: "pbwrap " + c.name + " --help"}
}
