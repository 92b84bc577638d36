package capture

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// DefaultRefFormat is the reference typed in place of a saved paste, as
// the pi-pasteboard users know it.
const DefaultRefFormat = "[paste saved: {path}]"

// refFields are the placeholders a reference format may use.
var refFields = []string{"{path}", "{bytes}", "{lines}", "{sha256}", "{n}"}

// RefFormat is a validated reference template.
type RefFormat struct{ tmpl string }

// ParseRefFormat checks a reference template: it must use {path} (a
// reference the agent cannot open is useless), only the known placeholders
// {path} {bytes} {lines} {sha256} {n}, and no control character (a newline
// would submit the agent's prompt).
func ParseRefFormat(s string) (RefFormat, error) {
	if !strings.Contains(s, "{path}") {
		return RefFormat{}, fmt.Errorf("reference format %q: must contain {path}", s)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return RefFormat{}, fmt.Errorf("reference format %q: control character %q not allowed", s, r)
		}
	}
	rest := s
	for _, f := range refFields {
		rest = strings.ReplaceAll(rest, f, "")
	}
	if i := strings.IndexByte(rest, '{'); i >= 0 {
		field, _, _ := strings.Cut(rest[i:], "}")
		return RefFormat{}, fmt.Errorf("reference format %q: unknown placeholder %s} (known: %s)", s, field, strings.Join(refFields, " "))
	}
	return RefFormat{tmpl: s}, nil
}

// refValues are what a reference may say about a saved paste.
type refValues struct {
	path   string
	bytes  int64
	lines  int64
	sha256 string
	n      int
}

// render fills in the template.
func (f RefFormat) render(v refValues) string {
	tmpl := f.tmpl
	if tmpl == "" {
		tmpl = DefaultRefFormat
	}
	return strings.NewReplacer(
		"{path}", v.path,
		"{bytes}", strconv.FormatInt(v.bytes, 10),
		"{lines}", strconv.FormatInt(v.lines, 10),
		"{sha256}", v.sha256,
		"{n}", strconv.Itoa(v.n),
	).Replace(tmpl)
}

// String returns the template.
func (f RefFormat) String() string {
	if f.tmpl == "" {
		return DefaultRefFormat
	}
	return f.tmpl
}
