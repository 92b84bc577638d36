package fileref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Actions said to the model when a hook refuses a tool call.
const (
	hookAction = "Tool call denied: nothing was written. Check the path and the line numbers " +
		"(the file's line count) and retry, or write the text out. Do NOT substitute empty content."
)

// hookInput is the part of a hook's input the adapters read; Claude Code
// and Codex (PreToolUse), Gemini CLI (BeforeTool), Factory Droid and
// pbwrap's Pi extension send the same names. Letta Code names the event
// event_type and the working directory working_directory; Auggie gives
// the working directory as the first of workspace_roots. Those stand in
// for the common names when these are absent (see normalize).
type hookInput struct {
	HookEventName    string          `json:"hook_event_name"`
	EventType        string          `json:"event_type"`
	ToolName         string          `json:"tool_name"`
	ToolInput        json.RawMessage `json:"tool_input"`
	Cwd              string          `json:"cwd"`
	WorkingDirectory string          `json:"working_directory"`
	WorkspaceRoots   []string        `json:"workspace_roots"`
}

// normalize fills the common names from the other agents' ones.
func (in *hookInput) normalize() {
	if in.HookEventName == "" {
		in.HookEventName = in.EventType
	}
	if in.Cwd == "" {
		in.Cwd = in.WorkingDirectory
	}
	if in.Cwd == "" && len(in.WorkspaceRoots) > 0 {
		in.Cwd = in.WorkspaceRoots[0]
	}
}

// errNotText: the hook protocols carry text as JSON strings, which cannot
// hold bytes that are not UTF-8; they would reach the file as U+FFFD.
var errNotText = errors.New("the lines are not valid UTF-8 text, which a hook cannot pass on intact")

// MaxHookInput caps a hook's input, the JSON its agent sends: 16 MiB, far
// above any tool call a model writes (its output is bounded by its token
// limit, well under 1 MiB), and parsed in a fraction of a second. A larger
// input is denied, not read on.
const MaxHookInput = 16 << 20

// errHookInput: the hook's input is over MaxHookInput.
var errHookInput = errors.New("hook input too large")

// field is one string of a tool input that has references: its doc, and
// the object and member it goes back to.
type field struct {
	doc  *doc
	obj  *object
	name string
}

// stringFields lists the named string members of o that an expansion would act
// on (with numbered, also NAME_1, NAME_2, ...); with patch, they are
// patches whose references are whole added lines (Tool.Patch).
func stringFields(o *object, names []string, numbered, patch bool) ([]field, error) {
	var fields []field
	for _, name := range o.named(names, numbered) {
		raw := o.members[name]
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s is not a string", name)
		}
		if contains([]byte(s)) {
			fields = append(fields, field{doc: newDoc([]byte(s), patch), obj: o, name: name})
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
		f, err := stringFields(objs[i], []string{name}, false, false)
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

// named returns the names of o's members among names, in their order, and
// with numbered, each name's numbered members (NAME_1, NAME_2, ...) after
// it, in the order of their numbers.
func (o *object) named(names []string, numbered bool) []string {
	var out []string
	for _, name := range names {
		if _, ok := o.members[name]; ok {
			out = append(out, name)
		}
		if !numbered {
			continue
		}
		var nums []int
		for member := range o.members {
			if n, ok := numberOf(member, name); ok {
				nums = append(nums, n)
			}
		}
		slices.Sort(nums)
		for _, n := range nums {
			out = append(out, name+"_"+strconv.Itoa(n))
		}
	}
	return out
}

// numberOf returns N when member is name_N, N a decimal number written
// as strconv writes it (no sign, no leading zero).
func numberOf(member, name string) (int, bool) {
	digits, ok := strings.CutPrefix(member, name+"_")
	if !ok || digits == "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || strconv.Itoa(n) != digits {
		return 0, false
	}
	return n, true
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
func expandFields(cwd string, sc Scope, fields []field) error {
	docs := make([]*doc, len(fields))
	for i, f := range fields {
		docs[i] = f.doc
	}
	if err := expandInScope(cwd, sc, docs); err != nil {
		return err
	}
	for _, f := range fields {
		f.obj.texts[f.name] = f.doc.out
	}
	return nil
}

// expandInScope expands docs as a hook does: files only from the scope,
// output only text, within MaxOutput as the answer carries it.
func expandInScope(cwd string, sc Scope, docs []*doc) error {
	s := newScope(cwd, sc)
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
		"(a control character such as NUL takes 6 bytes there)", errTooLarge, byteCount(maxOutput))
}

// checkText reports errNotText for the first reference whose range is not
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
			return d.refError(t, errNotText)
		}
	}
	return d.refError(first, errNotText)
}

// inputTooLarge is the *Error for an input over MaxHookInput.
func inputTooLarge() *Error {
	return &Error{Err: fmt.Errorf("%w: over %s (the hook reads at most that)", errHookInput, byteCount(MaxHookInput))}
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
