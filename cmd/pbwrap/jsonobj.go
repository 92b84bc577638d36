package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonObject is a JSON object of an agent's configuration, with its
// members in the order they came: opencode reads its permission rules in
// that order (the last that matches wins) and Gemini CLI its trusted
// folders (the first of the longest), so a rewrite must keep it, which a
// Go map does not. Values are kept as they came.
type jsonObject []jsonMember

type jsonMember struct {
	name  string
	value json.RawMessage
}

// errNotObject: the value is valid JSON but not an object.
var errNotObject = errors.New("not a JSON object")

// parseObject parses text that must be one JSON object, and nothing else.
func parseObject(text []byte) (jsonObject, error) {
	if !json.Valid(text) {
		var v any
		return nil, json.Unmarshal(text, &v) // Says where it is wrong.
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var obj jsonObject
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var m jsonMember
		m.name, _ = tok.(string) // Valid JSON: an object's key is a string.
		if err := dec.Decode(&m.value); err != nil {
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

// get returns the value of the member name, the last one when the name
// is repeated (as JavaScript's JSON.parse takes it), or nil.
func (o jsonObject) get(name string) json.RawMessage {
	var v json.RawMessage
	for _, m := range o {
		if m.name == name {
			v = m.value
		}
	}
	return v
}

// set gives the member name the value, where it stands (every time, when
// the name is repeated), or as a new last member.
func (o jsonObject) set(name string, value json.RawMessage) jsonObject {
	found := false
	for i := range o {
		if o[i].name == name {
			o[i].value, found = value, true
		}
	}
	if !found {
		o = append(o, jsonMember{name, value})
	}
	return o
}

// setLast makes name the last member, with the value.
func (o jsonObject) setLast(name string, value json.RawMessage) jsonObject {
	out := make(jsonObject, 0, len(o)+1)
	for _, m := range o {
		if m.name != name {
			out = append(out, m)
		}
	}
	return append(out, jsonMember{name, value})
}

// marshal writes the object compactly, its members in order.
func (o jsonObject) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(m.name))
		b.WriteByte(':')
		if err := json.Compact(&b, m.value); err != nil {
			b.Write(m.value) // Parsed as valid JSON: cannot happen.
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonString is s as a JSON string, without HTML escaping: a path stays
// readable.
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // A string always encodes.
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// stripJSONComments returns text with its // and /* */ comments outside
// strings replaced by spaces, as the configuration readers of Gemini CLI
// and opencode accept them (JSON with comments).
func stripJSONComments(text []byte) []byte {
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
