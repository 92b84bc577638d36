package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

var completionCommand = &command{
	name:    "completion",
	usage:   "completion bash|zsh|fish",
	summary: "print a completion script for a shell",
	help: `The script completes pbwrap's commands, their flags and pbwrap's own flags,
and, after the name of the command pbwrap wraps, hands over to that command's
own completion: pbwrap claude --re<TAB> completes as claude --re<TAB> would.
It is made from pbwrap's tables of commands and settings, so print it again
after an upgrade. To load it:

  bash, in ~/.bashrc:       source <(pbwrap completion bash)
  zsh, in ~/.zshrc (after compinit):
                            source <(pbwrap completion zsh)
  fish:                     pbwrap completion fish > ~/.config/fish/completions/pbwrap.fish

For bash the hand-over works best with the bash-completion package loaded.`,
	run:     runCompletion,
	lenient: true,
}

func runCompletion(c *command, cfg *config, args []string) error {
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
	_, err := os.Stdout.WriteString(script)
	return err
}

// completionScript returns the completion script for shell.
func completionScript(shell string) (string, bool) {
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

// completionSpec is what the completion scripts know of pbwrap, read from
// its tables: the settings give the global flags, each command's usage
// line its flags and the words it takes.
type completionSpec struct {
	flags    []complFlag
	commands []complCommand
}

// A complFlag is a flag; arg names its value ("DIR"), "" for a switch.
type complFlag struct{ name, arg, help string }

// A complCommand is one of pbwrap's commands: its flags, the words it
// takes (literal words in its usage line, or those a placeholder stands
// for) and whether it takes a file.
type complCommand struct {
	name, summary string
	flags         []complFlag
	words         []string
	files         bool
}

var helpFlag = complFlag{name: "--help", help: "print help"}

func newCompletionSpec() completionSpec {
	var spec completionSpec
	for _, s := range newSettings() {
		spec.flags = append(spec.flags, complFlag{name: "--" + s.flag, arg: s.arg, help: s.help})
	}
	spec.flags = append(spec.flags, complFlag{name: "--version", help: "print pbwrap's version"}, helpFlag)
	for _, c := range commands {
		spec.commands = append(spec.commands, usageCompletion(c))
	}
	return spec
}

// usageFlag is a flag in a usage line, with the name of its value when it
// takes one: "--older-than DURATION".
var usageFlag = regexp.MustCompile(`--[a-z0-9][a-z0-9-]*(?: [A-Z][A-Z0-9_]*)?`)

// usageCompletion reads what a command takes from its usage line, as
// pbwrap help shows it: "clean [--all] [--older-than DURATION]",
// "hook claude|codex|gemini|pi", "expand [--check] [FILE | -]".
func usageCompletion(c *command) complCommand {
	cc := complCommand{name: c.name, summary: c.summary}
	args := strings.TrimPrefix(c.usage, c.name)
	for _, f := range usageFlag.FindAllString(args, -1) {
		name, arg, _ := strings.Cut(f, " ")
		cc.flags = append(cc.flags, complFlag{name: name, arg: arg})
	}
	// pbwrap's own flags that the command takes after its name too.
	for _, s := range newSettings() {
		name := "--" + s.flag
		if (c.allGlobals || slices.Contains(c.globals, s.flag)) &&
			!slices.ContainsFunc(cc.flags, func(f complFlag) bool { return f.name == name }) {
			cc.flags = append(cc.flags, complFlag{name: name, arg: s.arg, help: s.help})
		}
	}
	cc.flags = append(cc.flags, helpFlag)
	args = usageFlag.ReplaceAllString(args, " ")
	for _, w := range strings.FieldsFunc(args, func(r rune) bool { return strings.ContainsRune(" []|", r) }) {
		switch {
		case w == "FILE" || w == "PATH" || w == "DIR":
			cc.files = true
		case w == "COMMAND":
			for _, other := range commands {
				cc.words = append(cc.words, other.name)
			}
		case w == "TOPIC":
			for _, t := range helpTopics {
				cc.words = append(cc.words, t.name)
			}
		case literalWord.MatchString(w):
			cc.words = append(cc.words, w)
		}
	}
	return cc
}

var literalWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

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
	b.WriteString(bashHead)
	fmt.Fprintf(&b, "_pbwrap_flags=(%s)\n", quoteAll(flagNames(spec.flags), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_value_flags=(%s)\n", quoteAll(spec.valueFlags(), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_file_flags=(%s)\n", quoteAll(spec.flagsWithArg("FILE"), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_dir_flags=(%s)\n", quoteAll(spec.flagsWithArg("DIR"), singleQuote))
	fmt.Fprintf(&b, "_pbwrap_commands=(%s)\n\n", quoteAll(spec.commandNames(), singleQuote))
	b.WriteString("# _pbwrap_command_words CMD: the flags and words of pbwrap CMD.\n_pbwrap_command_words() {\n\tcase $1 in\n")
	spec.caseArms(&b, func(c complCommand) string {
		return "_pbwrap_words=(" + quoteAll(append(flagNames(c.flags), c.words...), singleQuote) + ")"
	})
	b.WriteString("\t*) _pbwrap_words=() ;;\n\tesac\n}\n\n# _pbwrap_command_files CMD: whether pbwrap CMD takes a file.\n_pbwrap_command_files() {\n\tcase $1 in\n")
	spec.caseArms(&b, func(c complCommand) string {
		if c.files {
			return "return 0"
		}
		return ""
	})
	b.WriteString("\tesac\n\treturn 1\n}\n")
	b.WriteString(bashBody)
	return b.String()
}

func (spec completionSpec) zsh() string {
	var b strings.Builder
	b.WriteString(zshHead)
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
	b.WriteString("# _pbwrap_command CMD: complete pbwrap CMD's flags and words.\n_pbwrap_command() {\n\tlocal -a words_of\n\tcase $1 in\n")
	spec.caseArms(&b, func(c complCommand) string {
		s := "words_of=(" + quoteAll(append(flagNames(c.flags), c.words...), singleQuote) + ")"
		if c.files {
			s += "; _files"
		}
		return s
	})
	b.WriteString("\tesac\n\tcompadd -a words_of\n}\n")
	b.WriteString(zshBody)
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
	b.WriteString(fishHead)
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
	b.WriteString("# __pbwrap_command CMD: pbwrap CMD's flags and words.\nfunction __pbwrap_command\n\tswitch $argv[1]\n")
	for _, c := range spec.commands {
		fmt.Fprintf(&b, "\tcase %s\n\t\tprintf '%%s\\n' %s\n", fishQuote(c.name), quoteAll(append(flagNames(c.flags), c.words...), fishQuote))
		if c.files {
			b.WriteString("\t\t__fish_complete_path (commandline -ct)\n")
		}
	}
	b.WriteString("\tend\nend\n")
	b.WriteString(fishBody)
	return b.String()
}
