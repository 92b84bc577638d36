package agent

import (
	"path/filepath"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// kilo is Kilo Code's CLI (npm @kilocode/cli, 7.x), a fork of opencode that
// keeps its configuration and plugins under its own names: like opencode it
// asks before reading outside its project ("Access external directory"),
// so pbwrap allows the root as an external directory in
// KILO_CONFIG_CONTENT, the configuration it reads from its environment
// last, as it does opencode's (opencodeConfig); its hook is a plugin of
// pbwrap's, opencode's with Kilo's names.
//
// The rewrite approves nothing (7.7.7's bundle): each tool's execute
// triggers tool.execute.before with {args}, the very object it then runs
// the tool with, and the tool asks its permission (ctx.ask, the agent's
// rules, "edit" for write, edit and apply_patch) inside execute, after
// the plugin changed the arguments: the plugin's answer is no decision.
var kilo = &Agent{
	Name: "kilo", Title: "Kilo Code CLI",
	subcommands: []string{"completion", "acp", "mcp", "attach", "run", "debug", "auth", "providers", "agent",
		"upgrade", "uninstall", "serve", "models", "stats", "export", "import", "github", "pr", "session",
		"plugin", "plug", "db", "console", "cloud", "roll-call", "profile", "remote", "daemon", "config",
		"worktree", "help"},
	Env:   &Var{Name: "KILO_CONFIG_CONTENT", Value: opencodeConfig},
	Reads: "KILO_CONFIG_CONTENT allowing ROOT/** as an external directory (asks before reading outside the project otherwise)",
	Hook: &Hook{
		// opencode's tools, which Kilo keeps.
		Protocol: fileref.Protocol{Event: "tool.execute.before", Reply: fileref.ToolInput, Tools: []fileref.Tool{
			{Name: "write", Fields: []string{"content"}, Target: "filePath"},
			{Name: "edit", Fields: []string{"newString"}, Target: "filePath"},
			{Name: "apply_patch", Fields: []string{"patchText"}, Patch: true},
		}},
		File: func(env Env) (string, error) {
			return env.file("XDG_CONFIG_HOME", ".config", filepath.Join("kilo", "plugin", "pbwrap.js"))
		},
		Where:     "$XDG_CONFIG_HOME/kilo/plugin/pbwrap.js, else ~/.config/kilo/plugin/pbwrap.js",
		Extension: &Extension{Text: kiloPlugin, call: "spawn("},
		About: `It is opencode's plugin with Kilo's names: from the
tool.execute.before hook it replaces the tool's arguments with the answer,
or throws the reason, which stops the call and reaches the model: pbwrap
help agents kilo-extension prints the plugin.`,
		After:       "Kilo loads the plugin from its next start on",
		AfterRemove: "Kilo runs the plugin no more from its next start on",
	},
	E2E: E2E{
		// opencode's settings under Kilo's names: a provider for the fake
		// model in KILO_CONFIG_CONTENT (pbwrap adds its permission to that
		// value), no models fetch, no update check, no telemetry.
		Env: map[string]string{
			"KILO_DISABLE_MODELS_FETCH": "1",
			"KILO_DISABLE_AUTOUPDATE":   "1",
			"KILO_TELEMETRY_LEVEL":      "off",
			"KILO_CONFIG_CONTENT": `{"provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake", ` +
				`"options": {"baseURL": "{url}/v1", "apiKey": "` + openAIKey + `"}, ` +
				`"models": {"fake-model": {"name": "fake-model"}}}}, ` +
				`"model": "fake/fake-model", "autoupdate": false, "share": "disabled"}`,
		},
		Ready:   "ctrl+p",
		Prompts: []string{"Permission required", "Allow once", "Access external directory"},
	},
}

// kiloPlugin is opencode's plugin (opencodePlugin) with Kilo's names: its
// command, its configuration directory, its extension's name.
var kiloPlugin = strings.ReplaceAll(opencodePlugin, "opencode", "kilo")
