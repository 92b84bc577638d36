package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/capture"
)

// pbwrap --help and pbwrap help are made from the tables they describe:
// the commands (commands.go), the help topics below and the settings
// (config.go), so that a command, topic or flag cannot be left out.

// Help's layout: what is described starts in usageColumn, and no line is
// longer than helpWidth.
const (
	helpWidth   = 80
	usageColumn = 42
	flagColumn  = 25 // as the commands' own flags in their help (pbwrap clean --help)
)

const helpIntro = `pbwrap runs an AI coding agent, or any command, inside a pseudo-terminal and
keeps large pastes out of the agent's context: a paste of 8 KiB or 200 lines
or more is saved to a private file (0600) and the agent gets a one-line
reference instead, [paste saved: PATH], which it reads when it needs to.
Everything else passes through unchanged: keystrokes, small pastes, output,
window size, Ctrl-C, Ctrl-Z and the exit status.
`

const helpGrammar = `Flags stop at the first word that is not a flag: in "pbwrap claude --resume"
the --resume is claude's. To wrap a program named like one of pbwrap's own
commands, put -- before it: pbwrap -- version. pbwrap's own commands take the
flags they use after their name too: pbwrap list --root DIR.
`

const helpOutro = `The same text pasted again within a minute (--repeat-window) goes in as text:
paste twice to send a large paste inline on purpose. If saving fails (disk
full, unsafe root), the paste goes in as text, exactly as pasted, unless
--require-store refused to start.

The wrapped command gets PBWRAP_SESSION (the session id),
PBWRAP_SESSION_DIR (where its pastes are), PBWRAP_ROOT (the root, absolute)
and the variable of every other setting not at its default, so that pbwrap
list, show or stats run inside it see the same root and settings. pbwrap
runs the command directly, unwrapped, when PBWRAP_SESSION is already set
(pbwrap inside pbwrap) and when standard input or standard output is not a
terminal.

Example, in ~/.bashrc or ~/.zshrc:
  alias claude='pbwrap claude'
`

// helpText is what pbwrap --help and pbwrap help print.
func helpText() string {
	var b strings.Builder
	b.WriteString(helpIntro)
	b.WriteString("\nUsage:\n")
	writeUsages(&b)
	b.WriteString("\n" + helpGrammar)
	b.WriteString("\nFlags (each also set by its environment variable, or by a line VAR=VALUE in\n$XDG_CONFIG_HOME/pbwrap/config, by default ~/.config/pbwrap/config; a flag\nwins over the environment, which wins over the file):\n")
	writeFlags(&b)
	b.WriteString("\n" + helpOutro)
	return b.String()
}

// writeUsages writes a line for wrapping, one for each command and one for
// each help topic.
func writeUsages(b *strings.Builder) {
	writeItem(b, "pbwrap [flags] [--] COMMAND [ARGS...]", "run COMMAND wrapped", usageColumn)
	for _, c := range commands {
		writeItem(b, "pbwrap "+c.usage, c.summary, usageColumn)
	}
	for _, t := range helpTopics {
		writeItem(b, "pbwrap help "+t.name+t.args, t.summary, usageColumn)
	}
}

// writeFlags writes each setting: its flag and what it does, then its
// environment variable and default.
func writeFlags(b *strings.Builder) {
	for _, s := range newSettings() {
		writeFlag(b, s)
	}
	writeItem(b, "-h, --help", "print this help", flagColumn)
	writeItem(b, "-v, --version", "print pbwrap's version", flagColumn)
}

// writeFlag writes a setting's flag, what it does, its environment
// variable and its default.
func writeFlag(b *strings.Builder, s *setting) {
	name := "--" + s.flag
	if !s.isSwitch() {
		name += " " + s.arg
	}
	writeItem(b, name, s.help, flagColumn)
	writeItem(b, "", s.envHelp(), flagColumn)
}

// envHelp says how the environment sets s, and its default.
func (s *setting) envHelp() string {
	switch {
	case s.isSwitch():
		return s.env + "=1"
	case s.shown != "":
		return fmt.Sprintf("%s (default %s)", s.env, s.shown)
	case s.value == "":
		return s.env
	case strings.ContainsRune(s.value, ' '):
		return fmt.Sprintf("%s (default %q)", s.env, s.value)
	}
	return fmt.Sprintf("%s (default %s)", s.env, s.value)
}

// writeItem writes name, two spaces in, and text from column on, on
// name's line when it fits there and on lines of their own otherwise,
// wrapped at helpWidth.
func writeItem(b *strings.Builder, name, text string, column int) {
	line := "  " + name
	if len(line) > column-2 {
		b.WriteString(line + "\n")
		line = ""
	}
	for _, l := range wrapText(text, helpWidth-column) {
		fmt.Fprintf(b, "%-*s%s\n", column, line, l)
		line = ""
	}
}

// writeText writes text as a paragraph wrapped at helpWidth.
func writeText(b *strings.Builder, text string) {
	for _, l := range wrapText(text, helpWidth-2) {
		b.WriteString(l + "\n")
	}
}

// writeBullet writes text as an item of a list, "- " and then its lines
// wrapped at helpWidth, indented under the first.
func writeBullet(b *strings.Builder, text string) {
	prefix := "- "
	for _, l := range wrapText(text, helpWidth-4) {
		b.WriteString(prefix + l + "\n")
		prefix = "  "
	}
}

// andList joins items as a sentence lists them: "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// wrapText breaks text into lines of at most width bytes, at spaces; a
// word longer than width gets a line of its own.
func wrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func runHelp(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 2); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprint(std.out, helpText())
		return nil
	}
	name := fs.Arg(0)
	if name == "agents" && fs.NArg() == 2 {
		return printAgentHelp(c, std, cfg, fs.Arg(1))
	}
	if fs.NArg() > 1 {
		return c.usagef("unexpected argument %q", fs.Arg(1))
	}
	for _, t := range helpTopics {
		if t.name == name {
			fmt.Fprint(std.out, withRefFormat(t.text, cfg.refFormat))
			if t.note != "" {
				fmt.Fprint(std.err, t.note)
			}
			return nil
		}
	}
	topic := findCommand(name)
	if topic == nil {
		return usagef("no command or topic %q%s", name, helpChoices(name))
	}
	topic.printHelp(std.out, cfg)
	return nil
}

// helpArgs completes pbwrap help's arguments: a topic or a command, and
// what a topic takes after it.
func helpArgs(_ *config, prev []string) []string {
	switch {
	case len(prev) == 0:
		var words []string
		for _, t := range helpTopics {
			words = append(words, t.name)
		}
		for _, c := range commands {
			words = append(words, c.name)
		}
		return words
	case len(prev) == 1:
		for _, t := range helpTopics {
			if t.name == prev[0] && t.words != nil {
				return t.words()
			}
		}
	}
	return nil
}

// helpChoices says, for a name pbwrap help does not know, what it knows:
// the one name meant, when name is a likely typo for it, and the topics
// and commands.
func helpChoices(name string) string {
	var topics, cmds []string
	for _, t := range helpTopics {
		topics = append(topics, t.name)
	}
	for _, c := range commands {
		cmds = append(cmds, c.name)
	}
	hint := ""
	if m := closest(name, append(slices.Clone(topics), cmds...)); m != "" {
		hint = " (did you mean pbwrap help " + m + "?)"
	}
	return fmt.Sprintf("%s: the topics are %s; the commands %s", hint, strings.Join(topics, ", "), strings.Join(cmds, ", "))
}

// A helpTopic is a text pbwrap help prints that is not a command's help.
type helpTopic struct {
	name, args, summary, text string
	// note is for the user, not the text's reader: it goes to standard
	// error, so that "pbwrap help agents >> AGENTS.md" writes the text
	// alone.
	note string
	// words are what may follow the topic's name (completion).
	words func() []string
}

// helpTopics are the topics of pbwrap help, in the order help lists them.
var helpTopics = []helpTopic{
	{
		name: "agents", args: " [AGENT]",
		summary: "print instructions for an agent's AGENTS.md or CLAUDE.md, for AGENT or for any",
		text:    agent.Instructions(nil),
		note: "pbwrap help agents: for an agent pbwrap has a hook for (" + agent.Names(agent.Hooked(), "") + "),\n" +
			"pbwrap help agents AGENT adds {{file:...}} references, which need the hook pbwrap setup AGENT installs\n",
		words: agentHelpWords,
	},
	{name: "config", summary: "print what the config file may hold, and what pbwrap does with a line it cannot use", text: configHelp},
}

// agentHelpWords are what pbwrap help agents takes: the agents, and the
// extensions pbwrap writes for agents that load their hook from one.
func agentHelpWords() []string {
	var words []string
	for _, a := range agent.All() {
		words = append(words, a.Name)
	}
	for _, a := range agent.Hooked() {
		if a.Hook.Extension != nil {
			words = append(words, a.Name+"-extension")
		}
	}
	return words
}

// printAgentHelp prints the instructions for one agent, and on standard
// error what the user has to do for them to hold. "AGENT-extension"
// prints pbwrap's extension for an agent that loads its hook from one.
func printAgentHelp(c *command, std *streams, cfg *config, name string) error {
	if base, ok := strings.CutSuffix(name, "-extension"); ok {
		if a := agent.Find(base); a != nil && a.Hook != nil && a.Hook.Extension != nil {
			fmt.Fprint(std.out, a.Hook.Extension.Text)
			return nil
		}
	}
	a := agent.Find(name)
	if a == nil {
		var ext []string
		for _, a := range agent.Hooked() {
			if a.Hook.Extension != nil {
				ext = append(ext, a.Name+"-extension")
			}
		}
		return usagef("no agent %q (pbwrap knows %s; %s print pbwrap's extensions)", name, agent.Names(agent.All(), ""), strings.Join(ext, " and "))
	}
	fmt.Fprint(std.out, withRefFormat(agent.Instructions(a), cfg.refFormat))
	if a.Hook == nil {
		fmt.Fprintf(std.err, "pbwrap help agents %s: pbwrap has no hook for %s, so these instructions\nleave out {{file:...}} references\n", a.Name, a.Name)
		return nil
	}
	fmt.Fprintf(std.err, "pbwrap help agents %s: the {{file:...}} references need pbwrap's hook:\n"+
		"pbwrap setup %s installs it, after it shows the change and asks (pbwrap setup --print %s\nshows it without installing it)\n", a.Name, a.Name, a.Name)
	return nil
}

// withRefFormat is text, written for the default reference, with the
// reference as f makes it: [paste saved: PATH] becomes what the agent will
// see, its other placeholders in capitals ({bytes} as BYTES).
func withRefFormat(text string, f capture.RefFormat) string {
	ref := f.String()
	if ref == capture.DefaultRefFormat {
		return text
	}
	ref = strings.NewReplacer("{path}", "PATH", "{bytes}", "BYTES", "{lines}", "LINES", "{sha256}", "SHA256", "{n}", "N").Replace(ref)
	return strings.ReplaceAll(text, "[paste saved: PATH]", ref)
}
