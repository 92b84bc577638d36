package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Setup changes a settings file by editing its text in place, so that
// everything it does not change stays byte for byte as it was: other keys,
// their order, their values as written, the layout, and comments where the
// agent allows them (comments are blanked out for parsing, which keeps
// every offset). What it adds ends its lines as the file's first line
// does, so a file with CRLF line endings keeps them.

// A span is where a JSON value lies in a text: text[start:end].
type span struct{ start, end int }

// A textEdit replaces the text of a span.
type textEdit struct {
	at   span
	with string
}

// A settingsText is a settings file being edited: its text, the same with
// comments blanked (what is parsed), and the edits to make.
type settingsText struct {
	text, plain []byte
	unit        string // one level of indentation, as the file has it
	eol         string // the line ending, as the file's first line has it
	oneLine     bool   // the file is one line: what is added is too
	edits       []textEdit
}

// install returns text, the agent's settings ("" or nil: none yet), with
// the hook running prog, and whether that changed anything. A hook of
// pbwrap's for the agent that is already there counts, whatever its
// matcher; when it runs another program, only its command is changed.
// Everything else stays as it was (see settingsText). An error says why
// text cannot be changed.
func (s *hookSpec) install(text []byte, prog string) ([]byte, bool, error) {
	if s.event == "" {
		return s.installExtension(text, prog)
	}
	plain := text
	if s.comments {
		plain = stripJSONComments(text)
	}
	command := s.command(prog)
	entry := s.entry(command)
	snippet := jsonObject{{"hooks", jsonObject{{s.event, marshalArray([]json.RawMessage{entry})}}.marshal()}}.marshal()
	if len(bytes.TrimSpace(plain)) == 0 {
		out := afterComments(text, snippet)
		if _, err := parseObject(stripJSONComments(out)); err != nil {
			return nil, false, errors.New("it ends inside a /* comment")
		}
		return out, true, nil
	}
	st, top, err := parseSettings(text, plain)
	if err != nil {
		return nil, false, err
	}
	found, err := st.installHook(top, s, command, entry)
	if err != nil {
		return nil, false, err
	}
	if found && len(st.edits) == 0 {
		return text, false, nil
	}
	return st.apply(), true, nil
}

// installHook plans the edits that put the hook in the top object, and
// reports whether a hook of pbwrap's for the agent was there.
func (st *settingsText) installHook(top span, s *hookSpec, command string, entry json.RawMessage) (found bool, err error) {
	hooks, ok, err := st.member(top, "hooks")
	switch {
	case err != nil:
		return false, err
	case !ok:
		return false, st.insertMember(top, "hooks", jsonObject{{s.event, marshalArray([]json.RawMessage{entry})}}.marshal())
	case st.isNull(hooks):
		st.replace(hooks, jsonObject{{s.event, marshalArray([]json.RawMessage{entry})}}.marshal())
		return false, nil
	case st.plain[hooks.start] != '{':
		return false, errors.New(`its "hooks" is not a JSON object`)
	}
	list, ok, err := st.member(hooks, s.event)
	switch {
	case err != nil:
		return false, err
	case !ok:
		return false, st.insertMember(hooks, s.event, marshalArray([]json.RawMessage{entry}))
	case st.isNull(list):
		st.replace(list, marshalArray([]json.RawMessage{entry}))
		return false, nil
	case st.plain[list.start] != '[':
		return false, fmt.Errorf(`its "hooks"."%s" is not a JSON array`, s.event)
	}
	entries, err := st.elements(list)
	if err != nil {
		return false, err
	}
	ours, err := st.findHooks(entries, s.agent)
	if err != nil {
		return false, err
	}
	if len(ours) == 0 {
		return false, st.appendElement(list, entries, entry)
	}
	for _, h := range ours {
		if h.command != command {
			st.edits = append(st.edits, textEdit{h.at, string(jsonString(command))})
		}
	}
	return true, nil
}

// A foundHook is a hook of pbwrap's for the agent in the settings: its
// command, and where the command's JSON string lies.
type foundHook struct {
	command string
	at      span
}

// findHooks returns pbwrap's hooks for agent in entries, the event's list
// ([{"matcher": ..., "hooks": [{"command": ...}]}]). What is not such an
// entry is not pbwrap's business, and skipped.
func (st *settingsText) findHooks(entries []span, agent string) ([]foundHook, error) {
	var found []foundHook
	for _, entry := range entries {
		if st.plain[entry.start] != '{' {
			continue
		}
		hs, ok, err := st.member(entry, "hooks")
		if err != nil {
			return nil, err
		}
		if !ok || st.plain[hs.start] != '[' {
			continue
		}
		hooks, err := st.elements(hs)
		if err != nil {
			return nil, err
		}
		for _, h := range hooks {
			if st.plain[h.start] != '{' {
				continue
			}
			c, ok, err := st.member(h, "command")
			if err != nil {
				return nil, err
			}
			var command string
			if !ok || json.Unmarshal(st.plain[c.start:c.end], &command) != nil {
				continue
			}
			if _, ok := hookProgramOf(command, agent); ok {
				found = append(found, foundHook{command, c})
			}
		}
	}
	return found, nil
}

// hookCommands returns the commands of pbwrap's hooks for the agent in
// its settings text.
func (s *hookSpec) hookCommands(text []byte) ([]string, error) {
	if s.event == "" {
		prog, ok := piExtensionProgram(text)
		if !ok {
			return nil, errors.New("it is not pbwrap's extension")
		}
		return []string{s.command(prog)}, nil
	}
	plain := text
	if s.comments {
		plain = stripJSONComments(text)
	}
	st, top, err := parseSettings(text, plain)
	if err != nil {
		return nil, err
	}
	var commands []string
	hooks, ok, err := st.member(top, "hooks")
	if err != nil || !ok || st.plain[hooks.start] != '{' {
		return nil, err
	}
	list, ok, err := st.member(hooks, s.event)
	if err != nil || !ok || st.plain[list.start] != '[' {
		return nil, err
	}
	entries, err := st.elements(list)
	if err != nil {
		return nil, err
	}
	found, err := st.findHooks(entries, s.agent)
	for _, h := range found {
		commands = append(commands, h.command)
	}
	return commands, err
}

// parseSettings reads text, a settings file that is not blank (plain:
// the same with its comments blanked), and returns it ready for edits,
// with the span of its top object.
func parseSettings(text, plain []byte) (*settingsText, span, error) {
	if _, err := parseObject(plain); err != nil {
		return nil, span{}, fmt.Errorf("cannot be read as a JSON object: %w", err)
	}
	trimmed := bytes.TrimSpace(plain)
	start := bytes.Index(plain, trimmed)
	st := &settingsText{
		text: text, plain: plain,
		unit:    indentOf(bytes.Split(trimmed, []byte("\n"))),
		eol:     lineEnding(text),
		oneLine: !bytes.Contains(trimmed, []byte("\n")),
	}
	return st, span{start, start + len(trimmed)}, nil
}

// members returns the names of the members of the object at obj and the
// spans of their values.
func (st *settingsText) members(obj span) (names []string, values []span, err error) {
	dec := json.NewDecoder(bytes.NewReader(st.plain[obj.start:obj.end]))
	if _, err := dec.Token(); err != nil { // The opening brace.
		return nil, nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := tok.(string) // Valid JSON: an object's key is a string.
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		end := obj.start + int(dec.InputOffset())
		names, values = append(names, name), append(values, span{end - len(raw), end})
	}
	return names, values, nil
}

// member returns the span of the value of the member name of the object at
// obj, the last one when the name is repeated, as the agents take it.
func (st *settingsText) member(obj span, name string) (span, bool, error) {
	names, values, err := st.members(obj)
	if err != nil {
		return span{}, false, err
	}
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == name {
			return values[i], true, nil
		}
	}
	return span{}, false, nil
}

// elements returns the spans of the elements of the array at arr.
func (st *settingsText) elements(arr span) ([]span, error) {
	dec := json.NewDecoder(bytes.NewReader(st.plain[arr.start:arr.end]))
	if _, err := dec.Token(); err != nil { // The opening bracket.
		return nil, err
	}
	var out []span
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := arr.start + int(dec.InputOffset())
		out = append(out, span{end - len(raw), end})
	}
	return out, nil
}

func (st *settingsText) isNull(v span) bool { return string(st.plain[v.start:v.end]) == "null" }

// insertMember adds the member name: value as the last of the object at
// obj, laid out as its last member is.
func (st *settingsText) insertMember(obj span, name string, value json.RawMessage) error {
	_, values, err := st.members(obj)
	if err != nil {
		return err
	}
	if len(values) == 0 {
		st.replace(obj, jsonObject{{name, value}}.marshal())
		return nil
	}
	last := values[len(values)-1]
	sep, colon := ",", ":"
	if bytes.Contains(st.plain[obj.start:obj.end], []byte(`": `)) {
		sep, colon = ", ", ": "
	}
	key := string(jsonString(name))
	if st.oneLine || !bytes.Contains(st.plain[obj.start:obj.end], []byte("\n")) {
		st.insert(last.end, sep+key+colon+string(value))
		return nil
	}
	indent := st.lineIndent(last.start)
	st.insert(last.end, ",\n"+indent+key+": "+st.layout(value, indent))
	return nil
}

// appendElement adds value as the last element of the array at arr, whose
// elements are at elems, laid out as its last element is.
func (st *settingsText) appendElement(arr span, elems []span, value json.RawMessage) error {
	if len(elems) == 0 {
		st.replace(arr, marshalArray([]json.RawMessage{value}))
		return nil
	}
	last := elems[len(elems)-1]
	if st.oneLine || !bytes.Contains(st.plain[arr.start:arr.end], []byte("\n")) {
		sep := ","
		if bytes.Contains(st.plain[arr.start:arr.end], []byte(", ")) {
			sep = ", "
		}
		st.insert(last.end, sep+string(value))
		return nil
	}
	indent := st.lineIndent(last.start)
	if st.lineIndent(arr.start) == indent && st.lineStart(last.start) == st.lineStart(arr.start) {
		// [{ ... },  with the element on the bracket's line: the next one
		// goes on a line of its own, one level in.
		indent += st.unit
	}
	st.insert(last.end, ",\n"+indent+st.layout(value, indent))
	return nil
}

// replace plans replacing the value at v with value, laid out for where
// it stands.
func (st *settingsText) replace(v span, value json.RawMessage) {
	text := string(value)
	if !st.oneLine {
		text = st.layout(value, st.lineIndent(v.start))
	}
	st.edits = append(st.edits, textEdit{v, text})
}

func (st *settingsText) insert(at int, text string) {
	st.edits = append(st.edits, textEdit{span{at, at}, text})
}

// layout writes value, compact JSON, indented for a line that starts with
// indent.
func (st *settingsText) layout(value json.RawMessage, indent string) string {
	if st.oneLine {
		return string(value)
	}
	var b bytes.Buffer
	if json.Indent(&b, value, indent, st.unit) != nil {
		return string(value) // Made by setup, valid: cannot happen.
	}
	return b.String()
}

// lineStart is the offset of the start of the line that holds offset at.
func (st *settingsText) lineStart(at int) int {
	return bytes.LastIndexByte(st.plain[:at], '\n') + 1
}

// lineIndent is the white space that starts the line that holds offset at.
func (st *settingsText) lineIndent(at int) string {
	line := st.plain[st.lineStart(at):]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// apply returns the text with the edits made; they do not overlap.
func (st *settingsText) apply() []byte {
	edits := slices.Clone(st.edits)
	slices.SortFunc(edits, func(a, b textEdit) int { return b.at.start - a.at.start })
	out := bytes.Clone(st.text)
	for _, e := range edits {
		// What setup writes has raw newlines only between lines: a
		// newline inside a JSON string is escaped.
		with := strings.ReplaceAll(e.with, "\n", st.eol)
		out = slices.Concat(out[:e.at.start], []byte(with), out[e.at.end:])
	}
	return out
}

// afterComments returns text, a settings file with no JSON value (blank,
// or comments only, as Gemini CLI allows), with the JSON object compact
// after it as a new settings file has it: the comments stay, and the
// object starts on a line of its own. A blank text is replaced.
func afterComments(text []byte, compact json.RawMessage) []byte {
	if len(bytes.TrimSpace(text)) == 0 {
		return newSettingsFile(compact)
	}
	eol := lineEnding(text)
	out := bytes.Clone(text)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, eol...) // A // comment ends at the end of its line.
	}
	return append(out, bytes.ReplaceAll(newSettingsFile(compact), []byte("\n"), []byte(eol))...)
}

// lineEnding is the line ending of text's first line: "\r\n" or "\n"
// (also when text is one line).
func lineEnding(text []byte) string {
	if i := bytes.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
