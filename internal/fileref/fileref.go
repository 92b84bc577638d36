// Package fileref expands paste-by-reference tokens: an agent writes
//
//	{{file:/abs/path:START:END}}
//
// instead of echoing lines that already exist in a file, and an expansion
// (a hook's Protocol.Answer, or ExpandAll) replaces the token with those
// lines before the edit is applied. Expansion is all or
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
//     a directory called "$USER". ExpandAll and CheckAll open the path as written,
//     not cleaned, and follow symbolic links, so the content is what reading
//     the path gives. The hooks are stricter (see Protocol.Answer): no symbolic
//     link, and only below the agent's working directory or pbwrap's root.
//
// Any "{{file:" that does not complete as such a reference is an error
// (errMalformed), never literal text.
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
// # Limits
//
// One call (an ExpandAll, a CheckAll, a hook's whole tool input) has bounded cost
// whatever the files are, so that a hook always answers well inside the
// time its agent gives it:
//
//   - at most MaxRefs references (errTooMany), counted before any file is
//     opened;
//   - at most MaxOutput bytes of output (errTooLarge);
//   - at most MaxRead bytes read from files, lines skipped on the way to a
//     range included (errReadLimit).
//
// Memory is bounded by MaxOutput: the copied ranges are kept once however
// many references share them, and never past the cap, so a call holds at
// most about MaxOutput of ranges plus the output it returns, however large
// the files or their lines are.
//
// # Errors
//
// A hook denies a call with the *Error of the first bad reference in the
// input: its byte offset, its line and the reason; ExpandAll and CheckAll,
// for people who fix them all at once, return one for every bad reference.
// For one reference the checks run in this order: syntax (errMalformed), errRelativePath, errStartLine,
// errEndBeforeStart, opening and reading the file (an *fs.PathError as the
// os package returns it, or one wrapping errNotRegular for a directory, a
// device or a named pipe), errPastEnd (saying how many lines the file has),
// and errTooLarge. A file that cannot be read is reported for the first
// reference to it. More references than MaxRefs fail at the first one over
// the limit, before anything else is checked.
//
// Reading stops as soon as the call is bound to fail. Once the ranges read
// so far and the text around the references are more than MaxOutput, the
// output cannot fit whatever the rest holds: reading stops, and the error
// is errTooLarge at the reference where the output passes the cap (or an
// error found before it); a reference whose range was not reached by then
// is not judged. Once MaxRead bytes are read, the first reference whose
// range was not reached fails with errReadLimit, which says how many lines
// the file has at least. So a range over the cap costs at most MaxOutput
// of reading, and a range past the end of a huge file (which needs the
// whole file to be read to count its lines) at most MaxRead.
//
// # Files
//
// Each distinct PATH (as written) is opened and read once per call, even when
// several references name it (in a hook, in any of the tool input's fields),
// and only as far as the furthest line they need, or less when the call is
// bound to fail: referring to the head of a huge log does not read the whole
// log. A file that changes between a CheckAll and an ExpandAll, or while
// it is read, is the caller's problem; an expansion reads what is there
// when it reads.
//
// The functions are safe for concurrent use.
package fileref

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The limits of one call; see Limits in the package documentation. Each is
// far above what an agent's edit needs and low enough that the worst case
// costs about a second.
const (
	// MaxOutput caps the output: 64 MiB. A 500-line source file is about
	// 20 KiB; a wrong range over a huge log cannot exhaust memory.
	//
	// The cap counts the whole output, text and expanded ranges, and applies
	// when the input has at least one reference (input without one is the
	// caller's to bound). errTooLarge names the reference at which the output
	// passes the cap, or the last reference when only the text after it does.
	// A hook counts its output as its answer carries it, escaped for JSON
	// (see Protocol.Answer).
	MaxOutput = 64 << 20

	// MaxRead caps the bytes read from files: 256 MiB, four times the output
	// cap, so that a range deep in a large paste still expands, while the
	// worst case reads in a fraction of a second from the page cache and in
	// under 3 s from a disk at 100 MB/s, far inside a hook's 30 s timeout.
	MaxRead = 256 << 20

	// MaxRefs caps the references in one call: 10000. A move or a copy needs
	// a handful; 10000 files open and read in well under a second.
	MaxRefs = 10000
)

// The limits, as variables so that tests can exercise them with small
// files.
var (
	maxOutput = MaxOutput
	maxRead   = MaxRead
	maxRefs   = MaxRefs
)

// Error is a failed expansion: which reference, where in the input, and why.
type Error struct {
	// Ref is the reference as written, e.g. "{{file:/src/a.go:10:20}}". For a
	// malformed one it runs from "{{file:" to the first "}}", or to the end of
	// its line. A reference longer than 200 bytes is cut there and ends
	// in "...". It is empty when the failure is not a reference's (a hook's
	// input over MaxHookInput).
	Ref    string
	Offset int   // byte offset of the reference in the input
	Line   int   // 1-based line of the reference in the input ("\n" ends a line); 0 when Ref is empty
	Err    error // the reason: wraps one of the reasons below (errMalformed, ...), or an *fs.PathError
}

// maxRef bounds Error.Ref and a path quoted in an error message, so that a
// runaway reference (a missing "}}" on a long minified line) stays readable.
const maxRef = 200

func (e *Error) Error() string {
	if e.Ref == "" {
		return "paste-ref: " + e.reason()
	}
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
// Every line ends in a newline. The Reference line is left out when Ref is
// empty, the Action line when action is.
func (e *Error) Report(action string) string {
	var b strings.Builder
	b.WriteString("[paste-ref] Expansion failed.\n")
	if e.Ref != "" {
		b.WriteString("  Reference: " + e.Ref + "\n")
	}
	b.WriteString("  Error: " + e.reason() + "\n")
	if action != "" {
		b.WriteString("  Action: " + action + "\n")
	}
	return b.String()
}

// The reasons an expansion fails, besides an *fs.PathError from opening or
// reading a file (fs.ErrNotExist, fs.ErrPermission...). Each is wrapped with
// the detail: what is malformed, the path, the numbers, the limit.
var (
	errMalformed      = errors.New("malformed reference")
	errRelativePath   = errors.New("path is not absolute")
	errNotRegular     = errors.New("not a regular file")
	errStartLine      = errors.New("start line must be at least 1")
	errEndBeforeStart = errors.New("end line is before start line")
	errPastEnd        = errors.New("end line is past the end of the file")
	errTooLarge       = errors.New("expansion too large")
	errReadLimit      = errors.New("end line is beyond what an expansion reads")
	errTooMany        = errors.New("too many references")
)

// marker starts every reference.
const marker = "{{file:"

// contains reports whether src has anything an expansion would act on: a
// reference, malformed or not, or an escaped "\{{file:". When it reports
// false, ExpandAll returns a copy of src and CheckAll returns nil, without
// reading any file.
func contains(src []byte) bool {
	return bytes.Contains(src, []byte(marker))
}

// ExpandAll returns src with every reference replaced by the lines it names
// and every escaped "\{{file:" replaced by "{{file:"; on success the result
// is never nil and never shares memory with src. It is for people, who fix
// every bad reference at once: it does not stop at the first one, as a
// hook does. On any error it returns nil and an *Error for each bad
// reference, in input order, the first being the one a hook names; the
// caller must write nothing. A file that cannot be read fails every
// reference to it. The limits of the call (MaxRefs, MaxOutput, MaxRead)
// still apply to the whole input: the list ends at the first reference
// that passes one, since every later one would fail with it. Files that
// fail do not stop the reading of the others, so a failed call may read
// more than a hook would have, within MaxRead.
func ExpandAll(src []byte) ([]byte, []*Error) {
	d := newDocAll(src)
	if errs := runAll([]*doc{d}, openFile, true); len(errs) > 0 {
		return nil, errs
	}
	return d.out, nil
}

// CheckAll validates every reference as ExpandAll does, without building
// the output, and returns the same errors.
func CheckAll(src []byte) []*Error {
	return runAll([]*doc{newDocAll(src)}, openFile, false)
}

func tooLarge() error {
	return fmt.Errorf("%w: the output would be over %s", errTooLarge, byteCount(maxOutput))
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

// lineCount says how many lines a file has, for errPastEnd.
func lineCount(n int) string {
	switch n {
	case 0:
		return "the file is empty"
	case 1:
		return "the file has 1 line"
	}
	return fmt.Sprintf("the file has %d lines", n)
}
