package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// opencode asks before reading outside its project: pbwrap allows the
// root as an external directory in OPENCODE_CONFIG_CONTENT, the
// configuration opencode reads from its environment last.
var opencode = &Agent{
	Name: "opencode", Title: "opencode",
	Subcommands: []string{"completion", "acp", "mcp", "attach", "run", "debug", "providers", "auth", "agent",
		"upgrade", "uninstall", "serve", "web", "models", "stats", "export", "import", "github", "session",
		"plugin", "plug", "db"},
	Env:   &Var{Name: "OPENCODE_CONFIG_CONTENT", Value: opencodeConfig},
	Reads: "OPENCODE_CONFIG_CONTENT allowing ROOT/** as an external directory (asks before reading outside the project otherwise)",
	E2E: E2E{
		// A provider for the fake model in OPENCODE_CONFIG_CONTENT (pbwrap
		// adds its permission to that value), models.dev not fetched, no
		// update check.
		Env: map[string]string{
			"OPENCODE_DISABLE_MODELS_FETCH": "1",
			"OPENCODE_DISABLE_AUTOUPDATE":   "1",
			"OPENCODE_CONFIG_CONTENT": mustJSON(map[string]any{
				"provider": map[string]any{"fake": map[string]any{
					"npm": "@ai-sdk/openai-compatible", "name": "fake",
					"options": map[string]any{"baseURL": "{url}/v1", "apiKey": OpenAIKey},
					"models":  map[string]any{"fake-model": map[string]any{"name": "fake-model"}},
				}},
				"model": "fake/fake-model", "autoupdate": false, "share": "disabled",
			}),
		},
		Ready:   "ctrl+p",
		Prompts: []string{"Permission required", "Allow once", "Access external directory"},
	},
}

// opencodeConfig returns the OPENCODE_CONFIG_CONTENT that lets opencode
// read below root without asking: old, the user's own value ("" for none),
// with the rule "ROOT/**": "allow" added as the last of
// permission.external_directory, and nothing else changed. opencode takes
// the last rule that matches, so the rule decides for the root and only
// for it; the other rules, and their order, are the user's. A permission
// given as one action for all ("ask") is written as opencode reads it,
// {"*": "ask"}, so that it still holds for everything else. A value that
// is not a JSON object is an error: pbwrap leaves it to opencode.
func opencodeConfig(old, root string) (string, error) {
	top := jsonc.Object{}
	if strings.TrimSpace(old) != "" {
		var err error
		if top, err = jsonc.ParseObject([]byte(old)); err != nil {
			return "", fmt.Errorf("its value is not a JSON object: %w", err)
		}
	}
	perm, err := opencodeRules(top.Get("permission"))
	if err != nil {
		return "", fmt.Errorf("its permission is not an action or an object: %w", err)
	}
	ext, err := opencodeRules(perm.Get("external_directory"))
	if err != nil {
		return "", fmt.Errorf("its permission.external_directory is not an action or an object: %w", err)
	}
	ext = ext.SetLast(root+"/**", json.RawMessage(`"allow"`))
	perm = perm.Set("external_directory", ext.Marshal())
	return string(top.Set("permission", perm.Marshal()).Marshal()), nil
}

// opencodeRules reads a permission value as opencode does: none (or null)
// is no rule, one action stands for {"*": action}, an object lists rules.
func opencodeRules(v json.RawMessage) (jsonc.Object, error) {
	switch t := bytes.TrimSpace(v); {
	case len(t) == 0 || string(t) == "null":
		return jsonc.Object{}, nil
	case t[0] == '"':
		return jsonc.Object{{Name: "*", Value: t}}, nil
	}
	return jsonc.ParseObject(v)
}
