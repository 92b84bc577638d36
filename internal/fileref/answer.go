package fileref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
)

// object is a JSON object of a tool input as a hook's answer writes it
// back: its members as they came, some replaced by expanded text.
type object struct {
	members map[string]json.RawMessage
	texts   map[string][]byte    // members replaced by expanded text
	lists   map[string][]*object // members replaced by a list of objects (MultiEdit's edits)
}

func newObject(members map[string]json.RawMessage) *object {
	return &object{members: members, texts: make(map[string][]byte), lists: make(map[string][]*object)}
}

// appendTo appends o as JSON.
func (o *object) appendTo(b []byte) ([]byte, error) {
	b = append(b, '{')
	for i, name := range slices.Sorted(maps.Keys(o.members)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, []byte(name))
		b = append(b, ':')
		var err error
		if b, err = o.appendMember(b, name); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendMember appends the value of o's member name.
func (o *object) appendMember(b []byte, name string) ([]byte, error) {
	if text, ok := o.texts[name]; ok {
		return appendString(b, text), nil
	}
	if list, ok := o.lists[name]; ok {
		b = append(b, '[')
		for i, item := range list {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = item.appendTo(b); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, o.members[name]); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return append(b, c.Bytes()...), nil
}

// escapes says how a byte below utf8.RuneSelf is written in a JSON
// string, as encoding/json writes it without HTML escaping: 0 for itself,
// otherwise the letter after a backslash ('u' for \u00XX).
var escapes = func() (e [utf8.RuneSelf]byte) {
	for c := range 0x20 {
		e[c] = 'u'
	}
	e['\b'], e['\f'], e['\n'], e['\r'], e['\t'] = 'b', 'f', 'n', 'r', 't'
	e['"'], e['\\'] = '"', '\\'
	return e
}()

// appendString appends s, valid UTF-8, as a JSON string, byte for byte as
// encoding/json writes it with SetEscapeHTML(false): U+2028 and U+2029
// escaped too.
func appendString(b, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < utf8.RuneSelf && escapes[c] == 0:
			i++
			continue
		case c < utf8.RuneSelf:
			b = append(b, s[start:i]...)
			if e := escapes[c]; e == 'u' {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			} else {
				b = append(b, '\\', e)
			}
			i++
		case lineSeparator(s[i:]):
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xF])
			i += 3
		default:
			i++
			continue
		}
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// stringSize is the size of s escaped as appendString escapes it,
// without the quotes.
func stringSize(s []byte) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < utf8.RuneSelf && escapes[c] == 'u':
			n += 5
		case c < utf8.RuneSelf && escapes[c] != 0:
			n++
		case lineSeparator(s[i:]):
			n += 3
		}
	}
	return n
}

// lineSeparator reports whether s starts with U+2028 or U+2029.
func lineSeparator(s []byte) bool {
	return len(s) >= 3 && s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9)
}

const hex = "0123456789abcdef"
