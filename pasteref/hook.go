package pasteref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Actions said to the model when a hook refuses a tool call.
const (
	hookAction = "Tool call denied: nothing was written. Check the path and the line numbers " +
		"(the file's line count) and retry, or write the text out. Do NOT substitute empty content."
)

// hookInput is the part of a PreToolUse hook's input the adapters read;
// Claude Code and Codex send the same names.
type hookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

// hookOutput is a PreToolUse answer.
type hookOutput struct {
	HookSpecificOutput hookDecision `json:"hookSpecificOutput"`
}

type hookDecision struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             any    `json:"updatedInput,omitempty"`
}

// claudeFields are the tool-input fields Claude Code's editing tools write
// into files, by tool.
var claudeFields = map[string][]string{
	"Write":        {"content"},
	"Edit":         {"new_string"},
	"NotebookEdit": {"new_source"},
}

// ClaudeHook answers one Claude Code PreToolUse call, given the JSON Claude
// Code writes to the hook's standard input. For Write (content), Edit
// (new_string), MultiEdit (edits[].new_string) and NotebookEdit
// (new_source) it expands references:
//
//   - no reference, or another tool or event: out is empty, and the call
//     goes on unchanged;
//   - every reference expands: out carries the whole tool input as
//     updatedInput and no permission decision, so that Claude Code's own
//     permission flow decides as it would have (an edit that would have
//     asked the user still asks: nothing is widened);
//   - a reference fails: out denies the call, with the report as the reason,
//     which the model sees.
//
// Fields other than those are passed back byte for byte. err is returned
// only for input that is not a PreToolUse call at all (not JSON); the
// caller must then block the call rather than let an unexpanded reference
// through.
func ClaudeHook(in []byte) (out []byte, err error) {
	var req hookInput
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if req.HookEventName != "" && req.HookEventName != "PreToolUse" {
		return nil, nil
	}
	fields, ok := claudeFields[req.ToolName]
	if !ok && req.ToolName != "MultiEdit" {
		return nil, nil
	}
	var input map[string]json.RawMessage
	if err := json.Unmarshal(req.ToolInput, &input); err != nil {
		return nil, fmt.Errorf("hook input: tool_input of %s: %w", req.ToolName, err)
	}
	changed, err := expandFields(input, fields)
	if err == nil && req.ToolName == "MultiEdit" {
		changed, err = expandEdits(input)
	}
	var perr *Error
	switch {
	case errors.As(err, &perr):
		return deny(perr.Report(hookAction))
	case err != nil:
		return nil, fmt.Errorf("hook input: %s: %w", req.ToolName, err)
	case !changed:
		return nil, nil
	}
	return encode(hookOutput{hookDecision{HookEventName: "PreToolUse", UpdatedInput: input}})
}

// expandFields expands the named string fields of input in place and
// reports whether any changed.
func expandFields(input map[string]json.RawMessage, fields []string) (bool, error) {
	changed := false
	for _, name := range fields {
		raw, ok := input[name]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return false, fmt.Errorf("%s is not a string", name)
		}
		if !Contains([]byte(s)) {
			continue
		}
		out, err := Expand([]byte(s))
		if err != nil {
			return false, err
		}
		if input[name], err = marshal(string(out)); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// expandEdits expands new_string in each of MultiEdit's edits.
func expandEdits(input map[string]json.RawMessage) (bool, error) {
	raw, ok := input["edits"]
	if !ok {
		return false, nil
	}
	var edits []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &edits); err != nil {
		return false, fmt.Errorf("edits is not a list of objects")
	}
	changed := false
	for _, edit := range edits {
		c, err := expandFields(edit, []string{"new_string"})
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	if !changed {
		return false, nil
	}
	var err error
	input["edits"], err = marshal(edits)
	return true, err
}

// CodexHook answers one Codex PreToolUse call for apply_patch, whose input
// is {"command": PATCH}. A reference in a patch must be a whole added line,
// "+{{file:/abs/path:START:END}}", and becomes one added line per line of
// the range (see ExpandPatch).
//
//   - no reference, or another tool or event: out is empty;
//   - every reference expands: out rewrites the patch. Codex accepts a
//     rewrite only with permissionDecision "allow", which in Codex carries
//     the rewrite and nothing else: the rewritten patch still goes through
//     its approval policy and sandbox, so nothing is widened;
//   - a reference fails: out denies the call with the report as the reason.
func CodexHook(in []byte) (out []byte, err error) {
	var req hookInput
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if (req.HookEventName != "" && req.HookEventName != "PreToolUse") || req.ToolName != "apply_patch" {
		return nil, nil
	}
	var input map[string]json.RawMessage
	if err := json.Unmarshal(req.ToolInput, &input); err != nil {
		return nil, fmt.Errorf("hook input: tool_input of apply_patch: %w", err)
	}
	var patch string
	if err := json.Unmarshal(input["command"], &patch); err != nil {
		return nil, fmt.Errorf("hook input: apply_patch command is not a string")
	}
	if !Contains([]byte(patch)) {
		return nil, nil
	}
	expanded, err := ExpandPatch([]byte(patch))
	var perr *Error
	if errors.As(err, &perr) {
		return deny(perr.Report(hookAction))
	}
	if err != nil {
		return nil, err
	}
	if input["command"], err = marshal(string(expanded)); err != nil {
		return nil, err
	}
	return encode(hookOutput{hookDecision{HookEventName: "PreToolUse", PermissionDecision: "allow", UpdatedInput: input}})
}

func deny(reason string) ([]byte, error) {
	return encode(hookOutput{hookDecision{
		HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: reason,
	}})
}

// marshal encodes v as JSON without HTML escaping: file content goes back
// exactly as it was.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func encode(v any) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
