package pasteref

import (
	"encoding/json"
	"errors"
	"fmt"
)

// beforeTool is a hook protocol in the shape of Gemini CLI's BeforeTool
// hooks: the call comes as {"hook_event_name", "tool_name", "tool_input",
// "cwd"}; the answer either replaces the tool input whole,
// {"hookSpecificOutput": {"hookEventName": EVENT, "tool_input": {...}}},
// or denies the call, {"decision": "deny", "reason": "..."}.
type beforeTool struct {
	event  string              // the hook_event_name it answers; a call without one is taken too
	fields map[string][]string // by tool, the string members written into files
	lists  map[string]listItem // by tool, a list of objects whose string member is written into files
}

// listItem names a list member and the string member of its objects.
type listItem struct{ list, name string }

// geminiTools are Gemini CLI's editing tools: write_file writes content,
// replace writes new_string.
var geminiTools = beforeTool{
	event:  "BeforeTool",
	fields: map[string][]string{"write_file": {"content"}, "replace": {"new_string"}},
}

// piTools are Pi's editing tools, as its tool_call event shows their input:
// write writes content, edit each of edits[].newText (and newText, the
// single edit of older calls).
var piTools = beforeTool{
	event:  "tool_call",
	fields: map[string][]string{"write": {"content"}, "edit": {"newText"}},
	lists:  map[string]listItem{"edit": {"edits", "newText"}},
}

// GeminiHook answers one Gemini CLI BeforeTool call, given the JSON Gemini
// CLI writes to the hook's standard input. For write_file (content) and
// replace (new_string) it expands references:
//
//   - no reference, or another tool or event: out is empty, and the call
//     goes on unchanged;
//   - every reference expands: out carries the whole tool input, expanded,
//     as hookSpecificOutput.tool_input, and no decision. Gemini CLI builds
//     the call anew from that object alone, so every member of the input
//     is in it, unchanged but the expanded ones; its policy then decides
//     as it would have (an edit that would have asked still asks);
//   - a reference fails: out denies the call ("decision": "deny"), with the
//     report as the reason, which the model sees.
//
// The input limit, the scope, the rules for links and the limits of one
// call are ClaudeHook's. err is returned only for input that is not a
// hook call at all (not JSON); the caller must then block the call.
func GeminiHook(in []byte, dirs []string) (out []byte, err error) {
	return geminiTools.answer(in, dirs)
}

// PiHook answers one call of pbwrap's Pi extension, which runs it from
// Pi's tool_call event: the same protocol as GeminiHook, with
// hook_event_name "tool_call" and Pi's editing tools, write (content) and
// edit (edits[].newText). The extension replaces the tool's input with
// tool_input, or blocks the call with the reason.
func PiHook(in []byte, dirs []string) (out []byte, err error) {
	return piTools.answer(in, dirs)
}

// answer answers one call: nothing, the expanded input, or a denial.
func (p beforeTool) answer(in []byte, dirs []string) ([]byte, error) {
	if len(in) > MaxHookInput {
		return p.deny(inputTooLarge())
	}
	var req hookInput
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	names, isField := p.fields[req.ToolName]
	item, isList := p.lists[req.ToolName]
	if req.HookEventName != "" && req.HookEventName != p.event || !isField && !isList {
		return nil, nil
	}
	input, fields, err := p.input(req, names, item)
	if err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if len(fields) == 0 {
		return nil, nil
	}
	var perr *Error
	switch err := expandFields(req.Cwd, dirs, fields); {
	case errors.As(err, &perr):
		return p.deny(perr)
	case err != nil:
		return nil, fmt.Errorf("hook input: %s: %w", req.ToolName, err)
	}
	return p.replace(input, len(in)+answerSize(fields))
}

// input parses the call's tool input and lists its fields that have
// references.
func (p beforeTool) input(req hookInput, names []string, item listItem) (*object, []field, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(req.ToolInput, &members); err != nil {
		return nil, nil, fmt.Errorf("tool_input of %s: %w", req.ToolName, err)
	}
	input := newObject(members)
	fields, err := stringFields(input, names)
	if err == nil && item.list != "" {
		var more []field
		more, err = listFields(input, item.list, item.name)
		fields = append(fields, more...)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", req.ToolName, err)
	}
	return input, fields, nil
}

// replace is the answer that replaces the tool input with input, written
// as answer writes updatedInput.
func (p beforeTool) replace(input *object, size int) ([]byte, error) {
	b := make([]byte, 0, size+128)
	b = append(b, `{"hookSpecificOutput":{"hookEventName":`...)
	b = appendString(b, []byte(p.event))
	b = append(b, `,"tool_input":`...)
	b, err := input.appendTo(b)
	if err != nil {
		return nil, err
	}
	return append(b, "}}\n"...), nil
}

// beforeToolDenial is the answer that denies a call.
type beforeToolDenial struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// deny answers with the call denied, the report of e as the reason.
func (p beforeTool) deny(e *Error) ([]byte, error) {
	return encode(beforeToolDenial{Decision: "deny", Reason: e.Report(hookAction)})
}
