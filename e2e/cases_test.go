//go:build e2e

package e2e

import (
	"fmt"
	"os/exec"
)

// How each agent runs offline: what it needs in its fresh HOME and its
// environment so that it starts with no login, no network, no first-run
// dialog, and talks to the fake model. This is the documentation of the
// offline settings too.

// dummy keys: never sent anywhere but the fake model.
const (
	anthropicKey = "sk-ant-api03-pbwrap-e2e-dummy-key-0000000000000000000000AA"
	openaiKey    = "sk-pbwrap-e2e-dummy"
	geminiKey    = "pbwrap-e2e-dummy"
)

var agentCases = []agentCase{
	{
		// Claude Code: ANTHROPIC_BASE_URL and a key it has been told is
		// approved; onboarding done and the working directory trusted in
		// ~/.claude.json; no non-essential traffic.
		name: "claude",
		setup: func(r *run) {
			r.env["ANTHROPIC_BASE_URL"] = r.srv.url
			r.env["ANTHROPIC_API_KEY"] = anthropicKey
			r.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
			r.env["DISABLE_AUTOUPDATER"] = "1"
			r.writeFile(".claude.json", mustJSON(map[string]any{
				"hasCompletedOnboarding": true,
				"theme":                  "dark",
				"customApiKeyResponses":  map[string]any{"approved": []string{anthropicKey[len(anthropicKey)-20:]}, "rejected": []string{}},
				"projects": map[string]any{
					r.work: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true},
					// Claude Code asks at every start whether to trust a
					// directory given with --add-dir, unless the
					// directory (or one above it) is trusted.
					r.root: map[string]any{"hasTrustDialogAccepted": true},
				},
			}))
			if r.write {
				r.args = append(r.args, "--permission-mode", "acceptEdits")
				r.writeFile(".claude/settings.json", mustJSON(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
					map[string]any{"matcher": "Write|Edit|MultiEdit|NotebookEdit",
						"hooks": []any{map[string]any{"type": "command", "command": "pbwrap hook claude", "timeout": 30}}},
				}}}))
			}
		},
		ready:   "❯",
		prompts: []string{"Do you want to", "don't ask again", "Allow", "trust"},
		hook:    true,
	}, {
		// Pi: the built-in anthropic provider pointed at the fake model in
		// ~/.pi/agent/models.json, a dummy key, PI_OFFLINE=1 (no downloads of
		// helper tools). Pi 1.x needs Node.js 22.
		name: "pi",
		setup: func(r *run) {
			r.env["ANTHROPIC_API_KEY"] = anthropicKey
			r.env["PI_OFFLINE"] = "1"
			r.writeFile(".pi/agent/models.json", mustJSON(map[string]any{"providers": map[string]any{
				"anthropic": map[string]any{"baseUrl": r.srv.url}}}))
			if r.write {
				out, err := exec.Command(pbwrap, "help", "agents", "pi-extension").Output()
				if err != nil {
					r.t.Fatal(err)
				}
				r.writeFile(".pi/agent/extensions/pbwrap.ts", string(out))
			}
		},
		ready:   "ctrl+c",
		prompts: []string{"Allow", "Approve", "trust"},
		hook:    true,
	},
	{
		// Gemini CLI: GOOGLE_GEMINI_BASE_URL and a dummy GEMINI_API_KEY with
		// the API-key auth selected in ~/.gemini/settings.json; the working
		// directory and the root trusted in ~/.gemini/trustedFolders.json
		// (otherwise it asks, at each start, whether to trust the root).
		name: "gemini",
		setup: func(r *run) {
			r.env["GEMINI_API_KEY"] = geminiKey
			r.env["GOOGLE_GEMINI_BASE_URL"] = r.srv.url
			settings := map[string]any{
				"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
				"general":  map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
				"privacy":  map[string]any{"usageStatisticsEnabled": false},
			}
			if r.write {
				r.args = append(r.args, "--approval-mode", "auto_edit")
				settings["hooks"] = map[string]any{"BeforeTool": []any{map[string]any{"matcher": "^(write_file|replace)$",
					"hooks": []any{map[string]any{"type": "command", "command": "pbwrap hook gemini", "timeout": 30000}}}}}
			}
			r.writeFile(".gemini/settings.json", mustJSON(settings))
			r.writeFile(".gemini/trustedFolders.json", mustJSON(map[string]any{r.work: "TRUST_FOLDER", r.root: "TRUST_FOLDER"}))
		},
		ready:   "Type your message",
		prompts: []string{"Allow execution", "Do you trust", "Yes, allow", "Apply this change"},
		hook:    true,
	},
	{
		// Qwen Code: OpenAI-compatible auth selected in ~/.qwen/settings.json,
		// OPENAI_BASE_URL, OPENAI_MODEL and a dummy OPENAI_API_KEY; the
		// working directory trusted.
		name: "qwen",
		setup: func(r *run) {
			r.env["OPENAI_API_KEY"] = openaiKey
			r.env["OPENAI_BASE_URL"] = r.srv.url + "/v1"
			r.env["OPENAI_MODEL"] = "fake-model"
			r.writeFile(".qwen/settings.json", mustJSON(map[string]any{
				"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
				"general":  map[string]any{"disableAutoUpdate": true},
				"privacy":  map[string]any{"usageStatisticsEnabled": false},
			}))
			r.writeFile(".qwen/trustedFolders.json", mustJSON(map[string]any{r.work: "TRUST_FOLDER"}))
		},
		ready:   "Type your message",
		prompts: []string{"Allow", "Do you trust", "Yes, allow"},
	},
	{
		// opencode: a provider for the fake model in OPENCODE_CONFIG_CONTENT
		// (pbwrap adds its permission to that value), models.dev not
		// fetched, no update check.
		name: "opencode",
		setup: func(r *run) {
			r.env["OPENCODE_DISABLE_MODELS_FETCH"] = "1"
			r.env["OPENCODE_DISABLE_AUTOUPDATE"] = "1"
			r.env["OPENCODE_CONFIG_CONTENT"] = mustJSON(map[string]any{
				"provider": map[string]any{"fake": map[string]any{
					"npm": "@ai-sdk/openai-compatible", "name": "fake",
					"options": map[string]any{"baseURL": r.srv.url + "/v1", "apiKey": openaiKey},
					"models":  map[string]any{"fake-model": map[string]any{"name": "fake-model"}},
				}},
				"model": "fake/fake-model", "autoupdate": false, "share": "disabled",
			})
		},
		ready:   "ctrl+p",
		prompts: []string{"Permission required", "Allow once", "Access external directory"},
	},
	{
		// Codex: a provider for the fake model (Responses API) in
		// ~/.codex/config.toml with a dummy key in its env_key, and the
		// working directory trusted.
		name: "codex",
		setup: func(r *run) {
			r.env["FAKE_API_KEY"] = openaiKey
			r.writeFile(".codex/config.toml", fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, r.srv.url, r.work))
		},
		ready:   "? for shortcuts",
		prompts: []string{"Allow", "approve", "Would you like to run", "trust"},
	},
}
