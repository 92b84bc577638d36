package pasteref

// The tests' protocols are shaped like the agents' (the registry in
// package agent holds the real ones, and its tests run each through
// Answer): one of each Reply, a list of objects, a patch.
var (
	claudeProto = Protocol{Event: "PreToolUse", Reply: UpdatedInput, Tools: []Tool{
		{Name: "Write", Fields: []string{"content"}},
		{Name: "Edit", Fields: []string{"new_string"}},
		{Name: "MultiEdit", List: "edits", Item: "new_string"},
		{Name: "NotebookEdit", Fields: []string{"new_source"}},
	}}
	codexProto = Protocol{Event: "PreToolUse", Reply: AllowedInput, Tools: []Tool{
		{Name: "apply_patch", Fields: []string{"command"}, Patch: true},
	}}
	geminiProto = Protocol{Event: "BeforeTool", Reply: ToolInput, Tools: []Tool{
		{Name: "write_file", Fields: []string{"content"}},
		{Name: "replace", Fields: []string{"new_string"}},
	}}
	// Qwen Code's PermissionRequest (0.24.4), crush's PreToolUse with its
	// view tool among the reads. Their golden inputs (testdata/hook/qwen-*,
	// crush-*) are the calls as each sends them: for Qwen Code, the common
	// fields its hook runner adds (packages/core/src/hooks/hookEventHandler.ts)
	// and those of firePermissionRequestHook, the tools' parameters from
	// its edit and write_file schemas; for crush, hooks.BuildPayload
	// (internal/hooks/input.go: "event", not "hook_event_name") and the
	// parameters of internal/agent/tools/{write,edit,multiedit,view}.go, as
	// docs/hooks/README.md shows them.
	qwenProto = Protocol{Event: "PermissionRequest", Reply: PermissionInput, Tools: []Tool{
		{Name: "write_file", Fields: []string{"content"}},
		{Name: "edit", Fields: []string{"new_string"}},
	}}
	crushProto = Protocol{Event: "PreToolUse", Reply: UpdatedInput, Tools: []Tool{
		{Name: "write", Fields: []string{"content"}},
		{Name: "edit", Fields: []string{"new_string"}},
		{Name: "multiedit", List: "edits", Item: "new_string"},
	}, Reads: []Tool{{Name: "view", Fields: []string{"file_path"}}}}
	piProto = Protocol{Event: "tool_call", Reply: ToolInput, Tools: []Tool{
		{Name: "write", Fields: []string{"content"}},
		{Name: "edit", Fields: []string{"newText"}, List: "edits", Item: "newText"},
	}}
	// Copilot CLI: the call as its SDK's hook documentation shows it
	// (docs.github.com/en/copilot/how-tos/copilot-sdk/use-hooks/pre-tool-use:
	// timestamp, cwd, toolName, toolArgs an object; the answer's
	// permissionDecision, permissionDecisionReason, modifiedArgs) and as
	// its command hooks' reference shows it (toolArgs a JSON string:
	// copilot-stringargs); the tools' fields from its tool schemas
	// (create: path, file_text; edit: path, old_str, new_str).
	copilotProto = Protocol{Event: "preToolUse", Reply: ModifiedArgs, Tools: []Tool{
		{Name: "create", Fields: []string{"file_text"}},
		{Name: "edit", Fields: []string{"new_str"}},
	}}
	// opencode: the call pbwrap's plugin builds from the hook
	// tool.execute.before(input, output), input.tool and output.args,
	// the arguments as opencode's tool schemas name them (write: content,
	// filePath; edit: filePath, oldString, newString, replaceAll;
	// apply_patch: patchText, its example patch).
	opencodeProto = Protocol{Event: "tool.execute.before", Reply: ToolInput, Tools: []Tool{
		{Name: "write", Fields: []string{"content"}},
		{Name: "edit", Fields: []string{"newString"}},
		{Name: "apply_patch", Fields: []string{"patchText"}, Patch: true},
	}}
)

// The agents added in issue 39, their calls as each bundle builds them
// (testdata/hook/cline-*, auggie-*, droid-*, letta-*): Cline 3.0.65's
// @cline/core hook payload (hookName "tool_call", tool_call, preToolUse,
// workspaceRoots) and its editor and apply_patch schemas; Auggie 0.36's
// PreToolUse event (workspace_roots, is_mcp_tool) and its save-file,
// str-replace-editor and apply_patch schemas; Droid 0.215's PreToolUse
// input (Claude Code's names) and its Create, Edit (one change, or a list
// of changes) and ApplyPatch schemas; Letta Code
// 0.32's (event_type, working_directory) and its Write, Edit, MultiEdit
// and ApplyPatch schemas.
var (
	clineProto = Protocol{Event: "PreToolUse", Reply: OverrideInput, Tools: []Tool{
		{Name: "editor", Fields: []string{"new_text"}, Target: "path"},
		{Name: "apply_patch", Fields: []string{"input"}, Patch: true},
	}}
	auggieProto = Protocol{Event: "PreToolUse", Reply: UpdatedInput, Tools: []Tool{
		{Name: "save-file", Fields: []string{"file_content"}, Target: "path"},
		{Name: "str-replace-editor", Fields: []string{"new_str"}, Numbered: true, Target: "path"},
		{Name: "apply_patch", Fields: []string{"input"}, Patch: true},
	}}
	droidProto = Protocol{Event: "PreToolUse", Reply: UpdatedInput, Tools: []Tool{
		{Name: "Create", Fields: []string{"content"}, Target: "file_path"},
		{Name: "Edit", Fields: []string{"new_str"}, List: "changes", Item: "new_str", Target: "file_path"},
		{Name: "ApplyPatch", Fields: []string{"input"}, Patch: true},
	}}
	lettaProto = Protocol{Event: "PreToolUse", Reply: UpdatedInput, DenyByExit: true, Tools: []Tool{
		{Name: "Write", Fields: []string{"content"}, Target: "file_path"},
		{Name: "Edit", Fields: []string{"new_string"}, Target: "file_path"},
		{Name: "MultiEdit", List: "edits", Item: "new_string", Target: "file_path"},
		{Name: "ApplyPatch", Fields: []string{"input"}, Patch: true},
	}}
)

func ClaudeHook(in []byte, dirs []string) ([]byte, error)   { return claudeProto.Answer(in, dirs) }
func CodexHook(in []byte, dirs []string) ([]byte, error)    { return codexProto.Answer(in, dirs) }
func GeminiHook(in []byte, dirs []string) ([]byte, error)   { return geminiProto.Answer(in, dirs) }
func PiHook(in []byte, dirs []string) ([]byte, error)       { return piProto.Answer(in, dirs) }
func CopilotHook(in []byte, dirs []string) ([]byte, error)  { return copilotProto.Answer(in, dirs) }
func QwenHook(in []byte, dirs []string) ([]byte, error)     { return qwenProto.Answer(in, dirs) }
func CrushHook(in []byte, dirs []string) ([]byte, error)    { return crushProto.Answer(in, dirs) }
func OpencodeHook(in []byte, dirs []string) ([]byte, error) { return opencodeProto.Answer(in, dirs) }
func ClineHook(in []byte, dirs []string) ([]byte, error)    { return clineProto.Answer(in, dirs) }
func AuggieHook(in []byte, dirs []string) ([]byte, error)   { return auggieProto.Answer(in, dirs) }
func DroidHook(in []byte, dirs []string) ([]byte, error)    { return droidProto.Answer(in, dirs) }
func LettaHook(in []byte, dirs []string) ([]byte, error)    { return lettaProto.Answer(in, dirs) }
