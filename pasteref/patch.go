package pasteref

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrPatchPlacement: in a patch, content lines carry a "+" and the reference
// must be the whole of one, so that each line it stands for can carry its own.
var ErrPatchPlacement = errors.New(`in a patch a reference must be a whole added line, "+{{file:/abs/path:START:END}}"`)

// ExpandPatch expands references in a patch in Codex's apply_patch format,
// where the content of a file is written as lines that start with "+".
// There a reference must stand alone on an added line,
// "+{{file:PATH:START:END}}", and becomes one added line per line of its
// range (a last line without a newline gets one: a patch's lines end with
// one). "\{{file:" is the literal text, as in Expand. Like Expand it is all
// or nothing: on any error it returns nil and an *Error.
func ExpandPatch(patch []byte) ([]byte, error) {
	toks, stop := lex(patch)
	var out []byte
	prev := 0
	for i := range toks {
		t := &toks[i]
		if t.escape {
			continue
		}
		start, end, ok := wholeAddedLine(patch, t)
		if !ok {
			return nil, &Error{Ref: shorten(string(patch[t.off:t.end])), Offset: t.off, Err: ErrPatchPlacement}
		}
		text, err := Expand(patch[prev:start])
		if err != nil {
			return nil, offsetBy(err, prev)
		}
		out = append(out, text...)
		lines, err := Expand(patch[t.off:t.end])
		if err != nil {
			return nil, offsetBy(err, t.off)
		}
		out = appendAdded(out, lines)
		if len(out) > maxOutput {
			return nil, refError(patch, t, tooLarge())
		}
		prev = end
	}
	if stop != nil {
		return nil, stop
	}
	text, err := Expand(patch[prev:])
	if err != nil {
		return nil, offsetBy(err, prev)
	}
	return append(out, text...), nil
}

// wholeAddedLine reports whether reference t is the whole of an added line,
// and that line's extent, its newline included.
func wholeAddedLine(patch []byte, t *token) (start, end int, ok bool) {
	start = bytes.LastIndexByte(patch[:t.off], '\n') + 1
	end = len(patch)
	if i := bytes.IndexByte(patch[t.end:], '\n'); i >= 0 {
		end = t.end + i + 1
	}
	rest := bytes.TrimRight(patch[t.end:end], "\r\n")
	return start, end, t.off == start+1 && patch[start] == '+' && len(rest) == 0
}

// appendAdded appends each line of text as an added line.
func appendAdded(out, text []byte) []byte {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i]
		}
		out = append(out, '+')
		out = append(out, line...)
		out = append(out, '\n')
		text = text[min(len(line)+1, len(text)):]
	}
	return out
}

// offsetBy moves an *Error's offset from a part of the patch to the patch.
func offsetBy(err error, off int) error {
	var e *Error
	if errors.As(err, &e) {
		moved := *e
		moved.Offset += off
		return &moved
	}
	return fmt.Errorf("patch: %w", err)
}
