package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

var completionCommand = &command{
	name:    "completion",
	usage:   "completion bash|zsh|fish",
	summary: "print a completion script for a shell",
	help: `The script completes pbwrap's commands, their flags and pbwrap's own flags
(--burst's values too), each command's arguments (the agents of hook and
setup, last and the sessions for show, the topics of help), and, after the
name of the command pbwrap wraps, hands over to that command's own
completion: pbwrap claude --re<TAB> completes as claude --re<TAB> would.
It asks the pbwrap on the line for everything it offers, as you type, so it
stays right after an upgrade: pbwrap completion tables SHELL prints pbwrap's
commands and flags for the script, and pbwrap completion words WORD... the
words that may come after WORD..., the command line after pbwrap, one a line
(a command's arguments, a flag's values). To load it:

  bash, in ~/.bashrc:       source <(pbwrap completion bash)
  zsh, in ~/.zshrc (after compinit):
                            source <(pbwrap completion zsh)
  fish:                     pbwrap completion fish > ~/.config/fish/completions/pbwrap.fish

For bash the hand-over works best with the bash-completion package loaded.`,
	run:     runCompletion,
	lenient: true,
	args: func(_ *config, prev []string) []string {
		if len(prev) > 0 {
			return nil
		}
		return []string{"bash", "zsh", "fish"}
	},
}

func runCompletion(c *command, std *streams, cfg *config, args []string) error {
	if len(args) > 1 && args[0] == "tables" {
		// What the scripts load at each completion: never an error.
		if tables, ok := completionTables(args[1]); ok {
			_, _ = io.WriteString(std.out, tables)
		}
		return nil
	}
	if len(args) > 0 && args[0] == "words" {
		// What the scripts ask as the user types: never an error, which
		// the shell would show in the middle of the line.
		for _, w := range completeWords(args[1:]) {
			fmt.Fprintln(std.out, w)
		}
		return nil
	}
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return c.usagef("missing SHELL")
	}
	script, ok := completionScript(fs.Arg(0))
	if !ok {
		return c.usagef("no completion for %q (bash, zsh or fish)", fs.Arg(0))
	}
	_, err := io.WriteString(std.out, script)
	return err
}

// completionScript returns the completion script for shell: fixed text,
// which loads pbwrap's commands and flags from the pbwrap it completes at
// each completion (completionTables), as it asks that pbwrap for the
// words that come next (completeWords), so that everything it offers
// comes from one binary at one time.
func completionScript(shell string) (string, bool) {
	switch shell {
	case "bash":
		return bashHead + bashBody, true
	case "zsh":
		return zshHead + zshBody, true
	case "fish":
		return fishHead + fishBody, true
	}
	return "", false
}

// completionTables returns what shell's completion script loads from
// pbwrap completion tables SHELL: pbwrap's commands and flags, from
// pbwrap's tables of commands and settings, as shell code.
func completionTables(shell string) (string, bool) {
	spec := newCompletionSpec()
	switch shell {
	case "bash":
		return spec.bash(), true
	case "zsh":
		return spec.zsh(), true
	case "fish":
		return spec.fish(), true
	}
	return "", false
}

// completeWords returns the words that may follow words, the command line
// after "pbwrap" up to the word being completed: the values of a flag
// that takes one of a few, and the arguments of pbwrap's own commands
// (command.args), read with pbwrap's settings as the line gives them. It
// offers nothing for the command pbwrap wraps, whose own completion the
// scripts hand over to.
func completeWords(words []string) []string {
	cfg := newConfig()
	fs := flag.NewFlagSet("pbwrap", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.addFlags(fs, nil)
	if values, ok := flagValues(cfg, nil, words); ok {
		return values
	}
	if fs.Parse(words) != nil || fs.NArg() == 0 {
		return nil
	}
	rest := fs.Args()
	if len(rest) < len(words) && words[len(words)-len(rest)-1] == "--" {
		return nil // A program, not one of pbwrap's commands.
	}
	c := findCommand(rest[0])
	if c == nil || c.args == nil && c.flagDecls == nil {
		return nil
	}
	cfs := c.flags(cfg)
	if values, ok := flagValues(cfg, c, rest[1:]); ok {
		return values
	}
	prev, err := parseInterspersed(cfs, rest[1:])
	if err != nil || c.args == nil {
		return nil
	}
	_ = cfg.load() // A bad setting keeps its default: offer what it gives.
	return c.args(cfg, prev)
}

// flagValues returns the values of the flag that words end with, when it
// takes one of a few (--burst): one of pbwrap's settings the command c
// takes (all of them for c nil, before a command).
func flagValues(cfg *config, c *command, words []string) ([]string, bool) {
	if len(words) == 0 {
		return nil, false
	}
	last := words[len(words)-1]
	for _, s := range cfg.settings {
		takes := c == nil || c.allGlobals || slices.Contains(c.globals, s.flag)
		if takes && s.values != nil && (last == "--"+s.flag || last == "-"+s.flag) {
			return s.values, true
		}
	}
	return nil, false
}

// completionSpec is what the completion scripts know of pbwrap, read from
// its tables: the settings give the global flags, each command its own
// flags (flagDecls) and the settings it takes after its name.
type completionSpec struct {
	flags    []complFlag
	commands []complCommand
}

// A complFlag is a flag; arg names its value ("DIR"), "" for a switch;
// values are all the values it takes, nil for any.
type complFlag struct {
	name, arg, help string
	values          []string
}

// A complCommand is one of pbwrap's commands: its flags, whether it takes
// a file, and whether it has arguments to ask pbwrap for.
type complCommand struct {
	name, summary string
	flags         []complFlag
	files, args   bool
}

var helpFlag = complFlag{name: "--help", help: "print help"}

func newCompletionSpec() completionSpec {
	var spec completionSpec
	for _, s := range newSettings() {
		spec.flags = append(spec.flags, complFlag{name: "--" + s.flag, arg: s.arg, help: s.help, values: s.values})
	}
	spec.flags = append(spec.flags, complFlag{name: "--version", help: "print pbwrap's version"}, helpFlag)
	for _, c := range commands {
		spec.commands = append(spec.commands, commandCompletion(c))
	}
	return spec
}

// commandCompletion is what completion offers for a command: its own
// flags, pbwrap's flags that it takes after its name too, and --help.
func commandCompletion(c *command) complCommand {
	cc := complCommand{name: c.name, summary: c.summary, files: c.files, args: c.args != nil}
	for _, f := range c.flagDecls {
		cc.flags = append(cc.flags, complFlag{name: "--" + f.name, arg: f.arg})
	}
	for _, s := range newSettings() {
		if c.allGlobals || slices.Contains(c.globals, s.flag) {
			cc.flags = append(cc.flags, complFlag{name: "--" + s.flag, arg: s.arg, help: s.help, values: s.values})
		}
	}
	cc.flags = append(cc.flags, helpFlag)
	return cc
}

// valueFlags are the global flags that take a value.
func (spec completionSpec) valueFlags() []string {
	var names []string
	for _, f := range spec.flags {
		if f.arg != "" {
			names = append(names, f.name)
		}
	}
	return names
}

func flagNames(flags []complFlag) []string {
	var names []string
	for _, f := range flags {
		names = append(names, f.name)
	}
	return names
}

func (spec completionSpec) commandNames() []string {
	var names []string
	for _, c := range spec.commands {
		names = append(names, c.name)
	}
	return names
}

// filesOf and dirsOf are the global flags whose value is a file, or a
// directory.
func (spec completionSpec) flagsWithArg(args ...string) []string {
	var names []string
	for _, f := range spec.flags {
		for _, a := range args {
			if f.arg == a {
				names = append(names, f.name)
			}
		}
	}
	return names
}

// singleQuote quotes s for sh, bash, zsh and fish alike: in single quotes,
// with a single quote written as '\” (fish reads \' inside single quotes,
// so fish gets fishQuote instead).
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote quotes s for fish: in single quotes, backslashes and single
// quotes escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func quoteAll(words []string, quote func(string) string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}

// caseArms writes a shell case arm per command, with the body body
// returns for it (bash and zsh share the syntax).
func (spec completionSpec) caseArms(b *strings.Builder, body func(c complCommand) string) {
	for _, c := range spec.commands {
		if s := body(c); s != "" {
			fmt.Fprintf(b, "\t%s) %s ;;\n", singleQuote(c.name), s)
		}
	}
}

func (spec completionSpec) bash() string {
	var b strings.Builder
	fmt.Fprintf(&b, "_pbwrap_flags=(%s)\n", quoteAll(flagNames(spec.flags), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_value_flags=(%s)\n", quoteAll(spec.valueFlags(), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_file_flags=(%s)\n", quoteAll(spec.flagsWithArg("FILE"), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_dir_flags=(%s)\n", quoteAll(spec.flagsWithArg("DIR"), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_commands=(%s)\n\n", quoteAll(spec.commandNames(), singleQuote))
	b.WriteString("# _pbwrap_flag_values FLAG: the values of pbwrap's FLAG, when it takes one of a few.\n_pbwrap_flag_values() {\n\tcase $1 in\n")
	for _, f := range spec.flags {
		if f.values != nil {
			fmt.Fprintf(&b, "\t%s) _pbwrap_words=(%s) ;;\n", singleQuote(f.name), quoteAll(f.values, singleQuote))
		}
	}
	b.WriteString("\t*) _pbwrap_words=() ;;\n\tesac\n}\n\n# _pbwrap_command_flags CMD: the flags of pbwrap CMD.\n_pbwrap_command_flags() {\n\tcase $1 in\n")
	spec.caseArms(&b, func(c complCommand) string {
		return "_pbwrap_words=(" + quoteAll(flagNames(c.flags), singleQuote) + ")"
	})
	b.WriteString("\t*) _pbwrap_words=() ;;\n\tesac\n}\n\n# _pbwrap_command_files CMD: whether pbwrap CMD takes a file.\n_pbwrap_command_files() {\n\tcase $1 in\n")
	spec.caseArms(&b, func(c complCommand) string {
		if c.files {
			return "return 0"
		}
		return ""
	})
	b.WriteString("\tesac\n\treturn 1\n}\n")
	return b.String()
}

func (spec completionSpec) zsh() string {
	var b strings.Builder
	var flags, cmds []string
	for _, f := range spec.flags {
		flags = append(flags, zshDescribe(f.name, f.help))
	}
	for _, c := range spec.commands {
		cmds = append(cmds, zshDescribe(c.name, c.summary))
	}
	fmt.Fprintf(&b, "_pbwrap_flags=(%s)\n", quoteAll(flags, singleQuote))
	fmt.Fprintf(&b, "_pbwrap_value_flags=(%s)\n", quoteAll(spec.valueFlags(), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_file_flags=(%s)\n", quoteAll(spec.flagsWithArg("FILE"), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_dir_flags=(%s)\n", quoteAll(spec.flagsWithArg("DIR"), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_commands=(%s)\n\n", quoteAll(cmds, singleQuote))
	b.WriteString("# _pbwrap_flag_values FLAG: complete the values of pbwrap's FLAG, when it takes one of a few.\n_pbwrap_flag_values() {\n\tlocal -a values\n\tcase $1 in\n")
	for _, f := range spec.flags {
		if f.values != nil {
			fmt.Fprintf(&b, "\t%s) values=(%s) ;;\n", singleQuote(f.name), quoteAll(f.values, singleQuote))
		}
	}
	b.WriteString("\tesac\n\tcompadd -a values\n}\n\n")
	b.WriteString("# _pbwrap_command CMD: complete pbwrap CMD's flags, or ask pbwrap what comes next.\n_pbwrap_command() {\n\tlocal -a words_of\n\tif [[ $PREFIX == -* ]]; then\n\t\tcase $1 in\n")
	for _, c := range spec.commands {
		fmt.Fprintf(&b, "\t\t%s) words_of=(%s) ;;\n", singleQuote(c.name), quoteAll(flagNames(c.flags), singleQuote))
	}
	b.WriteString("\t\tesac\n\t\tcompadd -a words_of\n\t\treturn\n\tfi\n")
	b.WriteString("\twords_of=(${(f)\"$($words[1] completion words ${(@)words[2,CURRENT-1]} 2>/dev/null)\"})\n\tcompadd -a words_of\n\tcase $1 in\n")
	for _, c := range spec.commands {
		if c.files {
			fmt.Fprintf(&b, "\t%s) _files ;;\n", singleQuote(c.name))
		}
	}
	b.WriteString("\tesac\n}\n")
	return b.String()
}

// zshDescribe is an entry for _describe: the name, its colons escaped,
// and the description's first line.
func zshDescribe(name, help string) string {
	return strings.ReplaceAll(name, ":", `\:`) + ":" + firstClause(help)
}

// firstClause shortens a help text to fit a completion menu: up to its
// first parenthesis or colon.
func firstClause(help string) string {
	if i := strings.IndexAny(help, "(:"); i > 0 {
		help = help[:i]
	}
	return strings.TrimSpace(help)
}

func (spec completionSpec) fish() string {
	var b strings.Builder
	var flags, cmds []string
	for _, f := range spec.flags {
		flags = append(flags, f.name+"\t"+firstClause(f.help))
	}
	for _, c := range spec.commands {
		cmds = append(cmds, c.name+"\t"+firstClause(c.summary))
	}
	fmt.Fprintf(&b, "set -g __pbwrap_flags %s\n", quoteAll(flags, fishQuote))
	fmt.Fprintf(&b, "set -g __pbwrap_value_flags %s\n", quoteAll(spec.valueFlags(), fishQuote))
	fmt.Fprintf(&b, "set -g __pbwrap_file_flags %s\n", quoteAll(spec.flagsWithArg("FILE"), fishQuote))
	fmt.Fprintf(&b, "set -g __pbwrap_dir_flags %s\n", quoteAll(spec.flagsWithArg("DIR"), fishQuote))
	fmt.Fprintf(&b, "set -g __pbwrap_command_names %s\n", quoteAll(spec.commandNames(), fishQuote))
	fmt.Fprintf(&b, "set -g __pbwrap_commands %s\n\n", quoteAll(cmds, fishQuote))
	b.WriteString("# __pbwrap_flag_values FLAG: the values of pbwrap's FLAG, when it takes one of a few.\nfunction __pbwrap_flag_values\n\tswitch $argv[1]\n")
	for _, f := range spec.flags {
		if f.values != nil {
			fmt.Fprintf(&b, "\tcase %s\n\t\tprintf '%%s\\n' %s\n", fishQuote(f.name), quoteAll(f.values, fishQuote))
		}
	}
	b.WriteString("\tend\nend\n\n# __pbwrap_command CMD: pbwrap CMD's flags, or what pbwrap says comes next.\nfunction __pbwrap_command\n")
	b.WriteString("\tif string match -q -- '-*' (commandline -ct)\n\t\tswitch $argv[1]\n")
	for _, c := range spec.commands {
		fmt.Fprintf(&b, "\t\tcase %s\n\t\t\tprintf '%%s\\n' %s\n", fishQuote(c.name), quoteAll(flagNames(c.flags), fishQuote))
	}
	b.WriteString("\t\tend\n\t\treturn\n\tend\n\tset -l tokens (commandline -opc)\n\t$tokens[1] completion words $tokens[2..-1] 2>/dev/null\n\tswitch $argv[1]\n")
	for _, c := range spec.commands {
		if c.files {
			fmt.Fprintf(&b, "\tcase %s\n\t\t__fish_complete_path (commandline -ct)\n", fishQuote(c.name))
		}
	}
	b.WriteString("\tend\nend\n")
	return b.String()
}
