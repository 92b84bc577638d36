package fileref

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Protocol is an agent's hook wire format: the event its hook is called
// on, the tools whose input the hook expands, and the form of the answer
// that rewrites or denies the call. The call comes as one JSON object,
// {"hook_event_name", "tool_name", "tool_input", "cwd"}, the names Claude
// Code, Codex, Gemini CLI and pbwrap's Pi and opencode extensions send, or
// in Copilot CLI's names (ModifiedArgs).
type Protocol struct {
	// Event is the hook_event_name the hook answers ("PreToolUse"); a call
	// that names no event is taken too, one that names another is let
	// through.
	Event string
	// Reply is the form of the answer.
	Reply Reply
	// Tools are the tools whose input the hook expands; a call of any
	// other is let through.
	Tools []Tool
	// Reads are tools that read the file their one field names (crush's
	// view, file_path), for an agent that asks before reading outside its
	// working directory and takes a hook's allow as the user's yes: a call
	// that reads a file the hook could expand from one of its directories
	// (pbwrap's paste root: never the working directory) is allowed, so
	// that the agent reads a saved paste without asking; any other goes
	// on unchanged. Only for the UpdatedInput and AllowedInput replies.
	Reads []Tool
	// Approves: the agent takes a rewritten call only with an approval
	// that also answers the question it would have asked the user (Qwen
	// Code's PermissionRequest). A call with references is then refused
	// (errApproval), so that a reference never decides for the user.
	Approves bool
	// DenyByExit: the agent takes a denial only from the hook's exit
	// status, 2, with the reason on standard error, and reads nothing of
	// the answer then (Letta Code): a reference that fails makes
	// AnswerScope return a *Denial, no answer, and the caller exits so.
	DenyByExit bool
}

// A Denial is a call denied, for a protocol that denies by exit status
// (DenyByExit): the hook writes Reason to standard error and exits with
// status 2.
type Denial struct{ Reason string }

func (d *Denial) Error() string { return d.Reason }

// Reply is the form of a hook's answer.
type Reply int

const (
	// UpdatedInput answers {"hookSpecificOutput": {"hookEventName": EVENT,
	// "updatedInput": INPUT}} with no permission decision, so that the
	// agent's own permission flow decides as it would have; a denial is
	// "permissionDecision": "deny" with the reason (Claude Code).
	UpdatedInput Reply = iota
	// AllowedInput is UpdatedInput with "permissionDecision": "allow",
	// for an agent that takes a rewritten input only with it and lets the
	// decision carry the rewrite and nothing else (Codex: the call still
	// goes through its approval policy and sandbox).
	AllowedInput
	// ToolInput answers {"hookSpecificOutput": {"hookEventName": EVENT,
	// "tool_input": INPUT}}, for an agent that builds the call anew from
	// that object alone, and no decision; a denial is {"decision": "deny",
	// "reason": ...} (Gemini CLI, pbwrap's Pi extension).
	ToolInput
	// PermissionInput answers {"hookSpecificOutput": {"hookEventName":
	// EVENT, "decision": {"behavior": "allow", "updatedInput": INPUT}}},
	// for an agent whose only hook that can rewrite a call is the one it
	// runs instead of its approval dialog, and that takes a rewrite only
	// with an allow (Qwen Code's PermissionRequest); a denial is
	// "decision": {"behavior": "deny", "message": ...}.
	PermissionInput
	// ModifiedArgs is GitHub Copilot CLI's preToolUse hook, which names
	// things its own way: the call comes as {"toolName", "toolArgs",
	// "cwd"}, toolArgs the tool's input as an object (its documentation
	// shows that object as a JSON string: both are read), and no event
	// name; the answer is {"modifiedArgs": INPUT} with no decision, and a
	// denial {"permissionDecision": "deny", "permissionDecisionReason": ...}.
	ModifiedArgs
	// OverrideInput is Cline's hook: the call comes as {"hookName":
	// "tool_call", "tool_call": {"name", "input"}, "workspaceRoots": [CWD],
	// ...}, the event named tool_call whatever the hook's file is called
	// (PreToolUse), and the answer {"overrideInput": INPUT}, which replaces
	// the call's input before Cline's approval; Cline has no denial of one
	// call, so a denial is {"cancel": true, "errorMessage": ...}, which
	// stops the call and the turn with the reason. Cline lets a call
	// through when the hook fails or writes no JSON (Refusal).
	OverrideInput
)

// A Tool is one of an agent's tools whose input writes text into files.
type Tool struct {
	// Name is the tool's name in the call ("Write").
	Name string
	// Fields are the string members of the input written into files.
	Fields []string
	// List and Item name a list member of objects whose string member
	// Item is written into files (MultiEdit's edits[].new_string).
	List, Item string
	// Patch: Fields hold patches in Codex's apply_patch format, where the
	// content of a file is written as lines that start with "+": there a
	// reference must stand alone on an added line, "+{{file:PATH:START:END}}"
	// (errPatchPlacement), and becomes one added line per line of its range
	// (a last line without a newline gets one: a patch's lines end with
	// one).
	Patch bool
	// Target is the string member naming the file the call writes
	// ("file_path"), which the hook judges (errGuarded); a patch names
	// its files in its headers.
	Target string
	// Numbered: each field comes numbered too, NAME_1, NAME_2, ... (Auggie's
	// str-replace-editor, new_str_1 for its first replacement), and those
	// are expanded as the field is.
	Numbered bool
}

// String describes what of the tool's input the hook expands, as help
// shows it: "Write (content)", "MultiEdit (edits[].new_string)".
func (t Tool) String() string {
	what := append([]string(nil), t.Fields...)
	if t.Numbered {
		for i, f := range what {
			what[i] = f + ", " + f + "_N"
		}
	}
	if t.List != "" {
		what = append(what, t.List+"[]."+t.Item)
	}
	return t.Name + " (" + strings.Join(what, ", ") + ")"
}

// tool returns the tool called name among tools, or nil.
func tool(tools []Tool, name string) *Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// Answer answers one call, given the JSON the agent writes to the hook's
// standard input. For the protocol's tools it expands references in the
// fields that write into files:
//
//   - no reference, or another tool or event: out is empty, and the call
//     goes on unchanged;
//   - every reference expands: out carries the whole tool input, expanded,
//     in the protocol's Reply form. Members other than the expanded ones
//     go back as they came (compacted, as encoding/json writes them), so
//     that an agent that builds the call anew from the answer loses
//     nothing; nothing is widened: the agent's permissions decide as
//     they would have;
//   - a reference fails: out denies the call, with the report as the
//     reason, which the model sees.
//
// The fields of one call are one expansion: each file is read once for all
// of them, and the limits (MaxRefs, MaxOutput, MaxRead) count them all.
// MaxOutput counts the text as the answer carries it, escaped for JSON,
// where a control character takes six bytes. An input over MaxHookInput is
// denied (errHookInput) without being parsed. So the hook answers in about
// a second at worst, whatever the files, far inside the agents' timeouts.
//
// The hook runs with all of the user's rights, outside the agent's
// sandbox, so it reads files more strictly than ExpandAll:
//
//   - only below the call's working directory (cwd) or one of the scope's
//     paste roots (errOutsideScope), with the scope's rules besides (see
//     Scope): the roots' files only in their sessions, no working
//     directory that holds the home directory, no hidden directory of the
//     home directory reached from outside it, the directories the user
//     allowed, and the agent's own read rules. Each of those directories
//     is resolved once and opened; a reference may spell it as given,
//     resolved, or through other symbolic links above it. "/" is never
//     one of them, so a call from cwd "/" expands only files in the roots;
//   - below it, each file is opened once, from the directory's descriptor,
//     following no symbolic link at any step (errSymlink, even for a link
//     that points inside), so that nothing renamed or linked in between a
//     check and the open can lead the open elsewhere; ".." may not climb
//     out. The opened file is then checked and read from that descriptor;
//   - only a regular file (errNotRegular) with a single hard link
//     (errHardLink), in the root as below the working directory;
//   - only text that is valid UTF-8 (errNotText).
//
// err is returned only for input that is not a call at all (not JSON, a
// field that is not a string); the caller must then block the call rather
// than let an unexpanded reference through.
func (p *Protocol) Answer(in []byte, sc Scope) (out []byte, err error) {
	if len(in) > MaxHookInput {
		if p.DenyByExit {
			return nil, &Denial{inputTooLarge().Report(hookAction)}
		}
		return p.deny(inputTooLarge())
	}
	req, err := p.parse(in)
	if err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if req.HookEventName != "" && req.HookEventName != p.Event {
		return nil, nil
	}
	if read := tool(p.Reads, req.ToolName); read != nil {
		return p.allowRead(read, req.ToolInput, req.Cwd, sc)
	}
	tool := tool(p.Tools, req.ToolName)
	if tool == nil {
		return nil, nil
	}
	input, fields, err := tool.input(req.ToolInput)
	if err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	if len(fields) == 0 {
		return nil, nil
	}
	if e := p.checkApproval(tool, input, fields, req.Cwd, sc.Home); e != nil {
		if p.DenyByExit {
			return nil, &Denial{e.Report(approvalAction)}
		}
		return p.denyWith(e, approvalAction)
	}
	var perr *Error
	switch err := expandFields(req.Cwd, sc, fields); {
	case errors.As(err, &perr) && p.DenyByExit:
		return nil, &Denial{perr.Report(hookAction)}
	case errors.As(err, &perr):
		return p.deny(perr)
	case err != nil:
		return nil, fmt.Errorf("hook input: %s: %w", req.ToolName, err)
	}
	return p.rewrite(input, len(in)+answerSize(fields))
}

// parse reads the call in the protocol's names.
func (p *Protocol) parse(in []byte) (hookInput, error) {
	var req hookInput
	switch p.Reply {
	case OverrideInput:
		return p.parseCline(in)
	case ModifiedArgs:
	default:
		err := json.Unmarshal(in, &req)
		req.normalize()
		return req, err
	}
	var c struct {
		ToolName         string          `json:"toolName"`
		ToolArgs         json.RawMessage `json:"toolArgs"`
		Cwd              string          `json:"cwd"`
		WorkingDirectory string          `json:"workingDirectory"`
	}
	if err := json.Unmarshal(in, &c); err != nil {
		return req, err
	}
	req.ToolName, req.ToolInput, req.Cwd = c.ToolName, c.ToolArgs, c.Cwd
	if req.Cwd == "" {
		req.Cwd = c.WorkingDirectory
	}
	var args string
	if len(c.ToolArgs) > 0 && c.ToolArgs[0] == '"' {
		if err := json.Unmarshal(c.ToolArgs, &args); err != nil {
			return req, fmt.Errorf("toolArgs: %w", err)
		}
		req.ToolInput = json.RawMessage(args)
	}
	return req, nil
}

// parseCline reads a call in Cline's names (OverrideInput): its
// tool_call hook is the protocol's event.
func (p *Protocol) parseCline(in []byte) (hookInput, error) {
	var c struct {
		HookName string `json:"hookName"`
		ToolCall struct {
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"tool_call"`
		WorkspaceRoots []string `json:"workspaceRoots"`
	}
	if err := json.Unmarshal(in, &c); err != nil {
		return hookInput{}, err
	}
	req := hookInput{HookEventName: c.HookName, ToolName: c.ToolCall.Name, ToolInput: c.ToolCall.Input}
	if c.HookName == "tool_call" {
		req.HookEventName = p.Event
	}
	if len(c.WorkspaceRoots) > 0 {
		req.Cwd = c.WorkspaceRoots[0]
	}
	return req, nil
}

// Refusal is what the hook writes on standard output, besides its exit
// status 2 and the reason on standard error, when it cannot answer a
// call (input that is not a call, an answer it could not write): for an
// agent that runs a call whose hook failed (Cline), the answer that stops
// it; nil for the others, which block the call on that exit status.
func (p *Protocol) Refusal(reason string) []byte {
	if p.Reply != OverrideInput {
		return nil
	}
	out, _ := encode(clineCancel{true, reason}) // Two plain fields: cannot fail.
	return out
}

// clineCancel is Cline's answer that stops a call.
type clineCancel struct {
	Cancel       bool   `json:"cancel"`
	ErrorMessage string `json:"errorMessage"`
}

// input parses the call's tool input and lists its fields that have
// references.
func (t *Tool) input(raw json.RawMessage) (*object, []field, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, nil, fmt.Errorf("tool_input of %s: %w", t.Name, err)
	}
	input := newObject(members)
	fields, err := stringFields(input, t.Fields, t.Numbered, t.Patch)
	if err == nil && t.List != "" {
		var more []field
		more, err = listFields(input, t.List, t.Item)
		fields = append(fields, more...)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	return input, fields, nil
}

// rewrite is the answer that replaces the tool input with input; size is
// what the answer is expected to take.
func (p *Protocol) rewrite(input *object, size int) ([]byte, error) {
	b := make([]byte, 0, size+128)
	if p.Reply == ModifiedArgs || p.Reply == OverrideInput {
		name := `{"modifiedArgs":`
		if p.Reply == OverrideInput {
			name = `{"overrideInput":`
		}
		b = append(b, name...)
		b, err := input.appendTo(b)
		if err != nil {
			return nil, err
		}
		return append(b, "}\n"...), nil
	}
	b = append(b, `{"hookSpecificOutput":{"hookEventName":`...)
	b = appendString(b, []byte(p.Event))
	switch p.Reply {
	case AllowedInput:
		b = append(b, `,"permissionDecision":"allow","updatedInput":`...)
	case UpdatedInput:
		b = append(b, `,"updatedInput":`...)
	case PermissionInput:
		b = append(b, `,"decision":{"behavior":"allow","updatedInput":`...)
	default:
		b = append(b, `,"tool_input":`...)
	}
	b, err := input.appendTo(b)
	if err != nil {
		return nil, err
	}
	if p.Reply == PermissionInput {
		b = append(b, '}')
	}
	return append(b, "}}\n"...), nil
}

// allowRead answers a call of read, one of the protocol's Reads: allowed
// when the file its field names opens as a hook opens a file to expand it
// (scope.open), below one of the scope's roots (not its working directory
// nor the directories allowed, which the agent's own rules govern), with
// the scope's rules, following no symbolic link, a regular file with a
// single link; otherwise no answer, and the agent's own rules decide. A
// path that is not absolute is the agent's to resolve: no answer.
func (p *Protocol) allowRead(read *Tool, raw json.RawMessage, cwd string, sc Scope) ([]byte, error) {
	if len(read.Fields) != 1 || p.Reply != UpdatedInput && p.Reply != AllowedInput {
		return nil, nil
	}
	var input map[string]json.RawMessage
	if err := json.Unmarshal(raw, &input); err != nil {
		return nil, fmt.Errorf("hook input: tool_input of %s: %w", read.Name, err)
	}
	var path string
	if v, ok := input[read.Fields[0]]; !ok || json.Unmarshal(v, &path) != nil || !filepath.IsAbs(path) {
		return nil, nil
	}
	s := newScope("", Scope{Roots: sc.Roots, Session: sc.Session, Home: sc.Home, Deny: sc.Deny})
	defer s.Close()
	s.cwds = []string{cwd} // For the agent's read rules: no scope directory.
	f, real, err := s.openFile(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close() // Only opened, to judge it: nothing read.
	if !sameAsPath(f, path, real) {
		return nil, nil
	}
	// The agent reads the file itself, after the answer: it is pointed at
	// the real path, which goes through no link (none below the root, none
	// a reference's spelling put above it), and reads what was judged
	// unless a name on that path is renamed in the moment between.
	b := append([]byte(`{"hookSpecificOutput":{"hookEventName":`), appendString(nil, []byte(p.Event))...)
	b = append(b, `,"permissionDecision":"allow","updatedInput":{`...)
	b = appendString(b, []byte(read.Fields[0]))
	b = append(b, ':')
	b = appendString(b, []byte(real))
	return append(b, "}}}\n"...), nil
}

// sameAsPath reports whether the file f, opened below its scope
// directory without following a link, is what path and real lead to now,
// following links as the agent's own read does: the same file (device
// and inode), and real, resolved, is itself. A link swapped in anywhere
// on either path before this check makes it false.
func sameAsPath(f *os.File, path, real string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(real); err != nil || r != real {
		return false
	}
	for _, p := range []string{path, real} {
		if st, err := os.Stat(p); err != nil || !os.SameFile(st, fi) {
			return false
		}
	}
	return true
}

// deny answers with the call denied, the report of e as the reason.
func (p *Protocol) deny(e *Error) ([]byte, error) { return p.denyWith(e, hookAction) }

// denyWith is deny with the action the model is told to take.
func (p *Protocol) denyWith(e *Error, action string) ([]byte, error) {
	reason := e.Report(action)
	switch p.Reply {
	case PermissionInput:
		type decision struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		}
		type output struct {
			HookEventName string   `json:"hookEventName"`
			Decision      decision `json:"decision"`
		}
		return encode(struct {
			HookSpecificOutput output `json:"hookSpecificOutput"`
		}{output{p.Event, decision{"deny", reason}}})
	case OverrideInput:
		return encode(clineCancel{true, reason})
	case ModifiedArgs:
		return encode(struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		}{"deny", reason})
	case ToolInput:
		return encode(struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{"deny", reason})
	}
	type decision struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	return encode(struct {
		HookSpecificOutput decision `json:"hookSpecificOutput"`
	}{decision{p.Event, "deny", reason}})
}
