package agent

import "github.com/pbwrap/pbwrap/internal/fileref"

// qwen is Qwen Code. It reads the temporary directory without asking, and
// asks for paths outside its workspace: --include-directories makes the
// root part of the workspace wherever it is.
//
// Its hook cannot expand a reference without deciding for the user.
// Qwen Code's source (0.24.4, the newest on npm, coreToolScheduler and
// hooks/hookHelpers) runs PreToolUse after the user approved the call
// and reads only a block or an ask from its answer, never updatedInput;
// PermissionRequest, the one hook that can rewrite a call, runs in place
// of the approval dialog and takes a rewrite only with "behavior":
// "allow", which answers that dialog: the edit is made without the user
// seeing it (an "ask" there is taken as a denial). So pbwrap's hook
// (PermissionRequest, where that dialog would show) refuses an edit with
// a reference, with the reason, and the model writes the text out, which
// the user is asked about as before; an edit without one gets no answer.
// refUse tells the model so. In the auto-edit and YOLO modes, and when the
// "auto" mode's classifier approves, Qwen Code runs no such hook.
var qwen = &Agent{
	Name: "qwen", Title: "Qwen Code",
	subcommands: []string{"mcp", "extensions", "auth", "hooks", "channel", "review", "serve", "sessions",
		"update", "agents"},
	batch: []string{"-p", "--prompt", "--bg", "--background"},
	Args:  func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
	Reads: "qwen --include-directories ROOT (asks before reading outside its workspace and the temporary directory otherwise)",
	Hook: &Hook{
		Protocol: fileref.Protocol{Event: "PermissionRequest", Reply: fileref.PermissionInput, Approves: true, Tools: []fileref.Tool{
			{Name: "write_file", Fields: []string{"content"}, Target: "file_path"},
			{Name: "edit", Fields: []string{"new_string"}, Target: "file_path"},
		}},
		File:     func(env Env) (string, error) { return env.file("QWEN_HOME", ".qwen", "settings.json") },
		Where:    "$QWEN_HOME/settings.json, else ~/.qwen/settings.json",
		anchored: true, Timeout: 30, TimeoutUnit: "seconds", comments: true,
		About: `Qwen Code takes a rewritten input only from this hook, which it runs in
place of its approval dialog, and only together with an approval that answers
that dialog (its PreToolUse hook runs after the approval and ignores
updatedInput): an expanded edit would be made without asking you. So the hook
refuses an edit with a reference, with the reason, and the model writes the
text out, which Qwen Code asks you about as before; an edit without one gets
no answer. It runs only where Qwen Code would show the dialog (the "default"
approval mode, or "auto" when its classifier leaves the call to you).`,
		refUse: `Do not write {{file:...}} references in your edits here: Qwen Code cannot
expand them without skipping the user's approval of the edit, so an edit with
a reference is refused. Write the text out.
`,
		After:       "Qwen Code runs the hook from its next session on",
		AfterRemove: "Qwen Code runs the hook no more from its next session on",
	},
	E2E: E2E{
		// OpenAI-compatible auth selected in its settings, OPENAI_BASE_URL,
		// OPENAI_MODEL and a dummy OPENAI_API_KEY; the working directory
		// trusted. The write scenario runs in the "default" approval mode,
		// where the hook runs.
		Env: map[string]string{"OPENAI_API_KEY": openAIKey, "OPENAI_BASE_URL": "{url}/v1", "OPENAI_MODEL": "fake-model"},
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
