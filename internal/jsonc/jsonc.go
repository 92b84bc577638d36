// Package jsonc reads and edits the JSON settings files of other programs,
// and JSON with comments (// and /* */ outside strings, as Gemini CLI and
// opencode accept them), so that a change leaves everything it does not
// touch byte for byte as it was: other members, their order, their values
// as written, the layout, the comments and the line endings.
//
// Two tools do that. An Object is a JSON object whose members keep the
// order they came in and their values as written, for rewriting a small
// value whole (a Go map would lose the order, which some readers depend
// on). An Editor plans edits on the text of a file, at the Spans where its
// values lie, and applies them in one go; what it adds is laid out as the
// file lays out what is there.
//
// Nothing here does I/O, and every function is safe for concurrent use;
// an Editor is not.
package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// An Object is a JSON object with its members in the order they came:
// opencode reads its permission rules in that order (the last that matches
// wins) and Gemini CLI its trusted folders (the first of the longest), so
// a rewrite must keep it. Values are kept as they came.
type Object []Member

// A Member is one name and value of an Object.
type Member struct {
	Name  string
	Value json.RawMessage
}

// ErrNotObject is ParseObject's error for a text that is valid JSON but
// not an object.
var ErrNotObject = errors.New("not a JSON object")

// ParseObject parses text, which must be one JSON object and nothing else
// (no comments: see StripComments). A text that is not JSON gets
// encoding/json's error, which says where it goes wrong; valid JSON that
// is not an object gets ErrNotObject.
func ParseObject(text []byte) (Object, error) {
	if !json.Valid(text) {
		var v any
		return nil, json.Unmarshal(text, &v) // Says where it is wrong.
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, ErrNotObject
	}
	var obj Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var m Member
		m.Name, _ = tok.(string) // Valid JSON: an object's key is a string.
		if err := dec.Decode(&m.Value); err != nil {
			return nil, err
		}
		obj = append(obj, m)
	}
	if _, err := dec.Token(); err != nil { // The closing brace.
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more after the object")
	}
	return obj, nil
}

// Get returns the value of the member name, the last one when the name is
// repeated (as JavaScript's JSON.parse takes it), or nil.
func (o Object) Get(name string) json.RawMessage {
	var v json.RawMessage
	for _, m := range o {
		if m.Name == name {
			v = m.Value
		}
	}
	return v
}

// Set gives the member name the value where it stands (every time, when
// the name is repeated), or adds it as the last member, and returns the
// object. Like append, it may change o.
func (o Object) Set(name string, value json.RawMessage) Object {
	found := false
	for i := range o {
		if o[i].Name == name {
			o[i].Value, found = value, true
		}
	}
	if !found {
		o = append(o, Member{name, value})
	}
	return o
}

// SetLast returns a new object: o without the member name, then name with
// the value as the last member. o is not changed.
func (o Object) SetLast(name string, value json.RawMessage) Object {
	out := make(Object, 0, len(o)+1)
	for _, m := range o {
		if m.Name != name {
			out = append(out, m)
		}
	}
	return append(out, Member{name, value})
}

// Marshal writes the object compactly, its members in order, its values
// compacted but otherwise as they are.
func (o Object) Marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(String(m.Name))
		b.WriteByte(':')
		if err := json.Compact(&b, m.Value); err != nil {
			b.Write(m.Value) // Parsed as valid JSON: cannot happen.
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// String returns s as a JSON string, without HTML escaping: a path stays
// readable.
func String(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // A string always encodes.
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Array returns the values as a JSON array, each as it is.
func Array(values []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// StripComments returns a copy of text with its // and /* */ comments
// outside strings replaced by spaces (their newlines kept), so that every
// offset stays: what encoding/json parses, and what an Editor's Spans
// point into. A /* comment that is not closed runs to the end of text.
func StripComments(text []byte) []byte {
	out := bytes.Clone(text)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	return out
}

// NewFile returns the text of a new file holding the JSON value compact:
// indented with two spaces, as the agents write their settings, and
// ending with a newline. compact must be valid JSON; if it is not, it is
// returned as it is, with the newline.
func NewFile(compact json.RawMessage) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return append(bytes.Clone(compact), '\n')
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// AfterComments returns text, a file with no JSON value (blank, or
// comments only, as Gemini CLI allows), with the JSON value compact after
// it as NewFile lays it out: the comments stay, and the value starts on a
// line of its own, its lines ended as text's first line is (LineEnding).
// A blank text is replaced. The caller checks that the result parses: a
// text that ends inside a /* comment swallows the value.
func AfterComments(text []byte, compact json.RawMessage) []byte {
	if len(bytes.TrimSpace(text)) == 0 {
		return NewFile(compact)
	}
	eol := LineEnding(text)
	out := bytes.Clone(text)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, eol...) // A // comment ends at the end of its line.
	}
	return append(out, bytes.ReplaceAll(NewFile(compact), []byte("\n"), []byte(eol))...)
}

// LineEnding is the line ending of text's first line: "\r\n" or "\n"
// (also when text is one line). It applies to any text, not only JSON.
func LineEnding(text []byte) string {
	if i := bytes.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// IsBlank reports whether text holds no JSON value: white space only,
// and comments when comments is true.
func IsBlank(text []byte, comments bool) bool {
	if comments {
		text = StripComments(text)
	}
	return len(bytes.TrimSpace(text)) == 0
}

// IsEmptyObject reports whether text is an empty object and nothing else,
// white space aside (no comment either): what is left of a file whose
// only content an edit removed.
func IsEmptyObject(text []byte) bool {
	t := bytes.TrimSpace(text)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
}
