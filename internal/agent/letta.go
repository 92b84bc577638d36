package agent

import "github.com/pbwrap/pbwrap/internal/fileref"

// letta is Letta Code (npm @letta-ai/letta-code). It reads any path without
// asking. Its hook is a PreToolUse hook in its user settings, in Claude
// Code's layout, with its own names in the call (event_type,
// working_directory); it takes a matcher as a regular expression that
// must match the whole tool name, merges the answer's
// hookSpecificOutput.updatedInput into the call, and takes a denial only
// as exit status 2 with the reason on standard error: it reads nothing
// else of a hook's answer, and lets the call through when the hook fails
// otherwise (letta.js, executeHooks).
//
// The rewrite approves nothing: Letta Code decides on a call before it
// runs it (classifyApprovals: checkToolPermission, then the user's
// approval where it asks), on the call as the model wrote it, and runs
// PreToolUse hooks only when it executes the approved call
// (executeToolInner), reading nothing of the answer but updatedInput. So
// where it asks, the user sees the reference, with the file and lines it
// names, and the file it writes, which the expansion does not change.
var letta = &Agent{
	Name: "letta", Title: "Letta Code",
	subcommands: []string{"update", "help"},
	batch:       []string{"-p", "--print"},
	Reads:       "nothing: reads any path",
	Hook: &Hook{
		// Its file tools, as its tool schemas name them: Write (file_path,
		// content), Edit (file_path, old_string, new_string), MultiEdit
		// (file_path, edits[].new_string) and ApplyPatch (input, a patch).
		Protocol: fileref.Protocol{Event: "PreToolUse", Reply: fileref.UpdatedInput, DenyByExit: true,
			Tools: []fileref.Tool{
				{Name: "Write", Fields: []string{"content"}, Target: "file_path"},
				{Name: "Edit", Fields: []string{"new_string"}, Target: "file_path"},
				{Name: "MultiEdit", List: "edits", Item: "new_string", Target: "file_path"},
				{Name: "ApplyPatch", Fields: []string{"input"}, Patch: true},
			}},
		File:    func(env Env) (string, error) { return env.file("", ".letta", "settings.json") },
		Where:   "~/.letta/settings.json",
		Timeout: 30000, TimeoutUnit: "milliseconds",
		About: `It answers in Claude Code's form, which Letta Code reads: the whole tool
input, expanded, as updatedInput. Letta Code takes a denial only from the
exit status: a bad reference exits with status 2 and the reason on standard
error, which blocks the call and reaches the model. Letta Code decides on an
edit, and asks you where its permissions say so, before it runs the hook: you
see the reference, with the file and the lines it names. The hook may also go
in a project's .letta/settings.json.`,
		After:       "Letta Code runs the hook from its next session on",
		AfterRemove: "Letta Code runs the hook no more from its next session on",
	},
	E2E: E2E{Unavailable: "its npm package's dependencies @letta-ai/letta-agent-sdk and @letta-ai/trajectory " +
		"are not served by the registry here, so it does not install"},
}
