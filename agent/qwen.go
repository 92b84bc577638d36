package agent

// qwen is Qwen Code. It reads the temporary directory without asking, and
// asks for paths outside its workspace: --include-directories makes the
// root part of the workspace wherever it is.
var qwen = &Agent{
	Name: "qwen", Title: "Qwen Code",
	Subcommands: []string{"mcp", "extensions", "auth", "hooks", "channel", "review", "serve", "sessions",
		"update", "agents"},
	Batch: []string{"-p", "--prompt", "--bg", "--background"},
	Args:  func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
	Reads: "qwen --include-directories ROOT (asks before reading outside its workspace and the temporary directory otherwise)",
	E2E: E2E{
		// OpenAI-compatible auth selected in its settings, OPENAI_BASE_URL,
		// OPENAI_MODEL and a dummy OPENAI_API_KEY; the working directory
		// trusted.
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
		Ready:   "Type your message",
		Prompts: []string{"Allow", "Do you trust", "Yes, allow"},
	},
}
