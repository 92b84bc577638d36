package pasteref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"github.com/pbwrap/pbwrap/internal/fsutil"
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
	Cwd           string          `json:"cwd"`
}

// ErrOutsideScope: a hook expands only files under the agent's working
// directory and the directories it is given (pbwrap's paste root). The
// hook runs with all of the user's rights, outside the agent's sandbox and
// its read rules; without this an agent could copy any file it may not
// read (~/.ssh/id_ed25519) into one it may, and read it there.
var ErrOutsideScope = errors.New("outside the working directory and pbwrap's paste root")

// ErrNotText: the hook protocols carry text as JSON strings, which cannot
// hold bytes that are not UTF-8; they would reach the file as U+FFFD.
var ErrNotText = errors.New("the lines are not valid UTF-8 text, which a hook cannot pass on intact")

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
// Only files under the call's working directory (cwd) or under one of
// dirs are expanded (ErrOutsideScope), after resolving symbolic links, and
// only text that is valid UTF-8 (ErrNotText).
//
// Fields other than those are passed back byte for byte. err is returned
// only for input that is not a PreToolUse call at all (not JSON); the
// caller must then block the call rather than let an unexpanded reference
// through.
func ClaudeHook(in []byte, dirs []string) (out []byte, err error) {
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
	scope := newScope(req.Cwd, dirs)
	changed, err := expandFields(input, fields, scope)
	if err == nil && req.ToolName == "MultiEdit" {
		changed, err = expandEdits(input, scope)
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
func expandFields(input map[string]json.RawMessage, fields []string, scope scope) (bool, error) {
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
		out, err := scope.expand([]byte(s), Expand)
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
func expandEdits(input map[string]json.RawMessage, scope scope) (bool, error) {
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
		c, err := expandFields(edit, []string{"new_string"}, scope)
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
//
// The scope is the same as ClaudeHook's.
func CodexHook(in []byte, dirs []string) (out []byte, err error) {
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
	expanded, err := newScope(req.Cwd, dirs).expand([]byte(patch), ExpandPatch)
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

// scope is the directories a hook may expand files from, symbolic links
// resolved.
type scope []string

func newScope(cwd string, dirs []string) scope {
	var s scope
	for _, d := range append([]string{cwd}, dirs...) {
		if !filepath.IsAbs(d) {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		s = append(s, filepath.Clean(d))
	}
	return s
}

// expand checks that every reference in src names a file in scope, then
// expands src with expand, and checks that the result is text.
func (s scope) expand(src []byte, expand func([]byte) ([]byte, error)) ([]byte, error) {
	toks, _ := lex(src) // A malformed reference is expand's to report.
	for i := range toks {
		t := &toks[i]
		if t.escape || s.contains(t.path) {
			continue
		}
		return nil, &Error{Ref: shorten(string(src[t.off:t.end])), Offset: t.off, Err: ErrOutsideScope}
	}
	out, err := expand(src)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(out) {
		for i := range toks {
			if !toks[i].escape {
				t := &toks[i]
				return nil, &Error{Ref: shorten(string(src[t.off:t.end])), Offset: t.off, Err: ErrNotText}
			}
		}
	}
	return out, nil
}

// contains reports whether path, symbolic links resolved, lies in one of
// the directories. A path that cannot be resolved (it does not exist) is
// judged as written: opening it fails anyway, with the reason.
func (s scope) contains(path string) bool {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	for _, dir := range s {
		if fsutil.Within(dir, path) {
			return true
		}
	}
	return false
}
