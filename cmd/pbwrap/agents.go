package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pbwrap/pbwrap/internal/jsonc"
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
	// env is the environment variable the agent needs to read root, for
	// agents that take that permission from their environment.
	env *agentVar
	// note says, for the README and pbwrap doctor, how the agent reads
	// pasted files.
	note string
	// hook says how to install pbwrap's hook for the agent, which expands
	// {{file:...}} references in its edits; "" when there is none, and
	// then pbwrap help agents does not teach the agent references.
	hook string
	// doctor checks, for pbwrap doctor, what else decides whether the
	// agent reads root without asking.
	doctor func(d *doctor, root string)
}

// An agentVar is an environment variable an agent reads its permissions
// from.
type agentVar struct {
	name string
	// value returns the variable's value that lets the agent read root,
	// given its value in pbwrap's environment ("" when unset); an error
	// says why the variable is better left as it is.
	value func(old, root string) (string, error)
}

// informational flags of every agent: a run with them shows something and
// exits.
var infoFlags = []string{"-h", "--help", "-v", "-V", "--version"}

// agents are the known agents. Claude Code and opencode ask before reading
// outside their working directories, Gemini CLI refuses to; Qwen Code reads
// the temporary directory without asking and asks for other paths; Copilot
// CLI reads its working directory and the temporary directory; the others
// read anywhere. What each really does is proven by the e2e suite
// (scripts/e2e-agents).
var agents = []agent{
	{
		name: "claude",
		subcommands: []string{"mcp", "plugin", "plugins", "auth", "setup-token", "doctor", "update", "upgrade",
			"install", "agents", "remote-control", "config", "migrate-installer"},
		batch: []string{"-p", "--print"},
		args:  claudeArgs,
		note:  "the root as a working directory in the settings it is started with (asks before reading outside its working directories otherwise)",
		hook:  claudeHookInstall,
	},
	{
		name:        "gemini",
		subcommands: []string{"mcp", "extensions", "skills", "hooks"},
		batch:       []string{"-p", "--prompt"},
		args:        func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
		note:        "gemini --include-directories ROOT (refuses paths outside its workspace otherwise)",
		hook:        geminiHookInstall,
		doctor:      (*doctor).checkGeminiTrust,
	},
	{
		name: "qwen",
		subcommands: []string{"mcp", "extensions", "auth", "hooks", "channel", "review", "serve", "sessions",
			"update", "agents"},
		batch: []string{"-p", "--prompt", "--bg", "--background"},
		// Qwen Code reads the temporary directory without asking, and asks
		// for paths outside its workspace: the flag makes the root part of
		// the workspace wherever it is.
		args: func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
		note: "qwen --include-directories ROOT (asks before reading outside its workspace and the temporary directory otherwise)",
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
	{
		name: "opencode",
		subcommands: []string{"completion", "acp", "mcp", "attach", "run", "debug", "providers", "auth", "agent",
			"upgrade", "uninstall", "serve", "web", "models", "stats", "export", "import", "github", "session",
			"plugin", "plug", "db"},
		env:  &agentVar{name: "OPENCODE_CONFIG_CONTENT", value: opencodeConfig},
		note: "OPENCODE_CONFIG_CONTENT allowing ROOT/** as an external directory (asks before reading outside the project otherwise)",
	},
	{name: "codex", note: "nothing: reads any path", hook: codexHookInstall},
	{name: "pi", note: "nothing: reads any path", hook: piHookInstall},
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

// agentEnv returns environ with what the agent argv runs needs to read
// root, for an interactive run of a known agent; otherwise environ
// unchanged. When the variable the agent needs is already set to a value
// pbwrap cannot add to, environ is returned unchanged with an error that
// says so.
func agentEnv(argv, environ []string, root string) ([]string, error) {
	a := findAgent(argv[0])
	if a == nil || a.env == nil || !a.interactive(argv[1:]) {
		return environ, nil
	}
	name := a.env.name
	old := ""
	for _, kv := range environ {
		if hasKey(kv, name) {
			old = kv[len(name)+1:] // The last one wins, as in getenv.
		}
	}
	value, err := a.env.value(old, root)
	if err != nil {
		return environ, fmt.Errorf("%s: left %s as it was, so %s may ask before reading the saved pastes: %w", a.name, name, a.name, err)
	}
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !hasKey(kv, name) {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value), nil
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

// opencodeConfig returns the OPENCODE_CONFIG_CONTENT that lets opencode
// read below root without asking: old, the user's own value ("" for none),
// with the rule "ROOT/**": "allow" added as the last of
// permission.external_directory, and nothing else changed. opencode takes
// the last rule that matches, so the rule decides for the root and only
// for it; the other rules, and their order, are the user's. A permission
// given as one action for all ("ask") is written as opencode reads it,
// {"*": "ask"}, so that it still holds for everything else. A value that
// is not a JSON object is an error: pbwrap leaves it to opencode.
func opencodeConfig(old, root string) (string, error) {
	top := jsonc.Object{}
	if strings.TrimSpace(old) != "" {
		var err error
		if top, err = jsonc.ParseObject([]byte(old)); err != nil {
			return "", fmt.Errorf("its value is not a JSON object: %w", err)
		}
	}
	perm, err := opencodeRules(top.Get("permission"))
	if err != nil {
		return "", fmt.Errorf("its permission is not an action or an object: %w", err)
	}
	ext, err := opencodeRules(perm.Get("external_directory"))
	if err != nil {
		return "", fmt.Errorf("its permission.external_directory is not an action or an object: %w", err)
	}
	ext = ext.SetLast(root+"/**", json.RawMessage(`"allow"`))
	perm = perm.Set("external_directory", ext.Marshal())
	return string(top.Set("permission", perm.Marshal()).Marshal()), nil
}

// opencodeRules reads a permission value as opencode does: none (or null)
// is no rule, one action stands for {"*": action}, an object lists rules.
func opencodeRules(v json.RawMessage) (jsonc.Object, error) {
	switch t := bytes.TrimSpace(v); {
	case len(t) == 0 || string(t) == "null":
		return jsonc.Object{}, nil
	case t[0] == '"':
		return jsonc.Object{{Name: "*", Value: t}}, nil
	}
	return jsonc.ParseObject(v)
}

// claudeArgs gives Claude Code the root as one of its working directories
// through --settings, the settings of the program that starts it: Claude
// Code counts their additionalDirectories as working directories without
// asking, also where the user's settings block reads outside them, while
// a directory given with --add-dir is asked about at every start unless
// the user trusted it. The user's own --settings, when it is a JSON
// object, gets the root added to it; when it names a file, it stays as it
// is, since Claude Code reads one --settings only, and an allow rule for
// reads below the root is added instead. The = forms: --settings takes
// one value and --allowedTools several, and a separate value would
// swallow a prompt that follows it.
func claudeArgs(argv []string, root string) []string {
	at, value := claudeSettingsArg(argv)
	if at < 0 {
		return insertAfterName(argv, "--settings="+string(claudeSettings(jsonc.Object{}, root)))
	}
	obj, err := jsonc.ParseObject([]byte(value))
	if err != nil || !isObject(obj.Get("permissions")) {
		return insertAfterName(argv, "--allowedTools=Read(/"+root+"/**)")
	}
	out := slices.Clone(argv)
	if strings.HasPrefix(argv[at], "--settings=") {
		out[at] = "--settings=" + string(claudeSettings(obj, root))
	} else {
		out[at+1] = string(claudeSettings(obj, root))
	}
	return out
}

// claudeSettingsArg finds the user's --settings before any "--": the index
// of the argument and its value, or -1.
func claudeSettingsArg(argv []string) (at int, value string) {
	at = -1
	for i := 1; i < len(argv); i++ {
		switch arg := argv[i]; {
		case arg == "--":
			return at, value
		case strings.HasPrefix(arg, "--settings="):
			at, value = i, arg[len("--settings="):]
		case arg == "--settings" && i+1 < len(argv):
			at, value = i, argv[i+1]
			i++
		}
	}
	return at, value
}

// isObject reports whether v is absent or a JSON object.
func isObject(v json.RawMessage) bool {
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] != '{' && string(t) != "null" {
		return false
	}
	return true
}

// claudeSettings returns settings with root added as the last of
// permissions.additionalDirectories; settings's permissions must be
// absent or an object.
func claudeSettings(settings jsonc.Object, root string) json.RawMessage {
	perm := jsonc.Object{}
	if v := bytes.TrimSpace(settings.Get("permissions")); len(v) > 0 && string(v) != "null" {
		perm, _ = jsonc.ParseObject(v) // isObject: an object.
	}
	var dirs []json.RawMessage
	if v := perm.Get("additionalDirectories"); v != nil {
		if json.Unmarshal(v, &dirs) != nil {
			dirs = nil // Not a list: Claude Code would reject it; pbwrap's replaces it.
		}
	}
	dirs = append(dirs, jsonc.String(root))
	perm = perm.Set("additionalDirectories", jsonc.Array(dirs))
	return settings.Set("permissions", perm.Marshal()).Marshal()
}
