// Package printable makes text that someone else controls safe to show on
// a terminal: a file name, a value read from the root or an agent's
// settings, an error that carries either, what the terminal answered.
//
// Each function's output is valid UTF-8 and holds only runes that print as
// themselves (strconv.IsPrint: letters, marks, numbers, punctuation,
// symbols and the ASCII space). So it holds no C0 control (ESC, BEL, CR,
// LF, TAB among them), no DEL, no C1 control (U+0080 to U+009F, U+009B
// being CSI to some terminals), no format character (U+202E, which
// reverses the text after it, U+200B) and no line or paragraph separator:
// whatever the text, it cannot set the terminal's title, clear its screen,
// write its clipboard (OSC 52), reorder what follows or break a line.
//
// Quote and Inline escape the same runes the same way strconv.Quote does
// (\n, \x1b, \u202e, and \xNN for a byte that is not UTF-8); they differ in
// what they do with the rest. A value always shown in quotes needs none of
// this package: strconv.Quote and %q escape the same set.
package printable

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Prints reports whether s is valid UTF-8 in which every rune prints as
// itself: whether Quote and Inline return s as it is.
func Prints(s string) bool {
	for i, r := range s {
		if !strconv.IsPrint(r) || (r == utf8.RuneError && !strings.HasPrefix(s[i:], string(utf8.RuneError))) {
			return false
		}
	}
	return true
}

// Quote returns s as it is when Prints(s), and otherwise s quoted as a Go
// string (strconv.Quote), which strconv.Unquote reverses. It is for a value
// that is shown alone or between words (a path, a session id): the quotes
// show where it starts and ends. It is reversible only where the output
// is quoted: an s that prints and happens to start and end with '"' is
// returned as it is.
func Quote(s string) string {
	if Prints(s) {
		return s
	}
	return strconv.Quote(s)
}

// Error returns an error whose message is Quote of err's, or nil for nil.
// It keeps err's message only: errors.Is and errors.As see nothing of err.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return plainError(Quote(err.Error()))
}

type plainError string

func (e plainError) Error() string { return string(e) }

// Inline returns s with each rune that does not print escaped in place as
// strconv.Quote escapes it, and each byte that is not UTF-8 as \xNN,
// without quotes around the whole: for a message of several words that
// carries what someone else wrote (an error naming a path, a line of a
// settings file), which stays one readable line. It is not reversible: a
// backslash in s is left as it is, so s holding the two characters \n and
// s holding a newline give the same output.
func Inline(s string) string {
	if Prints(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], string(utf8.RuneError)):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// JSON returns data, JSON as encoding/json writes it, with every rune that
// does not print and that encoding/json leaves as it is (DEL, the C1
// controls, format characters such as U+202E) written as a \uXXXX escape,
// which decodes to the same string: the output is the same JSON value, and
// prints safely. encoding/json already escapes the C0 controls, and
// outside strings it writes only ASCII: the one exception to the
// package's rule is the whitespace between tokens (LF, TAB, CR), which
// MarshalIndent writes and which JSON cannot escape. A byte that is not UTF-8 (which
// encoding/json never writes) becomes \ufffd, as encoding/json decodes it.
// This is the one form for JSON, since Quote's escapes are not JSON's.
func JSON(data []byte) []byte {
	var out bytes.Buffer
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			out.WriteString(`\ufffd`)
		case r < utf8.RuneSelf && r != 0x7f, r >= utf8.RuneSelf && strconv.IsPrint(r):
			out.Write(data[:size]) // An ASCII control here is whitespace between tokens.
		default:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&out, `\u%04x`, u)
			}
		}
		data = data[size:]
	}
	return out.Bytes()
}
