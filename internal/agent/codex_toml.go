package agent

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// The line edits of config.toml. A table runs from its header line to the
// next header line (a line that starts with "["), or to the end.

// tomlTable finds the table keys: the offsets of its header line and of
// the end of the table.
func tomlTable(text []byte, keys []string) (start, end int, ok bool) {
	at := 0
	for at < len(text) {
		next := len(text)
		if i := bytes.IndexByte(text[at:], '\n'); i >= 0 {
			next = at + i + 1
		}
		line := string(text[at:next])
		if strings.HasPrefix(strings.TrimSpace(line), "[") {
			if ok {
				return start, at, true
			}
			if k, isTable := tomlHeader(line); isTable && slicesEqual(k, keys) {
				start, ok = at, true
			}
		}
		at = next
	}
	return start, len(text), ok
}

func slicesEqual(a, b []string) bool { return reflect.DeepEqual(a, b) }

// tomlSetTrust gives the table of key in hooks.state the trusted_hash
// hash: the line replaced, added after the header, or a new table at the
// end.
func tomlSetTrust(text []byte, key, hash string) []byte {
	eol := jsonc.LineEnding(text)
	line := "trusted_hash = " + tomlString(hash) + eol
	keys := []string{"hooks", "state", key}
	start, end, ok := tomlTable(text, keys)
	if !ok {
		// At the end, right after what is there: Codex ends its file with a
		// blank line, and removal takes the table alone, leaving the file
		// as it was.
		out := bytes.Clone(text)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, eol...)
		}
		return append(out, tomlHeaderLine(keys)+eol+line...)
	}
	header := start + bytes.IndexByte(text[start:end], '\n') + 1
	if header <= start { // A header with no line after it, at the end.
		return append(append(bytes.Clone(text), eol...), line...)
	}
	for at := header; at < end; {
		next := end
		if i := bytes.IndexByte(text[at:end], '\n'); i >= 0 {
			next = at + i + 1
		}
		if k, _, found := strings.Cut(string(text[at:next]), "="); found && strings.TrimSpace(k) == "trusted_hash" {
			return concat(text[:at], []byte(line), text[next:])
		}
		at = next
	}
	return concat(text[:header], []byte(line), text[header:])
}

// tomlDeleteTable removes the table keys: its header and its lines, to
// the next header.
func tomlDeleteTable(text []byte, keys []string) []byte {
	start, end, ok := tomlTable(text, keys)
	if !ok {
		return text
	}
	return concat(text[:start], text[end:])
}

// tomlRenameTable gives the table from the header of the table to.
func tomlRenameTable(text []byte, from, to []string) []byte {
	start, end, ok := tomlTable(text, from)
	if !ok {
		return text
	}
	header := start + bytes.IndexByte(text[start:end], '\n')
	if header < start {
		header = end
	}
	return concat(text[:start], []byte(tomlHeaderLine(to)), text[header:])
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// tomlHeaderLine is the header of the table keys, as Codex writes it:
// bare keys bare, others quoted.
func tomlHeaderLine(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		if tomlBare(k) {
			parts[i] = k
		} else {
			parts[i] = tomlString(k)
		}
	}
	return "[" + strings.Join(parts, ".") + "]"
}

func tomlBare(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlHeader reads line as a table header, [key.key...] with an optional
// comment after it; array tables ([[...]]) and anything else are not.
func tomlHeader(line string) ([]string, bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "[") || strings.HasPrefix(s, "[[") {
		return nil, false
	}
	i := 1
	var keys []string
	for {
		i = skipTOMLSpace(s, i)
		key, n, ok := tomlKey(s[i:])
		if !ok {
			return nil, false
		}
		keys = append(keys, key)
		i = skipTOMLSpace(s, i+n)
		switch {
		case i < len(s) && s[i] == '.':
			i++
		case i < len(s) && s[i] == ']':
			rest := strings.TrimSpace(s[i+1:])
			return keys, rest == "" || rest[0] == '#'
		default:
			return nil, false
		}
	}
}

func skipTOMLSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// tomlKey reads one key at the start of s: bare, "basic" or 'literal';
// n is how many bytes it took.
func tomlKey(s string) (key string, n int, ok bool) {
	switch {
	case s == "":
		return "", 0, false
	case s[0] == '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", 0, false
		}
		return s[1 : 1+end], end + 2, true
	case s[0] == '"':
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				k, err := strconv.Unquote(tomlToGoEscapes(s[:i+1]))
				return k, i + 1, err == nil
			}
		}
		return "", 0, false
	}
	i := 0
	for i < len(s) && tomlBare(s[i:i+1]) {
		i++
	}
	return s[:i], i, i > 0
}

// tomlToGoEscapes spells a TOML basic string's escapes as Go's: \UXXXXXXXX
// and \e are TOML's alone (Go's \U takes 8 digits too).
func tomlToGoEscapes(q string) string {
	return strings.ReplaceAll(q, `\e`, `\x1b`)
}
