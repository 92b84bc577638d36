// Package jsregexp reads regular expressions written for JavaScript, as
// the agents' settings and libraries hold them, with Go's regexp: the
// escapes JavaScript reads its own way are rewritten in Go's syntax. What
// Go's RE2 cannot run (lookaround, back references) fails to compile,
// and a caller that honours a rule it cannot read denies instead.
package jsregexp

import (
	"regexp"
	"strings"
)

// Compile compiles a JavaScript regular expression, without case when
// ignoreCase (its "i" flag).
func Compile(src string, ignoreCase bool) (*regexp.Regexp, error) {
	s := Syntax(src)
	if ignoreCase {
		s = "(?i)" + s
	}
	return regexp.Compile(s)
}

// jsSpace is JavaScript's \s, which takes more than Go's.
const jsSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// Syntax rewrites a JavaScript regular expression in Go's syntax: a backslash before a letter that names
// nothing in JavaScript stands for the letter itself ("\x" is "x"), and
// \s is JavaScript's wider one.
func Syntax(src string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		}
		if c != '\\' || i+1 == len(src) {
			b.WriteByte(c)
			continue
		}
		i++
		e := src[i]
		switch {
		case e == 's' && inClass:
			b.WriteString(jsSpace)
		case e == 's':
			b.WriteString("[" + jsSpace + "]")
		case e == 'S' && !inClass:
			b.WriteString("[^" + jsSpace + "]")
		case strings.IndexByte("dDwWSfnrtv", e) >= 0, e == 'b' && !inClass, e == 'B' && !inClass:
			b.WriteByte('\\')
			b.WriteByte(e)
		case e == 'b':
			b.WriteString(`\x08`)
		case e == '0':
			b.WriteString(`\x00`)
		case e == 'x' && i+2 < len(src) && isHex(src[i+1]) && isHex(src[i+2]):
			b.WriteString(`\x` + src[i+1:i+3])
			i += 2
		case e == 'u' && i+4 < len(src) && isHex(src[i+1]) && isHex(src[i+2]) && isHex(src[i+3]) && isHex(src[i+4]):
			b.WriteString(`\x{` + src[i+1:i+5] + `}`)
			i += 4
		case e < 0x80:
			b.WriteString(regexp.QuoteMeta(string(e)))
		default:
			b.WriteByte(e) // A byte of a UTF-8 sequence: itself.
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
