package fileref

// The protocols the tests of the mechanism run calls through: one that
// rewrites edits (UpdatedInput, plain fields and a list of objects), one
// that expands patches (AllowedInput) and one with a read (Reads). They
// are shapes, not agents: the agents' own protocols are the registry's, in
// package agent, and their wire formats are tested there against each
// agent's golden calls (agent/testdata/hook/AGENT).
var (
	writeProto = Protocol{Event: "PreToolUse", Reply: UpdatedInput, Tools: []Tool{
		{Name: "Write", Fields: []string{"content"}},
		{Name: "Edit", Fields: []string{"new_string"}},
		{Name: "MultiEdit", List: "edits", Item: "new_string"},
		{Name: "NotebookEdit", Fields: []string{"new_source"}},
	}}
	patchProto = Protocol{Event: "PreToolUse", Reply: AllowedInput, Tools: []Tool{
		{Name: "apply_patch", Fields: []string{"command"}, Patch: true},
	}}
	readProto = Protocol{Event: "PreToolUse", Reply: UpdatedInput, Tools: []Tool{
		{Name: "write", Fields: []string{"content"}},
	}, Reads: []Tool{{Name: "view", Fields: []string{"file_path"}}}}
)

// writeHook, patchHook and readHook answer a call of their protocol with
// dirs as the paste roots.
func writeHook(in []byte, dirs []string) ([]byte, error) { return answerIn(&writeProto, in, dirs) }
func patchHook(in []byte, dirs []string) ([]byte, error) { return answerIn(&patchProto, in, dirs) }
func readHook(in []byte, dirs []string) ([]byte, error)  { return answerIn(&readProto, in, dirs) }
