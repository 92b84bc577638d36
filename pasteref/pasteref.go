// Package pasteref expands paste-by-reference tokens: an agent writes
//
//	{{file:/abs/path:START:END}}
//
// instead of echoing lines that already exist in a file, and Expand replaces
// the token with those lines before the edit is applied. Expansion is all or
// nothing: any bad reference aborts the whole expansion, and the caller writes
// nothing. A failed expansion never substitutes an empty string, which would
// turn a move into a deletion.
//
// # Syntax
//
// A reference is "{{file:", PATH, ":", START, ":", END, "}}" with no spaces and
// no quotes, on one line:
//
//   - The reference ends at the first "}}" after "{{file:"; a newline (LF or
//     CR) or the end of the input before that makes it malformed. So PATH
//     cannot contain "}}" or a newline.
//   - START and END are the last two ":"-separated fields, so PATH may itself
//     contain ":" ("{{file:/data/x:1:2/y.txt:3:4}}" names /data/x:1:2/y.txt).
//   - START and END are decimal digits only: no sign, no spaces, at most
//     9 digits; leading zeros are allowed and ignored ("007" is 7).
//   - PATH must be absolute (filepath.IsAbs). Nothing in it is interpreted:
//     "~/x" and "$HOME/x" are relative and rejected, and "/home/$USER/x" names
//     a directory called "$USER". The path is opened as written, not cleaned;
//     symbolic links are followed, so the content is what reading the path
//     gives.
//
// Any "{{file:" that does not complete as such a reference is an error
// (ErrMalformed), never literal text.
//
// # Literal "{{file:"
//
// A backslash right before "{{file:" stands for the literal text: "\{{file:"
// is written as "{{file:" (the backslash is dropped), so `\{{file:/a:1:2}}`
// becomes `{{file:/a:1:2}}`. The escape covers those eight bytes; scanning
// resumes right after them, so a later "{{file:" is a reference again. Exactly
// one backslash is consumed and no other backslash is touched: `\\{{file:`
// becomes `\{{file:`, still literal. (There is no way to put a backslash right
// before an expanded reference; that costs nothing in practice.) Because of
// this, expanding twice is not the same as expanding once.
//
// # Content
//
// Lines are 1-based and inclusive and end after "\n" (a lone CR is not a line
// break). The range is copied byte for byte, with its own trailing newline:
// lines 2..3 of "a\nb\nc\nd\n" are "b\nc\n", and when the range ends with a
// last line that has no newline none is added. CRLF stays CRLF. Expansion is
// one pass: references inside the copied content are not expanded. An empty
// file has no lines.
//
// # Errors
//
// Expand and Check return an *Error naming the first bad reference in the
// input, its byte offset and the reason. For one reference the checks run in
// this order: syntax (ErrMalformed), ErrRelativePath, ErrStartLine,
// ErrEndBeforeStart, opening and reading the file (an *fs.PathError as the
// os package returns it, or one wrapping ErrNotRegular for a directory, a
// device or a named pipe), ErrPastEnd (saying how many lines the file has),
// and ErrTooLarge. A file that cannot be read is reported for the first
// reference to it.
//
// # Files
//
// Each distinct PATH (as written) is opened and read once per call, even when
// several references name it, and only as far as the furthest line they need:
// referring to the head of a huge log does not read the whole log. A file that
// changes between a Check and an Expand, or while Expand reads it, is the
// caller's problem; Expand reads what is there when it reads.
//
// The functions are safe for concurrent use.
package pasteref

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// MaxOutput caps the size of an expansion's output: 64 MiB. That is far above
// any edit an agent makes (a 500-line source file is about 20 KiB), and low
// enough that a wrong range over a huge log cannot exhaust memory: Expand
// stops copying once the copied ranges pass the cap, so it holds at most
// about twice MaxOutput, however large the files are.
//
// The cap counts the whole output, text and expanded ranges, and applies when
// the input has at least one reference (input without one is the caller's to
// bound). ErrTooLarge names the reference at which the output passes the cap,
// or the last reference when only the text after it does.
const MaxOutput = 64 << 20

// maxOutput is MaxOutput, a variable so that tests can exercise the cap with
// small files.
var maxOutput = MaxOutput

// Error is a failed expansion: which reference, where in the input, and why.
type Error struct {
	// Ref is the reference as written, e.g. "{{file:/src/a.go:10:20}}". For a
	// malformed one it runs from "{{file:" to the first "}}", or to the end of
	// its line. A reference longer than 200 bytes is cut there and ends
	// in "...".
	Ref    string
	Offset int   // byte offset of the reference in the input
	Err    error // the reason: wraps one of the Err variables, or an *fs.PathError
}

// maxRef bounds Error.Ref and a path quoted in an error message, so that a
// runaway reference (a missing "}}" on a long minified line) stays readable.
const maxRef = 200

func (e *Error) Error() string {
	return "paste-ref: " + e.Ref + ": " + e.reason()
}

func (e *Error) Unwrap() error { return e.Err }

// reason is the text of e.Err; it is one line because neither a reference nor
// a path in one can contain a newline.
func (e *Error) reason() string {
	if e.Err == nil {
		return "unknown error"
	}
	return e.Err.Error()
}

// Report formats the failure for the agent, in the shape of the paste-ref
// contract:
//
//	[paste-ref] Expansion failed.
//	  Reference: {{file:D:/proj/src/old.py:42:78}}
//	  Error: open D:/proj/src/old.py: no such file or directory
//	  Action: Edit aborted. Verify path before retrying.
//
// Every line ends in a newline. The Action line is left out when action is
// empty.
func (e *Error) Report(action string) string {
	var b strings.Builder
	b.WriteString("[paste-ref] Expansion failed.\n")
	b.WriteString("  Reference: " + e.Ref + "\n")
	b.WriteString("  Error: " + e.reason() + "\n")
	if action != "" {
		b.WriteString("  Action: " + action + "\n")
	}
	return b.String()
}

// The reasons an expansion fails, besides an *fs.PathError from opening or
// reading a file (fs.ErrNotExist, fs.ErrPermission...). Each is wrapped with
// the detail: what is malformed, the path, the numbers, the cap.
var (
	ErrMalformed      = errors.New("malformed reference")
	ErrRelativePath   = errors.New("path is not absolute")
	ErrNotRegular     = errors.New("not a regular file")
	ErrStartLine      = errors.New("start line must be at least 1")
	ErrEndBeforeStart = errors.New("end line is before start line")
	ErrPastEnd        = errors.New("end line is past the end of the file")
	ErrTooLarge       = errors.New("expansion too large")
)

// marker starts every reference.
const marker = "{{file:"

// Contains reports whether src has anything Expand would act on: a reference,
// malformed or not, or an escaped "\{{file:". When it reports false, Expand
// returns a copy of src and Check returns nil, without reading any file.
func Contains(src []byte) bool {
	return bytes.Contains(src, []byte(marker))
}

// Expand returns src with every reference replaced by the lines it names and
// every escaped "\{{file:" replaced by "{{file:". On any error it returns nil
// and an *Error for the first bad reference; the caller must write nothing.
// On success the result is never nil and never shares memory with src.
func Expand(src []byte) ([]byte, error) {
	return expand(src, true)
}

// Check validates every reference, reading the files as Expand does, without
// building the output. It returns the same error Expand would.
func Check(src []byte) error {
	_, err := expand(src, false)
	return err
}

// expand lexes src, reads each named file once, validates the references in
// input order and, when build is set, assembles the output.
func expand(src []byte, build bool) ([]byte, error) {
	toks, stop := lex(src)
	x := &expansion{
		byPath: groupByPath(toks),
		files:  make(map[string]*fileState),
		budget: budget{limit: maxOutput, off: !build},
	}
	size, prev := 0, 0 // output bytes so far; end of the last token
	var last *token
	for i := range toks {
		t := &toks[i]
		size += t.off - prev
		prev = t.end
		if t.escape {
			continue
		}
		last = t
		if err := x.file(t).check(t); err != nil {
			return nil, refError(src, t, err)
		}
		if size += t.size; size > maxOutput {
			return nil, refError(src, t, tooLarge())
		}
	}
	if stop != nil {
		return nil, stop
	}
	if size += len(src) - prev; last != nil && size > maxOutput {
		return nil, refError(src, last, tooLarge())
	}
	if !build {
		return nil, nil
	}
	return assemble(src, toks, size), nil
}

// expansion is what one call knows about the files it reads.
type expansion struct {
	byPath map[string][]*token // the references to each path, in input order
	files  map[string]*fileState
	budget budget
	br     *bufio.Reader // the read buffer, shared by the files
}

// file reads the file that t names, the first time a reference names it.
func (x *expansion) file(t *token) *fileState {
	if f, ok := x.files[t.path]; ok {
		return f
	}
	if x.br == nil {
		x.br = bufio.NewReaderSize(nil, readSize)
	}
	f := readRanges(t.path, x.byPath[t.path], &x.budget, x.br)
	x.files[t.path] = f
	return f
}

func tooLarge() error {
	return fmt.Errorf("%w: the output would be over %d bytes", ErrTooLarge, maxOutput)
}

// assemble copies src into a new slice of the given size, replacing each
// token by its text: the lines for a reference, nothing for an escape's
// backslash.
func assemble(src []byte, toks []token, size int) []byte {
	out := make([]byte, 0, size)
	prev := 0
	for _, t := range toks {
		out = append(out, src[prev:t.off]...)
		out = append(out, t.text...)
		prev = t.end
	}
	return append(out, src[prev:]...)
}

// groupByPath lists the references to each path, in input order.
func groupByPath(toks []token) map[string][]*token {
	m := make(map[string][]*token)
	for i := range toks {
		if t := &toks[i]; !t.escape {
			m[t.path] = append(m[t.path], t)
		}
	}
	return m
}

// refError is the *Error for the reference t.
func refError(src []byte, t *token, err error) *Error {
	return &Error{Ref: shorten(string(src[t.off:t.end])), Offset: t.off, Err: err}
}

// shorten cuts s to maxRef bytes, marking the cut. It cuts before a rune
// split by maxRef, but never further back than a rune's length: in invalid
// UTF-8 (a run of continuation bytes) it cuts at maxRef. The fuzzer found
// that an unbounded backing off could cut "{{file:" itself.
func shorten(s string) string {
	if len(s) <= maxRef {
		return s
	}
	n := maxRef
	for back := 1; back < utf8.UTFMax && !utf8.RuneStart(s[n]); back++ {
		n--
	}
	if !utf8.RuneStart(s[n]) {
		n = maxRef
	}
	return s[:n] + "..."
}

// fileState is what reading one path found.
type fileState struct {
	lines int   // lines read; all of them when a reference is past the end
	err   error // from opening or reading; nil if the ranges were read
}

// check validates reference t against its file.
func (f *fileState) check(t *token) error {
	if f.err != nil {
		return f.err
	}
	if t.last > f.lines {
		return fmt.Errorf("%w: line %d, but %s", ErrPastEnd, t.last, lineCount(f.lines))
	}
	return nil
}

// lineCount says how many lines a file has, for ErrPastEnd.
func lineCount(n int) string {
	switch n {
	case 0:
		return "the file is empty"
	case 1:
		return "the file has 1 line"
	}
	return fmt.Sprintf("the file has %d lines", n)
}

// kind names a non-regular file type for ErrNotRegular.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "an irregular file"
}
