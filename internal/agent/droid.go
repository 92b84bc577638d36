package agent

import (
	"path/filepath"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// droid is Factory's Droid (npm droid, 0.2xx). It reads any path without
// asking. Its hook is a PreToolUse hook in Claude Code's form, in its user
// settings' hooks, which it reads while ~/.factory/hooks.json, where it
// keeps hooks it writes itself, does not exist (checkDroidHooksFile); it
// matches a matcher as a regular expression searched for in the tool's
// name, and merges an answer's updatedInput into the call.
//
// The rewrite approves nothing (0.215.0's bundle): its PreToolUse runner
// (the one that returns {kind, effectiveInput}) sets kind "allow-bypass",
// which skips the confirmation, only for "permissionDecision": "allow";
// an updatedInput alone leaves kind "proceed", and the call goes to
// requestConfirmationForToolUses with the merged input, as it would have.
var droid = &Agent{
	Name: "droid", Title: "Droid",
	subcommands: []string{"resume", "exec", "daemon", "search", "find", "update", "mcp", "plugin", "computer",
		"doctor", "help"},
	Reads: "nothing: reads any path",
	Hook: &Hook{
		// Its file tools, as its tool schemas name them: Create (file_path,
		// content), Edit (file_path, old_str, new_str, change_all; or
		// file_path and changes, a list of old_str, new_str, change_all,
		// the form MultiEdit calls take) and ApplyPatch (input, a patch).
		Protocol: fileref.Protocol{Event: "PreToolUse", Reply: fileref.UpdatedInput, Tools: []fileref.Tool{
			{Name: "Create", Fields: []string{"content"}, Target: "file_path"},
			{Name: "Edit", Fields: []string{"new_str"}, List: "changes", Item: "new_str", Target: "file_path"},
			{Name: "ApplyPatch", Fields: []string{"input"}, Patch: true},
		}},
		File:     func(env Env) (string, error) { return env.file("", ".factory", "settings.json") },
		Where:    "~/.factory/settings.json",
		anchored: true, Timeout: 30, TimeoutUnit: "seconds",
		About: `It answers in Claude Code's form, which Droid reads: the whole tool input,
expanded, as updatedInput, and no decision, so Droid asks as it would have; a
bad reference denies the call ("permissionDecision": "deny") with the reason.
Droid reads hooks from its settings only while ~/.factory/hooks.json, where
its own /hooks keeps them, does not exist; otherwise the entry goes there.`,
		After:       "Droid runs the hook from its next session on",
		AfterRemove: "Droid runs the hook no more from its next session on",
	},
	Check: checkDroidHooksFile,
	E2E: E2E{
		// Air-gapped (no Factory sign-in, no network but the model's), with
		// a custom model (BYOK) on the fake model's Chat Completions API as
		// the session's model; no update check.
		Env: map[string]string{"FACTORY_AIRGAP_ENABLED": "1", "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false"},
		// The working directory trusted as "Trust this folder" records it.
		// The write scenario takes --auto low, which lets it edit files.
		Files: func(s E2EStart) map[string]string {
			settings := map[string]any{
				"customModels": []any{map[string]any{
					"model": "fake-model", "displayName": "fake-model", "baseUrl": s.URL + "/v1",
					"apiKey": openAIKey, "provider": "generic-chat-completion-api", "maxOutputTokens": 4096,
				}},
				"sessionDefaultSettings": map[string]any{"model": "custom:fake-model-0"},
			}
			if s.Trusted {
				settings["trustedFolders"] = map[string]any{s.Work: map[string]any{"trustedAt": "2026-01-01T00:00:00.000Z"}}
			}
			return map[string]string{".factory/settings.json": mustJSON(settings)}
		},
		WriteArgs: []string{"--auto", "low"},
		Ready:     "for help",
		Prompts:   []string{"Allow", "Approve", "Yes, allow", "Trust this folder?"},
		Questions: []Question{{"Trust this folder?", []string{"Enter"}}},
	},
}

// checkDroidHooksFile says, for pbwrap doctor, when Droid will not read
// the hook from its settings: while ~/.factory/hooks.json exists, Droid
// reads its hooks from there alone.
func checkDroidHooksFile(env Env, root string) []Finding {
	home, err := env.Home()
	if err != nil {
		return nil
	}
	file := filepath.Join(home, ".factory", "hooks.json")
	if text, _, err := readSettings(file); err != nil || text == nil {
		return nil
	}
	return []Finding{{Line: msg("hooks file: %s exists, so Droid reads no hook from its settings", file),
		Problem: msg("Droid reads its hooks from %s alone while it exists, so a hook in ~/.factory/settings.json does not run", file),
		Fix:     msg("move the PreToolUse entry of pbwrap's hook from ~/.factory/settings.json into %s", file)}}
}
