package agent

// continueCLI is Continue's CLI, cn (npm @continuedev/cli). It reads any
// path without asking, and has no hook that rewrites a tool call. It
// never turns bracketed paste on, so pbwrap types the reference as plain
// keys, which cn takes as typed text.
var continueCLI = &Agent{
	Name: "cn", Title: "Continue CLI",
	subcommands: []string{"ls", "checks", "review", "login", "logout", "serve", "remote"},
	batch:       []string{"-p", "--print"},
	Reads:       "nothing: reads any path",
	E2E: E2E{
		// A config of its own (--config) with one OpenAI-compatible model,
		// the fake one, and no sign-in to Continue's hub.
		Env: map[string]string{"CONTINUE_CLI_DISABLE_TELEMETRY": "1", "CONTINUE_TELEMETRY_ENABLED": "0"},
		Files: func(s E2EStart) map[string]string {
			return map[string]string{".continue/config.yaml": "name: pbwrap-e2e\nversion: 1.0.0\nschema: v1\n" +
				"models:\n  - name: fake-model\n    provider: openai\n    model: fake-model\n" +
				"    apiBase: " + s.URL + "/v1\n    apiKey: " + openAIKey + "\n    roles: [chat, edit, apply]\n    capabilities: [tool_use]\n"}
		},
		Args:    []string{"--config", "{home}/.continue/config.yaml"},
		Ready:   "Ask anything",
		Prompts: []string{"Allow", "Approve", "permission"},
	},
}
