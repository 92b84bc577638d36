package agent

import (
	"path/filepath"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// cline is Cline's CLI (npm cline, 3.x). It reads any path without asking.
// Its hooks are programs it finds by their names in its hooks directories
// (~/.cline/hooks/PreToolUse), run on every tool call before its approval,
// with the call on standard input; an answer's overrideInput replaces the
// call's input (@cline/core's hook runner). So pbwrap's hook for it is a
// small shell script of pbwrap's that runs pbwrap hook cline.
//
// The rewrite approves nothing (3.0.65's bundle): the hook file's answer
// is read into {cancel, review, context, overrideInput} and turned into
// the runtime hook's {stop, reason, appendContext, input}, with no policy
// (Up0); the agent's prepareToolExecution replaces the call's input with
// it and then applies its tool policy as before, asking through
// requestToolApproval when autoApprove is off, with the expanded input.
var cline = &Agent{
	Name: "cline", Title: "Cline",
	subcommands: []string{"auth", "config", "plugin", "skill", "connect", "mcp", "doctor", "history", "h", "hook",
		"schedule", "hub", "dashboard", "update", "version", "kanban"},
	batch: []string{"--json", "--acp"},
	Reads: "nothing: reads any path",
	Hook: &Hook{
		// The tools and their fields as @cline/core's schemas name them:
		// editor (path, the file it writes, old_text, new_text,
		// insert_line) and apply_patch (input, a patch).
		Protocol: fileref.Protocol{Event: "PreToolUse", Reply: fileref.OverrideInput, Tools: []fileref.Tool{
			{Name: "editor", Fields: []string{"new_text"}, Target: "path"},
			{Name: "apply_patch", Fields: []string{"input"}, Patch: true},
		}},
		File: func(env Env) (string, error) {
			return env.file("CLINE_DIR", ".cline", filepath.Join("hooks", "PreToolUse"))
		},
		Where:     "$CLINE_DIR/hooks/PreToolUse, else ~/.cline/hooks/PreToolUse",
		Extension: &Extension{Text: clineHookScript, call: "exec ", Shell: true},
		About: `Cline runs the script, a file of pbwrap's in its hooks
directory, on every tool call, before it asks for approval. It answers
Cline's form: the whole tool input, expanded, as overrideInput, and nothing
else, so Cline approves the call as it would have. Cline cannot deny one call:
a bad reference cancels the call and ends the turn, with the reason. Cline's
editor refuses a new_text over 6000 characters, a reference's expansion
included: a longer text goes in with apply_patch. pbwrap help agents
cline-extension prints the script.`,
		refUse: `When a file write or edit would repeat more than a few lines that already
exist in a file (moving or copying a block, or putting a pasted file into the
repository: {{file:PATH:1:N}} for a paste of N lines), write the reference
instead of retyping the lines. It is expanded before the edit is applied.
The editor tool refuses a new_text of more than 6000 characters once
expanded: for more, use apply_patch with the reference as a whole added line
of its own, +{{file:/absolute/path:START:END}}, which becomes one added line
per line of the range.
`,
		After:       "Cline runs the hook from its next start on",
		AfterRemove: "Cline runs the hook no more from its next start on",
	},
	E2E: E2E{
		// The OpenAI-compatible provider pointed at the fake model, as
		// "cline auth -p openai -b URL -k KEY -m MODEL" records it, under a
		// name with "gpt" in it, for which Cline offers apply_patch instead
		// of its editor, whose 6000-character limit the paste passes; no
		// ClinePass notice, no update check. It still starts its hub daemon,
		// which outlives it (the suite ends it).
		Env: map[string]string{
			"CLINE_DISABLE_CLINE_PASS_NOTICE": "1",
			"CLINE_NO_AUTO_UPDATE":            "1",
		},
		Files: func(s E2EStart) map[string]string {
			return map[string]string{".cline/data/settings/providers.json": mustJSON(map[string]any{
				"version": 1, "lastUsedProvider": "openai-compatible", "modes": map[string]any{},
				"providers": map[string]any{"openai-compatible": map[string]any{
					"settings": map[string]any{"provider": "openai-compatible", "apiKey": openAIKey,
						"model": "fake-gpt-model", "baseUrl": s.URL + "/v1"},
					"updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual", // Without a date it asks for a provider.
				}},
			})}
		},
		PatchDropsLastNewline: true,
		Ready:                 "Auto-approve",
		Prompts:               []string{"Approve", "Reject", "Allow"},
	},
}

// clineHookScript is pbwrap's hook for Cline: a shell script, which Cline
// runs with the interpreter its first line names, that hands the call to
// pbwrap hook cline.
const clineHookScript = `#!/bin/sh
# pbwrap's Cline hook: expands {{file:/absolute/path:START:END}} references in
# editor and apply_patch calls before they run, with "pbwrap hook cline". A
# reference that does not expand cancels the call, with the reason, and
# nothing is written. Save it as ~/.cline/hooks/PreToolUse (pbwrap help agents
# cline-extension prints it), then start Cline again.
exec pbwrap hook cline
`
