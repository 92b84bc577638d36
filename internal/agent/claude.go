package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fileref"
	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// claude is Claude Code. It asks before reading outside its working
// directories, so pbwrap gives it the root as one, in the settings it
// starts it with (claudeArgs); its hook is a PreToolUse hook in its user
// settings, which needs no trust of its own.
var claude = &Agent{
	Name: "claude", Title: "Claude Code",
	subcommands: []string{"mcp", "plugin", "plugins", "auth", "setup-token", "doctor", "update", "upgrade",
		"install", "agents", "remote-control", "config", "migrate-installer"},
	batch: []string{"-p", "--print"},
	Args:  claudeArgs,
	Reads: "the root as a working directory in the settings it is started with (asks before reading outside its working directories otherwise)",
	Hook: &Hook{
		Protocol: fileref.Protocol{Event: "PreToolUse", Reply: fileref.UpdatedInput, Tools: []fileref.Tool{
			{Name: "Write", Fields: []string{"content"}, Target: "file_path"},
			{Name: "Edit", Fields: []string{"new_string"}, Target: "file_path"},
			{Name: "MultiEdit", List: "edits", Item: "new_string", Target: "file_path"},
			{Name: "NotebookEdit", Fields: []string{"new_source"}, Target: "notebook_path"},
		}},
		ReadRules:  claudeReadRules,
		RulesAbout: "Claude Code's permissions.deny and permissions.ask Read rules from every settings file",
		File:       func(env Env) (string, error) { return env.file("CLAUDE_CONFIG_DIR", ".claude", "settings.json") },
		Where:      "$CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json",
		Timeout:    30, TimeoutUnit: "seconds",
		About: `It answers with the whole tool input, expanded, and no permission decision,
so Claude Code asks exactly as it would have (an edit that would have asked
the user still asks); a bad reference denies the call with the reason. The
hook may also go in a project's .claude/settings.json.`,
		After:       "Claude Code runs the hook from its next session on (/hooks shows it)",
		AfterRemove: "Claude Code runs the hook no more from its next session on",
	},
	E2E: E2E{
		Env: map[string]string{
			"ANTHROPIC_BASE_URL":                       "{url}",
			"ANTHROPIC_API_KEY":                        anthropicKey,
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
			"DISABLE_AUTOUPDATER":                      "1",
		},
		// Onboarding done and the working directory trusted in
		// ~/.claude.json, the key approved there; no non-essential traffic.
		Files: func(s E2EStart) map[string]string {
			projects := map[string]any{}
			if s.Trusted {
				projects[s.Work] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}
			}
			return map[string]string{".claude.json": mustJSON(map[string]any{
				"hasCompletedOnboarding": true,
				"theme":                  "dark",
				"customApiKeyResponses":  map[string]any{"approved": []string{anthropicKey[len(anthropicKey)-20:]}, "rejected": []string{}},
				"projects":               projects,
			})}
		},
		WriteArgs: []string{"--permission-mode", "acceptEdits"},
		Ready:     "❯",
		Prompts:   []string{"Do you want to", "don't ask again", "Allow", "trust", "Yes, add it", "No, exit"},
		Questions: []Question{{"Yes, I trust this folder", []string{"Down", "Enter"}}},
	},
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
