package agent

import (
	"fmt"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// codex is Codex. It reads any path; its hook is a PreToolUse hook for
// apply_patch in its hooks.json, which it runs only once trusted: setup
// writes the trust record Codex's /hooks writes (codexTrust).
var codex = &Agent{
	Name: "codex", Title: "Codex",
	Reads: "nothing: reads any path",
	Hook:  codexHook,
	Trust: []File{codexTrust},
	Check: checkCodexTrust,
	E2E: E2E{
		// A provider for the fake model (Responses API) with a dummy key
		// in its env_key, and the working directory trusted. The model is
		// one of Codex's own catalog, which it offers its apply_patch tool
		// (a model it does not know gets shell tools alone), and one that
		// takes its tools the classic way (the newest get them in a
		// JavaScript "exec" tool); its upgrade notice counts as seen.
		Env: map[string]string{"FAKE_API_KEY": openAIKey},
		Files: func(s E2EStart) map[string]string {
			config := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"

`, s.URL)
			if s.Trusted {
				config += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", s.Work)
			}
			return map[string]string{".codex/config.toml": config}
		},
		Ready:   "? for shortcuts",
		Prompts: []string{"Allow", "approve", "Would you like to run", "trust", "Hooks need review"},
	},
}

// codexHook is pbwrap's hook for Codex, a PreToolUse hook for apply_patch.
var codexHook = &Hook{
	Protocol: fileref.Protocol{Event: "PreToolUse", Reply: fileref.AllowedInput, Tools: []fileref.Tool{
		{Name: "apply_patch", Fields: []string{"command"}, Patch: true},
	}},
	File:     codexHooksPath,
	Where:    "$CODEX_HOME/hooks.json, else ~/.codex/hooks.json",
	anchored: true, Timeout: 30, TimeoutUnit: "seconds",
	About: `Its patch writes a file's content as lines that start with "+": there a
reference must be a whole added line, +{{file:/abs/path:START:END}}, and
becomes one added line per line of the range. Codex takes a rewritten input
only with permissionDecision "allow", which carries the rewrite and nothing
else: the patch still goes through Codex's approval policy and sandbox.
Codex runs a hook only once it is trusted (in its /hooks, or by pbwrap
setup codex).`,
	refUse: `When an apply_patch would add more than a few lines that already exist in a
file (moving or copying a block, or putting a pasted file into the
repository: {{file:PATH:1:N}} for a paste of N lines), write the reference
instead of retyping the lines, as a whole added line of its own:
+{{file:/absolute/path:START:END}}. It is expanded into one added line per
line of the range before the patch is applied.
`,
	After:       "Codex runs the hook, trusted, from its next session on (/hooks shows it)",
	AfterRemove: "Codex runs the hook no more from its next session on",
}

// codexTrust is the trust record of pbwrap's hook in Codex's config.toml.
var codexTrust = File{
	What: "the hook's trust", Path: codexConfigPath,
	Help: "the hook's trust in config.toml beside it, the record Codex writes when you trust a hook in its /hooks (otherwise Codex asks about the hook at every start); --remove moves the records of the hooks after pbwrap's with them, so that Codex still trusts them",
	Install: func(text []byte, r *Run) ([]byte, error) {
		hooks, keyPath, err := codexHooksFile(r.Env, r.after)
		if err != nil {
			return nil, err
		}
		return codexTrustInstall(text, hooks, keyPath)
	},
	Remove: func(text []byte, r *Run) ([]byte, error) {
		if text == nil {
			return nil, nil
		}
		before, keyPath, err := codexHooksFile(r.Env, r.before)
		if err != nil {
			return nil, err
		}
		after, _, _ := codexHooksFile(r.Env, r.after)
		return codexTrustRemove(text, before, after, keyPath)
	},
}

// codexHooksFile returns the text of Codex's hooks file from texts, and
// its name as trust keys spell it.
func codexHooksFile(env Env, texts map[string][]byte) ([]byte, string, error) {
	name, err := codexHooksPath(env)
	if err != nil {
		return nil, "", err
	}
	keyPath, err := codexKeyPath(env)
	return texts[name], keyPath, err
}

// checkCodexTrust says whether Codex trusts pbwrap's hook in its hooks
// file: one it does not trust it asks about at every start ("Hooks need
// review"), and does not run.
func checkCodexTrust(env Env, root string) []Finding {
	hooksFile, err := codexHooksPath(env)
	if err != nil {
		return nil // The hook's check says so.
	}
	hooks, _, err := readSettings(hooksFile)
	if err != nil || hooks == nil {
		return nil
	}
	if commands, err := codexHook.commands(hooks); err != nil || len(commands) == 0 {
		return nil
	}
	file, err := codexConfigPath(env)
	if err == nil {
		var keyPath string
		if keyPath, err = codexKeyPath(env); err == nil {
			var config []byte
			if config, _, err = readSettings(file); err == nil {
				var n int
				if n, err = codexUntrusted(config, hooks, keyPath); err == nil && n == 0 {
					return []Finding{note("hook: trusted in %s", file)}
				} else if err == nil {
					return []Finding{{Line: msg("hook: NOT trusted in %s", file),
						Problem: msg("Codex asks at every start about pbwrap's hook (\"Hooks need review\"), and does not run it: "+
							"%s holds no current trust record for it", file),
						Fix: msg("pbwrap setup codex, which writes the record")}}
				}
			}
		}
	}
	return []Finding{note("hook: its trust not looked for (%s)", err)}
}
