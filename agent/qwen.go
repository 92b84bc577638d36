package agent

import "github.com/pbwrap/pbwrap/pasteref"

// qwen is Qwen Code. It reads the temporary directory without asking, and
// asks for paths outside its workspace: --include-directories makes the
// root part of the workspace wherever it is.
//
// Its hook is a PermissionRequest hook, the only one of its hooks that can
// rewrite a call: Qwen Code's source (0.24.4, the newest on npm,
// packages/core/src/core/coreToolScheduler.ts and hooks/hookHelpers.ts)
// runs PreToolUse when the call executes, after the user approved it, and
// reads only a block or an ask from its answer, never updatedInput, which
// its documentation promises. PermissionRequest runs where the approval
// dialog would show, and an allow with updatedInput replaces the call's
// input; that allow also answers the dialog, so an edit with a reference
// is made without it. It runs only for a call that reaches that dialog:
// in the "default" approval mode, not in auto-edit and YOLO modes, and in
// the "auto" mode (Qwen Code's own default in a trusted folder, in
// 0.24.4) only when its classifier leaves the call to the user. Elsewhere a
// reference is written as it is; RefUse tells the model so.
var qwen = &Agent{
	Name: "qwen", Title: "Qwen Code",
	Subcommands: []string{"mcp", "extensions", "auth", "hooks", "channel", "review", "serve", "sessions",
		"update", "agents"},
	Batch: []string{"-p", "--prompt", "--bg", "--background"},
	Args:  func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
	Reads: "qwen --include-directories ROOT (asks before reading outside its workspace and the temporary directory otherwise)",
	Hook: &Hook{
		Protocol: pasteref.Protocol{Event: "PermissionRequest", Reply: pasteref.PermissionInput, Tools: []pasteref.Tool{
			{Name: "write_file", Fields: []string{"content"}},
			{Name: "edit", Fields: []string{"new_string"}},
		}},
		// Its file tools refuse what .qwenignore names.
		ReadRules: ignoreFileRules(".qwenignore"),
		File:      func(env Env) (string, error) { return env.file("QWEN_HOME", ".qwen", "settings.json") },
		Where:     "$QWEN_HOME/settings.json, else ~/.qwen/settings.json",
		Anchored:  true, Timeout: 30, TimeoutUnit: "seconds", Comments: true,
		About: `Qwen Code takes a rewritten input only from this hook, which it runs in
place of its approval dialog (its PreToolUse hook runs after the approval
and ignores updatedInput): the answer allows the call with the whole tool
input, expanded, so an edit with a reference is made without the dialog;
one without a reference gets no answer and the dialog as before. Qwen Code
runs the hook only where it would show that dialog: in the "default"
approval mode (qwen --approval-mode default, or tools.approvalMode in its
settings), but not in auto-edit and YOLO modes, nor in "auto" mode, its
own default in a trusted folder, when its classifier approves the edit.
There references stay unexpanded. A bad reference denies the call with
the reason.`,
		RefUse: `When a file write or edit would repeat more than a few lines that already
exist in a file (moving or copying a block, or putting a pasted file into the
repository: {{file:PATH:1:N}} for a paste of N lines), write the reference
instead of retyping the lines. It is expanded only when the user is asked to
approve the edit (Qwen Code's "default" approval mode); an edit approved
without asking (the auto, auto-edit and YOLO modes) writes it as it is: there,
write the text out.
`,
		After:       "Qwen Code runs the hook from its next session on",
		AfterRemove: "Qwen Code runs the hook no more from its next session on",
	},
	E2E: E2E{
		// OpenAI-compatible auth selected in its settings, OPENAI_BASE_URL,
		// OPENAI_MODEL and a dummy OPENAI_API_KEY; the working directory
		// trusted. The write scenario runs in the "default" approval mode,
		// where the hook runs.
		Env: map[string]string{"OPENAI_API_KEY": OpenAIKey, "OPENAI_BASE_URL": "{url}/v1", "OPENAI_MODEL": "fake-model"},
		Files: func(s E2EStart) map[string]string {
			files := map[string]string{".qwen/settings.json": mustJSON(map[string]any{
				"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
				"general":  map[string]any{"disableAutoUpdate": true},
				"privacy":  map[string]any{"usageStatisticsEnabled": false},
			})}
			if s.Trusted {
				files[".qwen/trustedFolders.json"] = mustJSON(map[string]any{s.Work: "TRUST_FOLDER"})
			}
			return files
		},
		WriteArgs: []string{"--approval-mode", "default"},
		Ready:     "Type your message",
		Prompts:   []string{"Allow", "Do you trust", "Yes, allow"},
	},
}
