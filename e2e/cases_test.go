//go:build e2e

package e2e

import "fmt"

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
			projects := map[string]any{}
			if !r.untrusted {
				projects[r.work] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}
			}
			r.writeFile(".claude.json", mustJSON(map[string]any{
				"hasCompletedOnboarding": true,
				"theme":                  "dark",
				"customApiKeyResponses":  map[string]any{"approved": []string{anthropicKey[len(anthropicKey)-20:]}, "rejected": []string{}},
				"projects":               projects,
			}))
			if r.write {
				r.args = append(r.args, "--permission-mode", "acceptEdits")
			}
		},
		ready:     "❯",
		prompts:   []string{"Do you want to", "don't ask again", "Allow", "trust", "Yes, add it", "No, exit"},
		questions: []question{{"Yes, I trust this folder", []string{"Down", "Enter"}}},
		hook:      true,
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
		},
		ready:   "ctrl+c",
		prompts: []string{"Allow", "Approve", "trust"},
		hook:    true,
	},
	{
		// Gemini CLI: GOOGLE_GEMINI_BASE_URL and a dummy GEMINI_API_KEY with
		// the API-key auth selected in ~/.gemini/settings.json; the working
		// directory trusted in ~/.gemini/trustedFolders.json (the root is
		// trusted there by pbwrap setup gemini).
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
			}
			r.writeFile(".gemini/settings.json", mustJSON(settings))
			if !r.untrusted {
				r.writeFile(".gemini/trustedFolders.json", mustJSON(map[string]any{r.work: "TRUST_FOLDER"}))
			}
		},
		ready:     "Type your message",
		prompts:   []string{"Allow execution", "Do you trust", "Yes, allow", "Apply this change"},
		questions: []question{{"Do you trust the files in this folder?", []string{"Enter"}}},
		hook:      true,
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
			if !r.untrusted {
				r.writeFile(".qwen/trustedFolders.json", mustJSON(map[string]any{r.work: "TRUST_FOLDER"}))
			}
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
		// working directory trusted. The model is one of Codex's own
		// catalog, which it offers its apply_patch tool (a model it does not
		// know gets shell tools alone), and one that takes its tools the
		// classic way (the newest get them in a JavaScript "exec" tool); its
		// upgrade notice counts as seen.
		name: "codex",
		setup: func(r *run) {
			r.env["FAKE_API_KEY"] = openaiKey
			r.writeFile(".codex/config.toml", fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"

`, r.srv.url))
			if !r.untrusted {
				r.appendFile(".codex/config.toml", fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", r.work))
			}
		},
		ready:   "? for shortcuts",
		prompts: []string{"Allow", "approve", "Would you like to run", "trust", "Hooks need review"},
		hook:    true,
	},
}
