package main

import (
	"fmt"
	"os"
	"strings"
)

// pbwrap --help and pbwrap help are made from the tables they describe:
// the commands (commands.go), the help topics below and the settings
// (config.go), so that a command, topic or flag cannot be left out.

const shortUsage = "usage: pbwrap [flags] [--] COMMAND [ARGS...]; pbwrap --help for more\n"

// Help's layout: what is described starts in usageColumn, and no line is
// longer than helpWidth.
const (
	helpWidth   = 80
	usageColumn = 42
	flagColumn  = 22
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
commands, put -- before it: pbwrap -- version.
`

const helpOutro = `The same text pasted again within a minute goes in as text. If saving fails
(disk full, unsafe root), the paste goes in as text, exactly as pasted.

The wrapped command gets PBWRAP_SESSION (the session id) and
PBWRAP_SESSION_DIR (where its pastes are). pbwrap runs the command directly,
unwrapped, when PBWRAP_SESSION is already set (pbwrap inside pbwrap) and
when standard input or standard output is not a terminal.

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
	b.WriteString("\nFlags (each also set by its environment variable; a flag wins):\n")
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
		writeItem(b, "pbwrap help "+t.name, t.summary, usageColumn)
	}
}

// writeFlags writes each setting: its flag and what it does, then its
// environment variable and default.
func writeFlags(b *strings.Builder) {
	for _, s := range newSettings() {
		name := "--" + s.flag
		if !s.isSwitch() {
			name += " " + s.arg
		}
		writeItem(b, name, s.help, flagColumn)
		writeItem(b, "", s.envHelp(), flagColumn)
	}
	writeItem(b, "-h, --help", "print this help", flagColumn)
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

func runHelp(c *command, _ *config, args []string) error {
	fs := c.flags()
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Print(helpText())
		return nil
	}
	name := fs.Arg(0)
	for _, t := range helpTopics {
		if t.name == name {
			fmt.Print(t.text)
			return nil
		}
	}
	topic := findCommand(name)
	if topic == nil {
		return c.usagef("no command or topic %q", name)
	}
	topic.printHelp(os.Stdout)
	return nil
}

// A helpTopic is a text pbwrap help prints that is not a command's help.
type helpTopic struct {
	name, summary, text string
}

// helpTopics are the topics of pbwrap help, in the order help lists them.
var helpTopics = []helpTopic{
	{name: "agents", summary: "print instructions for an agent's AGENTS.md or CLAUDE.md", text: agentsText},
}

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
