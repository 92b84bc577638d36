package agent

import "github.com/pbwrap/pbwrap/internal/fileref"

// auggie is Augment's CLI, Auggie (npm @augmentcode/auggie, 0.x). It reads
// any path without asking. Its hook is a PreToolUse hook in its user
// settings, in Claude Code's form (the answer's updatedInput replaces the
// call's input); it sends the working directory as the first of
// workspace_roots, and matches a matcher as a regular expression searched
// for in the tool's name (augment.mjs).
//
// The rewrite approves nothing (0.36.0's augment.mjs): executeParallelTools
// and executeSequentialTools run the hook, take its updatedInput as the
// call's input, and hand that to toolsModel.callTool, which applies the
// tool permissions (nwe: deny, ask-user, ...) to it and asks the user
// there; the hook's permissionDecision is only routed into messages (a
// "deny" stops the call).
var auggie = &Agent{
	Name: "auggie", Title: "Auggie",
	subcommands: []string{"login", "logout", "account", "tokens", "mcp", "plugin", "plugins", "session", "sessions",
		"tools", "command", "commands", "model", "models", "upgrade", "completion", "help"},
	batch: []string{"-p", "--print", "--mcp", "--acp"},
	Reads: "nothing: reads any path",
	Hook: &Hook{
		// Its file tools, as its tool schemas name them (augment.mjs):
		// save-file (path, file_content), str-replace-editor (command,
		// path, old_str_1, new_str_1, old_str_2, new_str_2, ...; new_str in
		// older forms) and apply_patch (input, a patch). path is the file
		// the call writes, relative to the workspace root, which is the
		// first of the call's workspace_roots.
		Protocol: fileref.Protocol{Event: "PreToolUse", Reply: fileref.UpdatedInput, Tools: []fileref.Tool{
			{Name: "save-file", Fields: []string{"file_content"}, Target: "path"},
			{Name: "str-replace-editor", Fields: []string{"new_str"}, Numbered: true, Target: "path"},
			{Name: "apply_patch", Fields: []string{"input"}, Patch: true},
		}},
		File:     func(env Env) (string, error) { return env.file("", ".augment", "settings.json") },
		Where:    "~/.augment/settings.json",
		anchored: true, Timeout: 30000, TimeoutUnit: "milliseconds",
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
