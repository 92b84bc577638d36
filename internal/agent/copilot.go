package agent

import (
	"path/filepath"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// copilot is GitHub Copilot CLI. It reads its working directory and the
// temporary directory by default, but compares paths as written: on macOS
// its /var/folders/... is not the /private/var/folders/... a reference
// carries. --add-dir for a directory it reads anyway costs nothing. Its
// hook is a preToolUse hook in a file of pbwrap's among its user hooks
// (~/.copilot/hooks/*.json), which it loads without a question of its own.
var copilot = &Agent{
	Name: "copilot", Title: "Copilot CLI",
	subcommands: []string{"help", "init", "login", "logout", "mcp", "plugin", "plugins", "skill", "update",
		"version", "completion", "config"},
	batch: []string{"-p", "--prompt"},
	Args:  func(argv []string, root string) []string { return insertAfterName(argv, "--add-dir", root) },
	Reads: "copilot --add-dir ROOT",
	Hook: &Hook{
		// The tools and their fields as its tool schemas name them:
		// create (path, file_text), edit (path, old_str, new_str), and
		// str_replace_editor (command, path, file_text, new_str, ...),
		// which some models get instead.
		Protocol: fileref.Protocol{Event: "preToolUse", Reply: fileref.ModifiedArgs, Tools: []fileref.Tool{
			{Name: "create", Fields: []string{"file_text"}, Target: "path"},
			{Name: "edit", Fields: []string{"new_str"}, Target: "path"},
			{Name: "str_replace_editor", Fields: []string{"file_text", "new_str"}, Target: "path"},
		}},
		File: func(env Env) (string, error) {
			return env.file("COPILOT_HOME", ".copilot", filepath.Join("hooks", "pbwrap.json"))
		},
		Where: "$COPILOT_HOME/hooks/pbwrap.json, else ~/.copilot/hooks/pbwrap.json",
		// Copilot CLI reads Claude Code's layout of a hook, "command" and
		// "timeout" (in seconds) as well as its own "bash" and
		// "timeoutSec", and matches the whole tool name.
		Timeout: 30, TimeoutUnit: "seconds",
		About: `It answers with the whole tool input, expanded, as a top-level
modifiedArgs, and no permission decision, so Copilot CLI asks as it would
have; a bad reference denies the call ("permissionDecision": "deny") with the
reason, which the model sees. Copilot CLI loads every *.json file in its
hooks directory: the file is pbwrap's alone.`,
		After:       "Copilot CLI runs the hook from its next session on",
		AfterRemove: "Copilot CLI runs the hook no more from its next session on",
	},
	E2E: E2E{
		// Its own model provider (BYOK) pointed at the fake model, which
		// needs no GitHub sign-in; COPILOT_OFFLINE=true keeps it off the
		// network (no telemetry, no update check); the working directory
		// trusted in its config.json as "Yes, and remember this folder"
		// records it.
		Env: map[string]string{
			"COPILOT_PROVIDER_BASE_URL": "{url}/v1", "COPILOT_PROVIDER_API_KEY": openAIKey,
			"COPILOT_MODEL": "fake-model", "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
		},
		Files: func(s E2EStart) map[string]string {
			config := map[string]any{"banner": "never"}
			if s.Trusted {
				config["trustedFolders"] = []string{s.Work}
			}
			return map[string]string{".copilot/config.json": mustJSON(config)}
		},
		WriteArgs: []string{"--allow-tool=write"},
		Ready:     "/ commands",
		// It saves a large paste in its session's files itself, and sends
		// the model a mention of that file.
		PasteMark: "<pasted_content file=",
		Prompts:   []string{"Do you want", "Allow directory access", "Confirm folder trust", "Yes, and"},
		Questions: []Question{{"Do you trust the files in this folder?", []string{"Enter"}}},
	},
}
