package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fileref"
	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// opencode asks before reading outside its project: pbwrap allows the
// root as an external directory in OPENCODE_CONFIG_CONTENT, the
// configuration opencode reads from its environment last. It runs hooks
// from plugins, code it loads, so pbwrap's hook for it is a plugin of
// pbwrap's, which runs pbwrap hook opencode from its tool.execute.before
// hook.
var opencode = &Agent{
	Name: "opencode", Title: "opencode",
	subcommands: []string{"completion", "acp", "mcp", "attach", "run", "debug", "providers", "auth", "agent",
		"upgrade", "uninstall", "serve", "web", "models", "stats", "export", "import", "github", "session",
		"plugin", "plug", "db"},
	Env:   &Var{Name: "OPENCODE_CONFIG_CONTENT", Value: opencodeConfig},
	Reads: "OPENCODE_CONFIG_CONTENT allowing ROOT/** as an external directory (asks before reading outside the project otherwise)",
	Hook: &Hook{
		// The tools and their fields as opencode's tool schemas name them:
		// write (filePath, content), edit (filePath, oldString, newString,
		// replaceAll), and apply_patch (patchText), which GPT models get
		// instead of edit and write.
		Protocol: fileref.Protocol{Event: "tool.execute.before", Reply: fileref.ToolInput, Tools: []fileref.Tool{
			{Name: "write", Fields: []string{"content"}, Target: "filePath"},
			{Name: "edit", Fields: []string{"newString"}, Target: "filePath"},
			{Name: "apply_patch", Fields: []string{"patchText"}, Patch: true},
		}},
		// Its read tool asks, or refuses, what its permission.read rules
		// say (opencode_rules.go).
		ReadRules:  opencodeReadRules,
		RulesAbout: `opencode's permission.read rules, its default "ask" for .env files included`,
		File: func(env Env) (string, error) {
			return env.file("XDG_CONFIG_HOME", ".config", filepath.Join("opencode", "plugin", "pbwrap.js"))
		},
		Where:     "$XDG_CONFIG_HOME/opencode/plugin/pbwrap.js, else ~/.config/opencode/plugin/pbwrap.js",
		Extension: &Extension{Text: opencodePlugin, call: "spawn("},
		About: `It speaks the protocol of Gemini CLI's hook, from the
tool.execute.before hook of a small opencode plugin, which replaces the
tool's arguments with the answer, or throws the reason, which stops the call
and reaches the model: pbwrap help agents opencode-extension prints the
plugin.`,
		After:       "opencode loads the plugin from its next start on",
		AfterRemove: "opencode runs the plugin no more from its next start on",
	},
	E2E: E2E{
		// A provider for the fake model in OPENCODE_CONFIG_CONTENT (pbwrap
		// adds its permission to that value), a model that takes images
		// (opencode drops a pasted image for one that does not), models.dev
		// not fetched, no update check.
		Env: map[string]string{
			"OPENCODE_DISABLE_MODELS_FETCH": "1",
			"OPENCODE_DISABLE_AUTOUPDATE":   "1",
			// JSON written out, not marshalled: a package variable is made at
			// the start of every pbwrap process.
			"OPENCODE_CONFIG_CONTENT": `{"provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake", ` +
				`"options": {"baseURL": "{url}/v1", "apiKey": "` + openAIKey + `"}, ` +
				`"models": {"fake-model": {"name": "fake-model", "attachment": true, ` +
				`"modalities": {"input": ["text", "image"], "output": ["text"]}}}}}, ` +
				`"model": "fake/fake-model", "autoupdate": false, "share": "disabled"}`,
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

// opencodePlugin is pbwrap's opencode plugin: from opencode's
// tool.execute.before hook, which may change a call's arguments in place or
// stop the call by throwing, it runs pbwrap hook opencode on write, edit and
// apply_patch calls with a reference. opencode runs the tool with the very
// object it hands the hook as output.args, so the plugin changes that
// object's members rather than replacing it.
const opencodePlugin = `// pbwrap's opencode plugin: expands {{file:/absolute/path:START:END}}
// references in write, edit and apply_patch calls before they run, with
// "pbwrap hook opencode". A reference that does not expand stops the call,
// with the reason, and nothing is written. Save it as
// ~/.config/opencode/plugin/pbwrap.js (pbwrap help agents opencode-extension
// prints it), then start opencode again.
import { spawn } from "node:child_process";

const tools = ["write", "edit", "apply_patch"];

// hook runs pbwrap hook opencode with the call on its standard input.
function hook(call, cwd) {
  return new Promise((resolve) => {
    const child = spawn("pbwrap", ["hook", "opencode"], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s) => (stderr += s));
    child.on("error", (err) => resolve({ code: -1, stdout, stderr: String(err) }));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(call);
  });
}

export const PbwrapPlugin = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (!tools.includes(input.tool)) return;
    if (!JSON.stringify(output.args).includes("{{file:")) return;
    const call = { hook_event_name: "tool.execute.before", tool_name: input.tool, tool_input: output.args, cwd: directory };
    const r = await hook(JSON.stringify(call), directory);
    if (r.code !== 0) {
      throw new Error(r.stderr.trim() || "pbwrap hook opencode failed (exit status " + r.code + ")");
    }
    if (r.stdout.trim() === "") return;
    const answer = JSON.parse(r.stdout);
    if (answer.decision === "deny") throw new Error(answer.reason);
    const args = answer.hookSpecificOutput?.tool_input;
    if (typeof args !== "object" || args === null) {
      throw new Error("pbwrap hook opencode gave no tool_input");
    }
    // opencode runs the tool with output.args: replace its members in place.
    for (const key of Object.keys(output.args)) delete output.args[key];
    Object.assign(output.args, args);
  },
});
`
