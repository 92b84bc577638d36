package fileref

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// maxDigits bounds START and END: 9 digits fit an int on every platform, and
// no file an agent copies from has a billion lines. Longer numbers are
// malformed rather than silently clamped.
const maxDigits = 9

// token is one thing an expansion replaces: a reference, or the backslash of an
// escaped "\{{file:".
type token struct {
	off, end    int  // src[off:end] is the reference, or the escape's backslash
	escape      bool // an escape; the fields below are for references
	path        string
	first, last int      // the line range, 1-based and inclusive
	line        [2]int   // in a patch, the added line the reference stands for (doc.place)
	size        int      // bytes of the range read (expansion.take)
	parts       [][]byte // the range, when kept for the output: copies in the arena
}

// span is the part of the input that t replaces: the reference, or the
// escape's backslash, or in a patch the whole added line.
func (t *token) span() (from, to int) {
	if t.line[1] > 0 {
		return t.line[0], t.line[1]
	}
	return t.off, t.end
}

// lex finds the tokens of src, in order. It stops at the first reference that
// is wrong on its face (malformed, relative, a bad range) and returns the
// tokens before it with that reference's error; no file is read. With all
// set it goes on after such a reference, from where it was judged to end,
// and returns every token and the error of every reference wrong on its
// face, in input order.
func lex(src []byte, all bool) (toks []token, errs []*Error) {
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte(marker))
		if j < 0 {
			return toks, errs
		}
		j += i
		if j > 0 && src[j-1] == '\\' {
			toks = append(toks, token{off: j - 1, end: j, escape: true})
			i = j + len(marker)
			continue
		}
		t, err := lexRef(src, j)
		if err != nil {
			errs = append(errs, &Error{Ref: shorten(string(src[j:t.end])), Offset: j, Err: err})
			if !all {
				return toks, errs
			}
		} else {
			toks = append(toks, t)
		}
		i = t.end // Past the marker, also for a malformed reference.
	}
}

// lexRef reads the reference at src[off:], which starts with marker. The
// returned token's end is set even on error, to where the reference was
// judged to end.
func lexRef(src []byte, off int) (token, error) {
	body := off + len(marker)
	t := token{off: off, end: len(src)}
	for p := body; p < len(src); p++ {
		switch src[p] {
		case '\n', '\r':
			t.end = p
			return t, malformed(`missing "}}" before the end of the line`)
		case '}':
			if p+1 < len(src) && src[p+1] == '}' {
				t.end = p + 2
				err := parseBody(&t, string(src[body:p]))
				return t, err
			}
		}
	}
	return t, malformed(`missing "}}" before the end of the input`)
}

// parseBody fills in t from the text between "{{file:" and "}}":
// PATH:START:END, where the last two fields are the numbers.
func parseBody(t *token, body string) error {
	j := strings.LastIndexByte(body, ':')
	i := strings.LastIndexByte(body[:max(j, 0)], ':')
	if i < 0 {
		return malformed("want {{file:PATH:START:END}}")
	}
	path, first, last := body[:i], body[i+1:j], body[j+1:]
	if path == "" {
		return malformed("empty path")
	}
	var err error
	if t.first, err = parseLine("start", first); err != nil {
		return err
	}
	if t.last, err = parseLine("end", last); err != nil {
		return err
	}
	t.path = path
	return checkRef(path, t.first, t.last)
}

// parseLine parses a line number: 1 to maxDigits decimal digits.
func parseLine(which, s string) (int, error) {
	if s == "" {
		return 0, malformed("missing %s line", which)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, malformed("%s line %q is not a decimal number", which, shorten(s))
		}
	}
	if len(s) > maxDigits {
		return 0, malformed("%s line %q has more than %d digits", which, shorten(s), maxDigits)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, nil
}

// checkRef applies the checks that need no file.
func checkRef(path string, first, last int) error {
	switch {
	case !filepath.IsAbs(path):
		return fmt.Errorf("%w: %q", errRelativePath, shorten(path))
	case first < 1:
		return fmt.Errorf("%w, not %d", errStartLine, first)
	case last < first:
		return fmt.Errorf("%w: %d < %d", errEndBeforeStart, last, first)
	}
	return nil
}

// malformed wraps errMalformed with what is wrong.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errMalformed}, args...)...)
}
