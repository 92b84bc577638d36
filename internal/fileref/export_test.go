package fileref

// Expand, Check, ExpandPatch and answerIn are the one-error forms the
// tests drive the expansion through: what a hook does to one text, a
// patch, or a call with dirs as its paste roots.

// Expand returns src expanded, or nil and an *Error for the first bad
// reference, as a hook expands one of its fields.
func Expand(src []byte) ([]byte, error) {
	d := newDoc(src, false)
	if err := run([]*doc{d}, openFile, true); err != nil {
		return nil, err
	}
	return d.out, nil
}

// Check judges every reference as Expand does, without building the
// output, and returns the same error.
func Check(src []byte) error {
	return run([]*doc{newDoc(src, false)}, openFile, false)
}

// ExpandPatch expands a patch as a hook expands a Patch field: each
// reference a whole added line, which becomes one added line per line of
// its range.
func ExpandPatch(patch []byte) ([]byte, error) {
	d := newDoc(patch, true)
	if err := run([]*doc{d}, openFile, true); err != nil {
		return nil, err
	}
	return d.out, nil
}

// answerIn is p's answer to in with dirs as the paste roots and no other
// rule of a scope.
func answerIn(p *Protocol, in []byte, dirs []string) ([]byte, error) {
	return p.Answer(in, Scope{Roots: dirs})
}
