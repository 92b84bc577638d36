package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/pbwrap/pbwrap/capture"
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

func runHelp(c *command, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 2); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Print(helpText())
		return nil
	}
	name := fs.Arg(0)
	if name == "agents" && fs.NArg() == 2 {
		return printAgentHelp(c, cfg, fs.Arg(1))
	}
	if fs.NArg() > 1 {
		return c.usagef("unexpected argument %q", fs.Arg(1))
	}
	for _, t := range helpTopics {
		if t.name == name {
			fmt.Print(withRefFormat(t.text, cfg.refFormat))
			if t.note != "" {
				fmt.Fprint(os.Stderr, t.note)
			}
			return nil
		}
	}
	topic := findCommand(name)
	if topic == nil {
		return usagef("no command or topic %q", name)
	}
	topic.printHelp(os.Stdout, cfg)
	return nil
}

// A helpTopic is a text pbwrap help prints that is not a command's help.
type helpTopic struct {
	name, args, summary, text string
	// note is for the user, not the text's reader: it goes to standard
	// error, so that "pbwrap help agents >> AGENTS.md" writes the text
	// alone.
	note string
}

// helpTopics are the topics of pbwrap help, in the order help lists them.
var helpTopics = []helpTopic{
	{
		name: "agents", args: " [AGENT]",
		summary: "print instructions for an agent's AGENTS.md or CLAUDE.md, for AGENT or for any",
		text:    agentsText(nil),
		note: "pbwrap help agents: for an agent pbwrap has a hook for (claude, codex, gemini, pi),\n" +
			"pbwrap help agents AGENT adds {{file:...}} references, which need the hook pbwrap setup AGENT installs\n",
	},
}

// printAgentHelp prints the instructions for one agent, and on standard
// error what the user has to do for them to hold. "pi-extension" prints
// pbwrap's Pi extension.
func printAgentHelp(c *command, cfg *config, name string) error {
	if name == "pi-extension" {
		fmt.Print(piExtension)
		return nil
	}
	a := findAgent(name)
	if a == nil || a.name != name {
		return usagef("no agent %q (pbwrap knows %s; pi-extension prints pbwrap's Pi extension)", name, agentNames())
	}
	fmt.Print(withRefFormat(agentsText(a), cfg.refFormat))
	if a.hook == "" {
		fmt.Fprintf(os.Stderr, "pbwrap help agents %s: pbwrap has no hook for %s, so these instructions\nleave out {{file:...}} references\n", a.name, a.name)
		return nil
	}
	fmt.Fprintf(os.Stderr, "pbwrap help agents %s: the {{file:...}} references need pbwrap's hook:\n"+
		"pbwrap setup %s installs it, after it shows the change and asks (pbwrap setup --print %s\nshows it without installing it)\n", a.name, a.name, a.name)
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

// agentsText is what pbwrap help agents prints for an agent's
// instructions file (AGENTS.md, CLAUDE.md): how to read a paste, for every
// agent, and, for an agent that has a pbwrap hook (a.hook), how to write
// {{file:...}} references. For nil, the text for any agent. The README
// shows each of its parts (TestReadmeHasAgentsText).
func agentsText(a *agent) string {
	return strings.Join(agentsParts(a), "")
}

// agentsParts are the parts agentsText(a) is made of.
func agentsParts(a *agent) []string {
	if a == nil || a.hook == "" {
		return []string{agentsPasteHead, agentsPaste}
	}
	use := agentsRefUse
	if a.name == "codex" {
		use = agentsRefUseCodex
	}
	return []string{agentsBothHead, agentsPaste, agentsRefIntro, use, agentsRefRules}
}

// The parts of agentsText.
const (
	agentsPasteHead = `## Pasted files (pbwrap)

The user runs you through pbwrap, which keeps large pastes out of this
conversation.
`
	agentsBothHead = `## Pasted files and file references (pbwrap)

The user runs you through pbwrap, which keeps large text out of this
conversation in both directions.
`
	agentsPaste = `
**[paste saved: PATH]** in a user message is something the user pasted: it
was saved to PATH instead of being typed in. Treat it as part of the message
and read the file with your file-reading tool, only as far as the task needs:
check its size first (for example wc -l PATH), read the lines that matter or
search it, and do not print it whole or ask the user to paste it again.
`
	agentsRefIntro = `
**{{file:/absolute/path:START:END}}** stands for lines START to END (1-based,
inclusive) of a file, exactly as they are, trailing newline included.
`
	agentsRefUse = `When a file write or edit would repeat more than a few lines that already
exist in a file (moving or copying a block, or putting a pasted file into the
repository: {{file:PATH:1:N}} for a paste of N lines), write the reference
instead of retyping the lines. It is expanded before the edit is applied.
`
	agentsRefUseCodex = `When an apply_patch would add more than a few lines that already exist in a
file (moving or copying a block, or putting a pasted file into the
repository: {{file:PATH:1:N}} for a paste of N lines), write the reference
instead of retyping the lines, as a whole added line of its own:
+{{file:/absolute/path:START:END}}. It is expanded into one added line per
line of the range before the patch is applied.
`
	agentsRefRules = `If it is wrong (a relative path, a missing file, a range outside the file)
the edit is refused with the reason and nothing is written: check the path
and the line numbers (wc -l) and try again. Write new text directly;
references are for text that already exists. You have not seen the text a
reference brought into a file: read the file before you edit it again, even
when the tool says its content is current in your context. To write the
literal characters {{file: in a file, put a backslash before them: \{{file:
`
)

// How to install pbwrap's hook for each agent that has one: the note
// pbwrap help agents AGENT writes to standard error.
const (
	claudeHookInstall = `Add it to ~/.claude/settings.json (pbwrap help hook says more):

  {
    "hooks": {
      "PreToolUse": [
        {
          "matcher": "Write|Edit|MultiEdit|NotebookEdit",
          "hooks": [{"type": "command", "command": "pbwrap hook claude", "timeout": 30}]
        }
      ]
    }
  }
`
	codexHookInstall = `Add it to ~/.codex/hooks.json, then trust it in Codex's /hooks
(pbwrap help hook says more):

  {
    "hooks": {
      "PreToolUse": [
        {
          "matcher": "^apply_patch$",
          "hooks": [{"type": "command", "command": "pbwrap hook codex", "timeout": 30}]
        }
      ]
    }
  }
`
	geminiHookInstall = `Add it to ~/.gemini/settings.json (pbwrap help hook says more):

  {
    "hooks": {
      "BeforeTool": [
        {
          "matcher": "^(write_file|replace)$",
          "hooks": [{"type": "command", "command": "pbwrap hook gemini", "timeout": 30000}]
        }
      ]
    }
  }
`
	piHookInstall = `Pi runs it from an extension:

  mkdir -p ~/.pi/agent/extensions
  pbwrap help agents pi-extension > ~/.pi/agent/extensions/pbwrap.ts

then /reload in Pi, or start it again.
`
)

// piExtension is pbwrap's Pi extension: from Pi's tool_call event, which
// may change a call's input in place or block the call, it runs pbwrap
// hook pi on write and edit calls with a reference.
const piExtension = `// pbwrap's Pi extension: expands {{file:/absolute/path:START:END}} references
// in write and edit calls before they run, with "pbwrap hook pi". A reference
// that does not expand blocks the call, with the reason, and nothing is
// written. Save it as ~/.pi/agent/extensions/pbwrap.ts (pbwrap help agents
// pi-extension prints it), then /reload in Pi.
import { spawn } from "node:child_process";

type Result = { code: number | null; stdout: string; stderr: string };

// hook runs pbwrap hook pi with the call on its standard input.
function hook(call: string, cwd: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn("pbwrap", ["hook", "pi"], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", (err: Error) => resolve({ code: -1, stdout, stderr: String(err) }));
    child.on("close", (code: number | null) => resolve({ code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(call);
  });
}

export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    if (event.toolName !== "write" && event.toolName !== "edit") return;
    if (!JSON.stringify(event.input).includes("{{file:")) return;
    const call = { hook_event_name: "tool_call", tool_name: event.toolName, tool_input: event.input, cwd: ctx.cwd };
    const r = await hook(JSON.stringify(call), ctx.cwd);
    if (r.code !== 0) {
      return { block: true, reason: r.stderr.trim() || "pbwrap hook pi failed (exit status " + r.code + ")" };
    }
    if (r.stdout.trim() === "") return;
    const answer = JSON.parse(r.stdout);
    if (answer.decision === "deny") return { block: true, reason: answer.reason };
    const input = answer.hookSpecificOutput?.tool_input;
    if (typeof input !== "object" || input === null) {
      return { block: true, reason: "pbwrap hook pi gave no tool_input" };
    }
    // Pi runs the call with event.input: replace its members in place.
    for (const key of Object.keys(event.input)) delete event.input[key];
    Object.assign(event.input, input);
  });
}
`
