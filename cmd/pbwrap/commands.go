package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"
)

// A command is one of pbwrap's own verbs.
type command struct {
	name    string
	usage   string // the usage line, after "pbwrap "
	summary string // one line for pbwrap help
	help    string // what --help prints after the usage line
	// helpFunc, when set, makes help when it is asked for: a text built
	// from the agent registry, which would otherwise be built at the start
	// of every pbwrap process, the session process included.
	helpFunc func() string
	run      func(c *command, std *streams, cfg *config, args []string) error

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
	// warns: the command says on standard error what of the configuration
	// was left out (config.warnings) before it runs: list, show, stats,
	// clean and setup, which a person runs. doctor reports it among its
	// checks; the others run quiet, as they run for an agent or a shell
	// (hook, expand, completion) or print what a script reads.
	warns bool

	// flagDecls are the command's own flags, which flags defines and
	// completion offers; its usage line shows them (TestUsageFlags).
	flagDecls []flagDecl
	// args returns the words the command takes after prev, the arguments
	// before the one being completed, for completion; nil (or a nil
	// func) when there are none to offer. files: it takes a file.
	args  func(cfg *config, prev []string) []string
	files bool
}

// streams are what a command reads and writes: pbwrap's standard input,
// output and error (osStreams), or a test's.
type streams struct {
	in       io.Reader
	out, err io.Writer
	// inTerminal reports whether in is a terminal, where a command may
	// ask the user.
	inTerminal func() bool
}

// osStreams are the process's standard streams.
func osStreams() *streams {
	return &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr,
		inTerminal: func() bool { return term.IsTerminal(int(os.Stdin.Fd())) }}
}

// A flagDecl is a flag of one of pbwrap's commands.
type flagDecl struct {
	name  string // "older-than"
	short string // a one-letter form of it, "" for none
	arg   string // the name of its value ("DURATION"), "" for a switch
}

// commands are pbwrap's own verbs, in the order help lists them.
var commands []*command

func init() {
	commands = []*command{
		listCommand, showCommand, statsCommand, cleanCommand, doctorCommand, resetTerminalCommand, expandCommand, hookCommand, setupCommand,
		versionCommand, completionCommand,
		{name: "help", usage: "help [COMMAND | TOPIC]", summary: "print help on pbwrap, one of its commands, or a topic", run: runHelp,
			globals: []string{"ref-format"}, lenient: true, args: helpArgs},
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

// flags returns the command's flag set: its own flags and the settings
// it uses (globals), quiet: parse errors are reported once, by exitCode.
// After parse, switchOn and valueOf read the command's own flags.
func (c *command) flags(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("pbwrap "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range c.flagDecls {
		var v flag.Value = switchValue{new(bool)}
		if f.arg != "" {
			v = new(stringValue)
		}
		fs.Var(v, f.name, "")
		if f.short != "" {
			fs.Var(v, f.short, "")
		}
	}
	if c.allGlobals {
		cfg.addFlags(fs, nil)
	} else if len(c.globals) > 0 {
		cfg.addFlags(fs, c.globals)
	}
	return fs
}

// switchOn reports whether the command's switch name was given.
func switchOn(fs *flag.FlagSet, name string) bool {
	return *fs.Lookup(name).Value.(switchValue).p
}

// valueOf is the value of the command's flag name, "" when not given.
func valueOf(fs *flag.FlagSet, name string) string {
	return string(*fs.Lookup(name).Value.(*stringValue))
}

// stringValue is a command's flag that takes a value.
type stringValue string

func (v *stringValue) String() string     { return string(*v) }
func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }

// parse parses the command's arguments, flags and words in any order (up
// to a --), allowing at most maxArgs words, which fs.Args then returns.
// It returns errHelpWanted for -h or --help, for run to print the
// command's help. Then it loads the configuration: a bad setting is an error,
// except for a lenient command.
func (c *command) parse(cfg *config, fs *flag.FlagSet, args []string, maxArgs int) error {
	words, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelpWanted
		}
		return c.usagef("%s", flagError(fs, args, err))
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
	if c.warns && cfg.stderr != nil {
		cfg.sayWarnings(cfg.stderr)
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

// switchValue is a command's switch as the flag package sees it: it takes
// what a setting's switch takes (1/0, true/false, yes/no, on/off).
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

// errHelpWanted: the command was asked for its help (-h, --help), which
// run prints instead of running it.
var errHelpWanted = errors.New("help wanted")

// helpText is what --help prints after the usage line.
func (c *command) helpText() string {
	if c.helpFunc != nil {
		return c.helpFunc()
	}
	return c.help
}

func (c *command) printHelp(w io.Writer, cfg *config) {
	var head strings.Builder
	writeText(&head, strings.TrimSpace(c.summary)+".")
	fmt.Fprintf(w, "usage: pbwrap %s\n\n%s", c.usage, head.String())
	if help := c.helpText(); help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(help))
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
