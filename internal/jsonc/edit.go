package jsonc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A Span is where a JSON value lies in a text: text[Start:End].
type Span struct{ Start, End int }

// An edit replaces the text of a span.
type edit struct {
	at   Span
	with string
}

// An Editor is a JSON object's text being edited in place: the methods
// that find values return Spans of the text as it was, those that change
// it plan edits, and Apply makes them all at once. Edits must not overlap:
// plan at most one change inside any value, or start again from the
// applied text. What an edit adds is laid out as the text is: on one line
// when the text is one line or the container is; otherwise indented as
// its neighbours are, by the text's unit of indentation, each line ended
// as the text's first line is (LineEnding), so a CRLF file keeps CRLF.
// Comments, when the Editor takes them, are blanked for parsing, which
// keeps every offset (StripComments).
//
// An Editor is not safe for concurrent use.
type Editor struct {
	text, plain []byte
	top         Span
	unit        string // one level of indentation, as the text has it
	eol         string // the line ending, as the text's first line has it
	oneLine     bool   // the text is one line: what is added is too
	edits       []edit
}

// NewEditor returns an Editor for text, which must be one JSON object,
// with white space around it and, when comments is true, comments (see
// StripComments); text is not changed and must not be while the Editor is
// used. A blank text, or one that is not an object, is an error that says
// why.
func NewEditor(text []byte, comments bool) (*Editor, error) {
	plain := text
	if comments {
		plain = StripComments(text)
	}
	if _, err := ParseObject(plain); err != nil {
		return nil, fmt.Errorf("cannot be read as a JSON object: %w", err)
	}
	trimmed := bytes.TrimSpace(plain)
	start := bytes.Index(plain, trimmed)
	return &Editor{
		text: text, plain: plain,
		top:     Span{start, start + len(trimmed)},
		unit:    indentOf(bytes.Split(trimmed, []byte("\n"))),
		eol:     LineEnding(text),
		oneLine: !bytes.Contains(trimmed, []byte("\n")),
	}, nil
}

// Top is the span of the text's object.
func (e *Editor) Top() Span { return e.top }

// Raw returns the text of the value at v, comments blanked.
func (e *Editor) Raw(v Span) []byte { return e.plain[v.Start:v.End] }

// IsObject reports whether the value at v is an object.
func (e *Editor) IsObject(v Span) bool { return e.plain[v.Start] == '{' }

// IsArray reports whether the value at v is an array.
func (e *Editor) IsArray(v Span) bool { return e.plain[v.Start] == '[' }

// IsNull reports whether the value at v is null.
func (e *Editor) IsNull(v Span) bool { return string(e.Raw(v)) == "null" }

// Members returns the names of the members of the object at obj, in
// order, and the spans of their values.
func (e *Editor) Members(obj Span) (names []string, values []Span, err error) {
	dec := json.NewDecoder(bytes.NewReader(e.plain[obj.Start:obj.End]))
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
		end := obj.Start + int(dec.InputOffset())
		names, values = append(names, name), append(values, Span{end - len(raw), end})
	}
	return names, values, nil
}

// Member returns the span of the value of the member name of the object
// at obj, the last one when the name is repeated, as JavaScript's
// JSON.parse takes it; ok is false when there is none.
func (e *Editor) Member(obj Span, name string) (v Span, ok bool, err error) {
	names, values, err := e.Members(obj)
	if err != nil {
		return Span{}, false, err
	}
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == name {
			return values[i], true, nil
		}
	}
	return Span{}, false, nil
}

// Elements returns the spans of the elements of the array at arr.
func (e *Editor) Elements(arr Span) ([]Span, error) {
	dec := json.NewDecoder(bytes.NewReader(e.plain[arr.Start:arr.End]))
	if _, err := dec.Token(); err != nil { // The opening bracket.
		return nil, err
	}
	var out []Span
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := arr.Start + int(dec.InputOffset())
		out = append(out, Span{end - len(raw), end})
	}
	return out, nil
}

// InsertMember plans adding the member name: value, value being compact
// JSON, as the last of the object at obj, laid out as its last member is.
func (e *Editor) InsertMember(obj Span, name string, value json.RawMessage) error {
	_, values, err := e.Members(obj)
	if err != nil {
		return err
	}
	if len(values) == 0 {
		e.Replace(obj, Object{{name, value}}.Marshal())
		return nil
	}
	last := values[len(values)-1]
	sep, colon := ",", ":"
	if bytes.Contains(e.plain[obj.Start:obj.End], []byte(`": `)) {
		sep, colon = ", ", ": "
	}
	key := string(String(name))
	if e.oneLine || !bytes.Contains(e.plain[obj.Start:obj.End], []byte("\n")) {
		e.insert(last.End, sep+key+colon+string(value))
		return nil
	}
	indent := e.lineIndent(last.Start)
	e.insert(last.End, ",\n"+indent+key+": "+e.layout(value, indent))
	return nil
}

// AppendElement plans adding value, compact JSON, as the last element of
// the array at arr, whose elements are at elems (Elements), laid out as
// its last element is.
func (e *Editor) AppendElement(arr Span, elems []Span, value json.RawMessage) error {
	if len(elems) == 0 {
		e.Replace(arr, Array([]json.RawMessage{value}))
		return nil
	}
	last := elems[len(elems)-1]
	if e.oneLine || !bytes.Contains(e.plain[arr.Start:arr.End], []byte("\n")) {
		sep := ","
		if bytes.Contains(e.plain[arr.Start:arr.End], []byte(", ")) {
			sep = ", "
		}
		e.insert(last.End, sep+string(value))
		return nil
	}
	indent := e.lineIndent(last.Start)
	if e.lineIndent(arr.Start) == indent && e.lineStart(last.Start) == e.lineStart(arr.Start) {
		// [{ ... },  with the element on the bracket's line: the next one
		// goes on a line of its own, one level in.
		indent += e.unit
	}
	e.insert(last.End, ",\n"+indent+e.layout(value, indent))
	return nil
}

// Replace plans replacing the value at v with value, compact JSON, laid
// out for where it stands.
func (e *Editor) Replace(v Span, value json.RawMessage) {
	text := string(value)
	if !e.oneLine {
		text = e.layout(value, e.lineIndent(v.Start))
	}
	e.edits = append(e.edits, edit{v, text})
}

// RemoveMember plans removing the member name (its last occurrence) from
// the object at obj, with the separator before it (the one after it, when
// it is the first), so that a member InsertMember added goes without a
// trace; ok is false when there is none.
func (e *Editor) RemoveMember(obj Span, name string) (ok bool, err error) {
	names, values, err := e.Members(obj)
	if err != nil {
		return false, err
	}
	keys, err := e.memberKeys(obj)
	if err != nil {
		return false, err
	}
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == name {
			e.removeOne(obj, keys, values, i, "{}")
			return true, nil
		}
	}
	return false, nil
}

// RemoveElement plans removing the i-th of elems, the elements of the
// array at arr (Elements), with its separator as RemoveMember does.
func (e *Editor) RemoveElement(arr Span, elems []Span, i int) {
	e.removeOne(arr, nil, elems, i, "[]")
}

// Changed reports whether any edit is planned.
func (e *Editor) Changed() bool { return len(e.edits) > 0 }

// Apply returns a copy of the text with the planned edits made.
func (e *Editor) Apply() []byte {
	edits := slices.Clone(e.edits)
	slices.SortFunc(edits, func(a, b edit) int { return b.at.Start - a.at.Start })
	out := bytes.Clone(e.text)
	for _, ed := range edits {
		// What is added has raw newlines only between lines: a newline
		// inside a JSON string is escaped.
		with := strings.ReplaceAll(ed.with, "\n", e.eol)
		out = slices.Concat(out[:ed.at.Start], []byte(with), out[ed.at.End:])
	}
	return out
}

// removeOne plans removing the i-th of the values at values (members of an
// object, whose keys start at keys, or elements of an array, keys nil)
// inside the container at c, whose empty form is empty ("{}" or "[]").
func (e *Editor) removeOne(c Span, keys, values []Span, i int, empty string) {
	starts := values
	if keys != nil {
		starts = keys
	}
	switch {
	case len(values) == 1:
		e.edits = append(e.edits, edit{c, empty})
	case i > 0:
		e.edits = append(e.edits, edit{Span{values[i-1].End, values[i].End}, ""})
	default:
		e.edits = append(e.edits, edit{Span{starts[0].Start, starts[1].Start}, ""})
	}
}

// memberKeys returns the spans of the keys of the object at obj, in the
// order of members.
func (e *Editor) memberKeys(obj Span) ([]Span, error) {
	_, values, err := e.Members(obj)
	if err != nil {
		return nil, err
	}
	keys := make([]Span, len(values))
	from := obj.Start + 1
	for i, v := range values {
		at := from
		for at < v.Start && (isSpace(e.plain[at]) || e.plain[at] == ',') {
			at++
		}
		keys[i] = Span{at, v.Start}
		from = v.End
	}
	return keys, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (e *Editor) insert(at int, text string) {
	e.edits = append(e.edits, edit{Span{at, at}, text})
}

// layout writes value, compact JSON, indented for a line that starts with
// indent.
func (e *Editor) layout(value json.RawMessage, indent string) string {
	if e.oneLine {
		return string(value)
	}
	var b bytes.Buffer
	if json.Indent(&b, value, indent, e.unit) != nil {
		return string(value) // Not valid JSON: the caller's to see.
	}
	return b.String()
}

// lineStart is the offset of the start of the line that holds offset at.
func (e *Editor) lineStart(at int) int {
	return bytes.LastIndexByte(e.plain[:at], '\n') + 1
}

// lineIndent is the white space that starts the line that holds offset at.
func (e *Editor) lineIndent(at int) string {
	line := e.plain[e.lineStart(at):]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// indentOf is the indentation of the first indented line of lines, or
// two spaces.
func indentOf(lines [][]byte) string {
	for _, l := range lines[min(1, len(lines)):] {
		ws := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
		if len(ws) > 0 && len(ws) < len(bytes.TrimRight(l, "\r")) {
			return string(ws)
		}
	}
	return "  "
}
