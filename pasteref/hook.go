package pasteref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Actions said to the model when a hook refuses a tool call.
const (
	hookAction = "Tool call denied: nothing was written. Check the path and the line numbers " +
		"(the file's line count) and retry, or write the text out. Do NOT substitute empty content."
)

// hookInput is the part of a hook's input the adapters read; Claude Code
// and Codex (PreToolUse), Gemini CLI (BeforeTool) and pbwrap's Pi extension
// send the same names.
type hookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Cwd           string          `json:"cwd"`
}

// ErrNotText: the hook protocols carry text as JSON strings, which cannot
// hold bytes that are not UTF-8; they would reach the file as U+FFFD.
var ErrNotText = errors.New("the lines are not valid UTF-8 text, which a hook cannot pass on intact")

// hookOutput is a PreToolUse answer that denies the call (answer writes
// the others).
type hookOutput struct {
	HookSpecificOutput hookDecision `json:"hookSpecificOutput"`
}

type hookDecision struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// claudeFields are the tool-input fields Claude Code's editing tools write
// into files, by tool.
var claudeFields = map[string][]string{
	"Write":        {"content"},
	"Edit":         {"new_string"},
	"NotebookEdit": {"new_source"},
}

// MaxHookInput caps a hook's input, the JSON its agent sends: 16 MiB, far
// above any tool call a model writes (its output is bounded by its token
// limit, well under 1 MiB), and parsed in a fraction of a second. A larger
// input is denied, not read on.
const MaxHookInput = 16 << 20

// ErrHookInput: the hook's input is over MaxHookInput.
var ErrHookInput = errors.New("hook input too large")

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
// The fields of one call are one expansion: each file is read once for all
// of them, and the limits (MaxRefs, MaxOutput, MaxRead) count them all.
// MaxOutput counts the text as the answer carries it, escaped for JSON,
// where a control character takes six bytes. An input over MaxHookInput is
// denied (ErrHookInput) without being parsed. So the hook answers in about
// a second at worst, whatever the files, far inside the agents' timeouts.
//
// The hook runs with all of the user's rights, outside the agent's sandbox,
// so it reads files more strictly than Expand:
//
//   - only below the call's working directory (cwd) or one of dirs
//     (ErrOutsideScope). Each of those directories is resolved once and
//     opened; a reference may spell it as given, resolved, or through
//     other symbolic links above it. "/" is never one of them, so a call
//     from cwd "/" expands only files in dirs;
//   - below it, each file is opened once, from the directory's descriptor,
//     following no symbolic link at any step (ErrSymlink, even for a link
//     that points inside), so that nothing renamed or linked in between a
//     check and the open can lead the open elsewhere; ".." may not climb
//     out. The opened file is then checked and read from that descriptor;
//   - only a regular file (ErrNotRegular) and, below the working directory,
//     one with a single hard link (ErrHardLink);
//   - only text that is valid UTF-8 (ErrNotText).
//
// Fields other than those are passed back as they came (compacted, as
// encoding/json writes them). err is returned
// only for input that is not a PreToolUse call at all (not JSON); the
// caller must then block the call rather than let an unexpanded reference
// through.
func ClaudeHook(in []byte, dirs []string) (out []byte, err error) {
	if len(in) > MaxHookInput {
		return deny(inputTooLarge())
	}
	var req hookInput
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if req.HookEventName != "" && req.HookEventName != "PreToolUse" {
		return nil, nil
	}
	names, ok := claudeFields[req.ToolName]
	if !ok && req.ToolName != "MultiEdit" {
		return nil, nil
	}
	input, fields, err := claudeInput(req, names)
	if err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if len(fields) == 0 {
		return nil, nil
	}
	var perr *Error
	switch err := expandFields(req.Cwd, dirs, fields); {
	case errors.As(err, &perr):
		return deny(perr)
	case err != nil:
		return nil, fmt.Errorf("hook input: %s: %w", req.ToolName, err)
	}
	return answer("", input, len(in)+answerSize(fields))
}

// claudeInput parses the tool input of a Claude Code call and lists its
// fields that have references: the named ones, or MultiEdit's.
func claudeInput(req hookInput, names []string) (*object, []field, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(req.ToolInput, &members); err != nil {
		return nil, nil, fmt.Errorf("tool_input of %s: %w", req.ToolName, err)
	}
	input := newObject(members)
	fields, err := stringFields(input, names)
	if err == nil && req.ToolName == "MultiEdit" {
		fields, err = listFields(input, "edits", "new_string")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", req.ToolName, err)
	}
	return input, fields, nil
}

// field is one string of a tool input that has references: its doc, and
// the object and member it goes back to.
type field struct {
	doc  *doc
	obj  *object
	name string
}

// stringFields lists the named string members of o that Expand would act
// on.
func stringFields(o *object, names []string) ([]field, error) {
	var fields []field
	for _, name := range names {
		raw, ok := o.members[name]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s is not a string", name)
		}
		if Contains([]byte(s)) {
			fields = append(fields, field{doc: newDoc([]byte(s), false), obj: o, name: name})
		}
	}
	return fields, nil
}

// listFields lists the string member name of each object in o's list
// member (new_string in each of MultiEdit's edits), which o then writes
// back from the list as objects.
func listFields(o *object, list, name string) ([]field, error) {
	raw, ok := o.members[list]
	if !ok {
		return nil, nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s is not a list of objects", list)
	}
	var fields []field
	objs := make([]*object, len(items))
	for i, item := range items {
		objs[i] = newObject(item)
		f, err := stringFields(objs[i], []string{name})
		if err != nil {
			return nil, err
		}
		fields = append(fields, f...)
	}
	if len(fields) > 0 {
		o.lists[list] = objs
	}
	return fields, nil
}

// answerSize is how much the expanded fields add to an answer.
func answerSize(fields []field) int {
	n := 0
	for _, f := range fields {
		n += stringSize(f.doc.out)
	}
	return n
}

// expandFields expands the fields of one call in one expansion, within the
// scope, and puts the results in their objects.
func expandFields(cwd string, dirs []string, fields []field) error {
	docs := make([]*doc, len(fields))
	for i, f := range fields {
		docs[i] = f.doc
	}
	if err := expandInScope(cwd, dirs, docs); err != nil {
		return err
	}
	for _, f := range fields {
		f.obj.texts[f.name] = f.doc.out
	}
	return nil
}

// expandInScope expands docs as a hook does: files only from the scope,
// output only text, within MaxOutput as the answer carries it.
func expandInScope(cwd string, dirs []string, docs []*doc) error {
	s := newScope(cwd, dirs)
	defer s.Close()
	if err := run(docs, s.open, true); err != nil {
		return err
	}
	for _, d := range docs {
		if err := d.checkText(); err != nil {
			return err
		}
	}
	return checkEscaped(docs)
}

// checkEscaped applies MaxOutput to the docs' output as a hook's answer
// carries it, escaped for JSON, where a control character takes six bytes
// (a range of NUL bytes, as in a sparse file, six times its size). It names
// the reference at which the escaped output passes the cap, or the last.
func checkEscaped(docs []*doc) error {
	total := 0
	for _, d := range docs {
		total += stringSize(d.out)
	}
	if total <= maxOutput {
		return nil
	}
	n := 0
	var last *token
	var lastDoc *doc
	for _, d := range docs {
		prev := 0
		for i := range d.toks {
			t := &d.toks[i]
			from, to := t.span()
			n += stringSize(d.src[prev:from])
			prev = to
			if t.escape {
				continue
			}
			last, lastDoc = t, d
			for _, p := range t.parts {
				n += stringSize(p)
			}
			if n > maxOutput {
				return d.refError(t, tooLargeEscaped())
			}
		}
		n += stringSize(d.src[prev:])
	}
	return lastDoc.refError(last, tooLargeEscaped())
}

func tooLargeEscaped() error {
	return fmt.Errorf("%w: the answer would be over %s with the text escaped for JSON "+
		"(a control character such as NUL takes 6 bytes there)", ErrTooLarge, byteCount(maxOutput))
}

// checkText reports ErrNotText for the first reference whose range is not
// valid UTF-8 (or, for a rune split between two ranges, the first
// reference), when d's output is not.
func (d *doc) checkText() error {
	if utf8.Valid(d.out) {
		return nil
	}
	var first *token
	for i := range d.toks {
		t := &d.toks[i]
		if t.escape {
			continue
		}
		if first == nil {
			first = t
		}
		if !utf8.Valid(bytes.Join(t.parts, nil)) {
			return d.refError(t, ErrNotText)
		}
	}
	return d.refError(first, ErrNotText)
}

// inputTooLarge is the *Error for an input over MaxHookInput.
func inputTooLarge() *Error {
	return &Error{Err: fmt.Errorf("%w: over %s (the hook reads at most that)", ErrHookInput, byteCount(MaxHookInput))}
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
// The patch is one expansion: each file is read once however many
// references name it. The input limit, the scope and the rules for links
// are ClaudeHook's.
func CodexHook(in []byte, dirs []string) (out []byte, err error) {
	if len(in) > MaxHookInput {
		return deny(inputTooLarge())
	}
	var req hookInput
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if (req.HookEventName != "" && req.HookEventName != "PreToolUse") || req.ToolName != "apply_patch" {
		return nil, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(req.ToolInput, &members); err != nil {
		return nil, fmt.Errorf("hook input: tool_input of apply_patch: %w", err)
	}
	var patch string
	if err := json.Unmarshal(members["command"], &patch); err != nil {
		return nil, fmt.Errorf("hook input: apply_patch command is not a string")
	}
	if !Contains([]byte(patch)) {
		return nil, nil
	}
	d := newDoc([]byte(patch), true)
	var perr *Error
	if err := expandInScope(req.Cwd, dirs, []*doc{d}); errors.As(err, &perr) {
		return deny(perr)
	} else if err != nil {
		return nil, err
	}
	input := newObject(members)
	input.texts["command"] = d.out
	return answer("allow", input, len(in)+stringSize(d.out))
}

// deny answers with the call denied, the report of e as the reason.
func deny(e *Error) ([]byte, error) {
	return encode(hookOutput{hookDecision{
		HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: e.Report(hookAction),
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
