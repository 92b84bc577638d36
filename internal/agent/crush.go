package agent

import (
	"path/filepath"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// crush is Crush (charmbracelet/crush). Its view tool asks before reading
// outside the working directory, and nothing at its start (flag,
// variable, setting) scopes that to a directory: its allowed_tools rule
// and --yolo allow every read everywhere. What it takes is a PreToolUse
// hook's "allow" for the one call (internal/agent/hooked_tool.go), so
// pbwrap's hook, which expands references in write, edit and multiedit,
// also answers view: allowed when the file is one the hook could expand
// from pbwrap's root, and no answer otherwise (fileref.Protocol.Reads).
// Its settings take the hook's members in the entry itself (flat), as
// plain JSON.
var crush = &Agent{
	Name: "crush", Title: "Crush",
	subcommands: []string{"run", "dirs", "projects", "update-providers", "logs", "logout", "schema", "login",
		"stats", "session", "models", "server", "completion", "help"},
	Reads: "pbwrap's hook allows its view tool below ROOT (pbwrap setup crush; asks before reading outside its working directory otherwise)",
	Hook:  crushHook,
	Check: checkCrushReads,
	Note:  crushNote,
	E2E: E2E{
		// An OpenAI-compatible provider for the fake model, the only one
		// (no default providers, no fetch of Catwalk's list), as the large
		// and the small model; no metrics. The write scenario takes --yolo:
		// Crush has no mode that accepts edits alone.
		Env: map[string]string{
			"CRUSH_DISABLE_PROVIDER_AUTO_UPDATE": "1",
			"CRUSH_DISABLE_DEFAULT_PROVIDERS":    "1",
			"CRUSH_DISABLE_METRICS":              "1",
		},
		Files: func(s E2EStart) map[string]string {
			model := map[string]any{"provider": "fake", "model": "fake-model"}
			return map[string]string{".config/crush/crush.json": mustJSON(map[string]any{
				"providers": map[string]any{"fake": map[string]any{
					"name": "fake", "type": "openai-compat", "base_url": s.URL + "/v1", "api_key": openAIKey,
					"models": []any{map[string]any{"id": "fake-model", "name": "fake-model",
						"context_window": 128000, "default_max_tokens": 4096}},
				}},
				"models":  map[string]any{"large": model, "small": model},
				"options": map[string]any{"disable_metrics": true, "disable_provider_auto_update": true},
			})}
		},
		// Its input's placeholder changes from start to start, and in YOLO
		// mode; its help line does not.
		WriteArgs:     []string{"--yolo"},
		Ready:         "ctrl+c quit",
		PasteAttached: true,
		Prompts:       []string{"Permission Required", "Allow for Session"},
	},
}

// crushHook is Crush's hook, apart so that checkCrushReads can read it.
var crushHook = &Hook{
	Protocol: fileref.Protocol{Event: "PreToolUse", Reply: fileref.UpdatedInput, Tools: []fileref.Tool{
		{Name: "write", Fields: []string{"content"}, Target: "file_path"},
		{Name: "edit", Fields: []string{"new_string"}, Target: "file_path"},
		{Name: "multiedit", List: "edits", Item: "new_string", Target: "file_path"},
	}, Reads: []fileref.Tool{{Name: "view", Fields: []string{"file_path"}}}},
	File:     crushConfig,
	Where:    "$CRUSH_GLOBAL_CONFIG/crush.json, else $XDG_CONFIG_HOME/crush/crush.json, else ~/.config/crush/crush.json",
	anchored: true, flat: true, Timeout: 30, TimeoutUnit: "seconds",
	About: `It answers in Claude Code's form, which Crush also reads: the whole tool
input, expanded, as updatedInput (Crush merges it into the call, member by
member), and no decision, so Crush asks as it would have; a bad reference
denies the call with the reason. It also answers Crush's view tool: a file
in pbwrap's root is allowed, so that Crush reads a saved paste without
asking; any other read gets no answer. The hook may also go in a project's
crush.json or .crush.json.`,
	After:       "Crush runs the hook, and reads the root, from its next start on",
	AfterRemove: "Crush runs the hook no more from its next start on, and asks before reading the root",
}

// crushConfig is Crush's global settings file: crush.json in
// CRUSH_GLOBAL_CONFIG, else in XDG_CONFIG_HOME/crush, else in
// ~/.config/crush (internal/config/load.go, GlobalConfig).
func crushConfig(env Env) (string, error) {
	if dir := env.Getenv("CRUSH_GLOBAL_CONFIG"); dir != "" {
		return filepath.Join(dir, "crush.json"), nil
	}
	if dir := env.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "crush", "crush.json"), nil
	}
	return env.file("", filepath.Join(".config", "crush"), "crush.json")
}

// checkCrushReads says, for pbwrap doctor, whether Crush reads the root
// without asking: only with pbwrap's hook in its settings.
func checkCrushReads(env Env, root string) []Finding {
	file, err := crushConfig(env)
	if err != nil {
		return nil // checkHook said why.
	}
	text, _, err := readSettings(file)
	if err != nil || text == nil {
		return crushAsks()
	}
	if commands, err := crushHook.commands(text); err != nil || len(commands) == 0 {
		return crushAsks()
	}
	return []Finding{note("reads: its view tool reads the root without asking, as pbwrap's hook allows")}
}

func crushAsks() []Finding {
	return []Finding{{Line: msg("reads: asks before reading the root (no pbwrap hook)"),
		Problem: msg("crush asks before reading each saved paste: its view tool reads outside the working directory only with a yes, which pbwrap's hook gives for the root"),
		Fix:     msg("pbwrap setup crush")}}
}
