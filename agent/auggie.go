package agent

import "github.com/pbwrap/pbwrap/pasteref"

// auggie is Augment's CLI, Auggie (npm @augmentcode/auggie, 0.x). It reads
// any path without asking. Its hook is a PreToolUse hook in its user
// settings, in Claude Code's form (the answer's updatedInput replaces the
// call's input); it sends the working directory as the first of
// workspace_roots, and matches a matcher as a regular expression searched
// for in the tool's name (augment.mjs).
var auggie = &Agent{
	Name: "auggie", Title: "Auggie",
	Subcommands: []string{"login", "logout", "account", "tokens", "mcp", "plugin", "plugins", "session", "sessions",
		"tools", "command", "commands", "model", "models", "upgrade", "completion", "help"},
	Batch: []string{"-p", "--print", "--mcp", "--acp"},
	Reads: "nothing: reads any path",
	Hook: &Hook{
		// Its file tools, as its tool schemas name them: save-file (path,
		// file_content), str-replace-editor (command, path, old_str_1,
		// new_str_1, old_str_2, new_str_2, ...; new_str in older forms).
		Protocol: pasteref.Protocol{Event: "PreToolUse", Reply: pasteref.UpdatedInput, Tools: []pasteref.Tool{
			{Name: "save-file", Fields: []string{"file_content"}},
			{Name: "str-replace-editor", Fields: []string{"new_str"}, Numbered: true},
		}},
		File:     func(env Env) (string, error) { return env.file("", ".augment", "settings.json") },
		Where:    "~/.augment/settings.json",
		Anchored: true, Timeout: 30000, TimeoutUnit: "milliseconds",
		About: `It answers in Claude Code's form, which Auggie reads: the whole tool input,
expanded, as updatedInput, and no decision, so Auggie asks as it would have;
a bad reference denies the call ("permissionDecision": "deny") with the
reason. The hook may also go in a project's .augment/settings.json.`,
		After:       "Auggie runs the hook from its next session on",
		AfterRemove: "Auggie runs the hook no more from its next session on",
	},
	E2E: E2E{Unavailable: "it starts only signed in to Augment's service, which runs its model; " +
		"no fake model stands in for that service"},
}
