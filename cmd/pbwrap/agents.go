package main

import (
	"path/filepath"
	"slices"
	"strings"
)

// An agent is a coding agent CLI pbwrap knows by its command's base name,
// with what it needs to read pasted files under the store's root.
type agent struct {
	name string
	// subcommands are words that, as the first argument that is not a
	// flag, make the run something other than the interactive agent:
	// those runs get nothing added.
	subcommands []string
	// batch are flags that make the run non-interactive (no pastes).
	batch []string
	// args returns argv with what the agent needs to read root, or nil
	// when it needs nothing.
	args func(argv []string, root string) []string
	// note says, for the README and pbwrap doctor, how the agent reads
	// pasted files.
	note string
}

// informational flags of every agent: a run with them shows something and
// exits.
var infoFlags = []string{"-h", "--help", "-v", "-V", "--version"}

// agents are the known agents. Claude Code asks before reading outside its
// working directories and Gemini CLI and Qwen Code refuse to; Copilot CLI
// reads its working directory and the temporary directory; the others read
// anywhere.
var agents = []agent{
	{
		name: "claude",
		subcommands: []string{"mcp", "plugin", "plugins", "auth", "setup-token", "doctor", "update", "upgrade",
			"install", "agents", "remote-control", "config", "migrate-installer"},
		batch: []string{"-p", "--print"},
		// The = form: --add-dir takes several values, and a separate
		// value would swallow a prompt that follows it.
		args: func(argv []string, root string) []string { return insertAfterName(argv, "--add-dir="+root) },
		note: "claude --add-dir=ROOT (asks before reading outside its working directories otherwise)",
	},
	{
		name:        "gemini",
		subcommands: []string{"mcp", "extensions", "skills", "hooks"},
		batch:       []string{"-p", "--prompt"},
		args:        func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
		note:        "gemini --include-directories ROOT (refuses paths outside its workspace otherwise)",
	},
	{
		name: "qwen",
		subcommands: []string{"mcp", "extensions", "auth", "hooks", "channel", "review", "serve", "sessions",
			"update", "agents"},
		batch: []string{"-p", "--prompt", "--bg", "--background"},
		args:  func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
		note:  "qwen --include-directories ROOT (refuses paths outside its workspace otherwise)",
	},
	{
		name: "copilot",
		subcommands: []string{"help", "init", "login", "logout", "mcp", "plugin", "plugins", "skill", "update",
			"version", "completion", "config"},
		batch: []string{"-p", "--prompt"},
		// Copilot CLI also reads the temporary directory by default, but
		// compares paths as written: on macOS its /var/folders/... is not
		// the /private/var/folders/... a reference carries. --add-dir for a
		// directory it reads anyway costs nothing.
		args: func(argv []string, root string) []string { return insertAfterName(argv, "--add-dir", root) },
		note: "copilot --add-dir ROOT",
	},
	{name: "codex", note: "nothing: reads any path"},
	{name: "pi", note: "nothing: reads any path"},
	{name: "cursor-agent", note: "nothing: reads any path"},
	{name: "amp", note: "nothing: reads any path"},
	{name: "goose", note: "nothing: reads any path"},
}

// findAgent returns the known agent a command runs, by its base name.
func findAgent(command string) *agent {
	base := filepath.Base(command)
	for i := range agents {
		if agents[i].name == base {
			return &agents[i]
		}
	}
	return nil
}

// agentArgs returns argv with what the agent it runs needs to read root,
// for an interactive run of a known agent; otherwise argv unchanged.
func agentArgs(argv []string, root string) []string {
	a := findAgent(argv[0])
	if a == nil || a.args == nil || !a.interactive(argv[1:]) {
		return argv
	}
	if out := a.args(argv, root); out != nil {
		return out
	}
	return argv
}

// interactive reports whether args start the agent's interactive session:
// no subcommand first, no batch or informational flag before a "--".
func (a *agent) interactive(args []string) bool {
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if slices.Contains(a.batch, arg) || slices.Contains(infoFlags, arg) {
			return false
		}
		if i == firstWord(args) && slices.Contains(a.subcommands, arg) {
			return false
		}
	}
	return true
}

// firstWord is the index of the first argument that is not a flag, or -1.
// A flag's separate value is not told apart from a word, which errs on the
// side of adding nothing: "claude --model opus mcp" is not taken for the
// mcp subcommand, since opus comes first.
func firstWord(args []string) int {
	for i, arg := range args {
		if !strings.HasPrefix(arg, "-") {
			return i
		}
	}
	return -1
}

// insertAfterName inserts extra right after the command name.
func insertAfterName(argv []string, extra ...string) []string {
	out := append([]string{argv[0]}, extra...)
	return append(out, argv[1:]...)
}

// appendLast adds extra where a greedy option parser cannot take a word
// that follows it: before a "--", else at the end.
func appendLast(argv []string, extra ...string) []string {
	if i := slices.Index(argv, "--"); i > 0 {
		out := slices.Clone(argv[:i])
		out = append(out, extra...)
		return append(out, argv[i:]...)
	}
	return append(slices.Clone(argv), extra...)
}
