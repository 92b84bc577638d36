package fileref

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// doc is one text that a call expands: the input of ExpandAll, a patch, or one
// field of a hook's tool input. A call expands all its docs together: each
// file is read once for all of them, and the limits count them all.
type doc struct {
	src   []byte
	patch bool     // a patch: references are whole added lines (Tool.Patch)
	toks  []token  // in input order
	stop  *Error   // the first reference wrong on its face; toks end before it
	bad   []*Error // for runAll: every reference wrong on its face (toks has the others)
	size  int      // the output's size, once judged
	out   []byte   // the output, once assembled
	lines lineCursor
}

// newDoc lexes src; in a patch it also checks where references stand.
func newDoc(src []byte, patch bool) *doc {
	d := &doc{src: src, patch: patch, lines: lineCursor{src: src}}
	toks, errs := lex(src, false)
	d.toks = toks
	if len(errs) > 0 {
		d.stop = d.withLine(errs[0])
	}
	if patch {
		d.place()
	}
	return d
}

// newDocAll lexes src for runAll: every token, and in bad every reference
// wrong on its face.
func newDocAll(src []byte) *doc {
	d := &doc{src: src, lines: lineCursor{src: src}}
	d.toks, d.bad = lex(src, true)
	for _, e := range d.bad {
		d.withLine(e)
	}
	return d
}

// refError is the *Error for the reference t of d.
func (d *doc) refError(t *token, err error) *Error {
	return d.withLine(&Error{Ref: shorten(string(d.src[t.off:t.end])), Offset: t.off, Err: err})
}

// withLine sets e.Line from e.Offset, and returns e.
func (d *doc) withLine(e *Error) *Error {
	e.Line = d.lines.at(e.Offset)
	return e
}

// lineCursor gives the line of an offset in src. It counts on from the
// last offset it was asked for, so that a call that reports every bad
// reference, in input order, reads src about once, not once per error.
type lineCursor struct {
	src  []byte
	off  int // counted up to here
	line int // the line at off, minus 1
}

// at returns the 1-based line of src[off]: one more than the newlines
// before it. A lone CR is no line break, as in a reference's range.
func (c *lineCursor) at(off int) int {
	if off < c.off {
		c.off, c.line = 0, 0
	}
	c.line += bytes.Count(c.src[c.off:off], []byte("\n"))
	c.off = off
	return c.line + 1
}

// opener opens a file for reading, refusing anything but a regular file.
type opener func(path string) (io.ReadCloser, error)

// stopReason says why a call stopped reading before it had read every
// range: because it is bound to fail.
type stopReason int

const (
	notStopped stopReason = iota
	stopOutput            // the ranges read and the text are over maxOutput
	stopRead              // maxRead bytes were read
	stopFailed            // a file could not be opened or read
)

// expansion is one call: its docs, the files they name, what was read.
type expansion struct {
	docs    []*doc
	open    opener
	build   bool                  // keep the ranges and assemble the output (ExpandAll, a hook), or only judge (CheckAll)
	all     bool                  // judge every reference (runAll), not only up to the first bad one
	files   map[string]*fileState // by path as written
	text    int                   // bytes of the docs outside the tokens
	ranged  int                   // bytes of ranges read so far, counted once per reference
	read    int                   // bytes read from files
	stopped stopReason
	arena   arena
}

// run expands docs: it counts the references, reads each file once, judges
// every reference in input order and, when build is set, assembles each
// doc's out. It returns nil or the *Error for the first bad reference.
func run(docs []*doc, open opener, build bool) error {
	x := &expansion{docs: docs, open: open, build: build, files: make(map[string]*fileState)}
	if err := x.count(); err != nil {
		return err
	}
	x.readAll()
	if err := x.judge(); err != nil {
		return err
	}
	if build {
		for _, d := range docs {
			d.out = d.assemble()
		}
	}
	return nil
}

// runAll is run for a caller that reports every bad reference, not only
// the first (ExpandAll, CheckAll): files that fail do not stop the reading,
// and every reference is judged. It returns the errors in input order, or
// none. A limit of the whole call (MaxRefs, MaxOutput, MaxRead) ends the
// list: every reference after it would fail with it.
func runAll(docs []*doc, open opener, build bool) []*Error {
	x := &expansion{docs: docs, open: open, build: build, all: true, files: make(map[string]*fileState)}
	if err := x.count(); err != nil {
		return []*Error{err}
	}
	x.readAll()
	if errs := x.judgeAll(); len(errs) > 0 {
		return errs
	}
	if build {
		for _, d := range docs {
			d.out = d.assemble()
		}
	}
	return nil
}

// judgeAll is judge for runAll: it returns the error of every bad
// reference, in input order, those wrong on their face (doc.bad) among
// them, up to and with the first limit of the whole call.
func (x *expansion) judgeAll() []*Error {
	var errs []*Error
	size := 0
	var last *token
	var lastDoc *doc
	for _, d := range x.docs {
		bad, prev := d.bad, 0
		for i := range d.toks {
			t := &d.toks[i]
			from, to := t.span()
			size += from - prev
			prev = to
			if t.escape {
				continue
			}
			for len(bad) > 0 && bad[0].Offset < t.off {
				errs, bad = append(errs, bad[0]), bad[1:]
			}
			last, lastDoc = t, d
			if err := x.judgeRef(t, d.patch, &size); err != nil {
				errs = append(errs, d.refError(t, err))
				if errors.Is(err, errTooLarge) || errors.Is(err, errReadLimit) {
					return errs
				}
			}
		}
		errs = append(errs, bad...)
		size += len(d.src) - prev
	}
	if last != nil && (size > maxOutput || x.stopped != notStopped) {
		errs = append(errs, lastDoc.refError(last, tooLarge())) // As in judge.
	}
	return errs
}

// count applies maxRefs and adds up the text outside the tokens.
func (x *expansion) count() *Error {
	refs := 0
	for _, d := range x.docs {
		x.text += len(d.src)
		for i := range d.toks {
			t := &d.toks[i]
			from, to := t.span()
			x.text -= to - from
			if t.escape {
				continue
			}
			if refs++; refs > maxRefs {
				return d.refError(t, fmt.Errorf("%w: more than %d in one input", errTooMany, maxRefs))
			}
		}
	}
	return nil
}

// readAll reads the files in the order of their first reference, until
// every one is read or the call is bound to fail.
func (x *expansion) readAll() {
	byPath, order := x.byPath()
	br := bufio.NewReaderSize(nil, readSize)
	for _, path := range order {
		if x.bound() {
			return
		}
		f := x.readFile(path, byPath[path], br)
		x.files[path] = f
		if f.err != nil && !x.all {
			// Every reference before this file's first one names a file
			// read already, and that one fails: nothing more to learn.
			x.stopped = stopFailed
		}
	}
}

// byPath lists the references to each path, in input order, and the paths
// in the order of their first reference.
func (x *expansion) byPath() (map[string][]*token, []string) {
	m := make(map[string][]*token)
	var order []string
	for _, d := range x.docs {
		for i := range d.toks {
			t := &d.toks[i]
			if t.escape {
				continue
			}
			if _, ok := m[t.path]; !ok {
				order = append(order, t.path)
			}
			m[t.path] = append(m[t.path], t)
		}
	}
	return m, order
}

// judge validates the references in input order, from what was read, and
// sets each doc's size. The output's size counts across the docs.
func (x *expansion) judge() error {
	size := 0
	var last *token
	var lastDoc *doc
	for _, d := range x.docs {
		start, prev := size, 0
		for i := range d.toks {
			t := &d.toks[i]
			from, to := t.span()
			size += from - prev
			prev = to
			if t.escape {
				continue
			}
			last, lastDoc = t, d
			if err := x.judgeRef(t, d.patch, &size); err != nil {
				return d.refError(t, err)
			}
		}
		if d.stop != nil {
			return d.stop
		}
		size += len(d.src) - prev
		d.size = size - start
	}
	if last != nil && (size > maxOutput || x.stopped != notStopped) {
		// The text after the last reference takes the output over the cap.
		// (Reading stops only when the call is bound to fail: never let a
		// range not read through pass.)
		return lastDoc.refError(last, tooLarge())
	}
	return nil
}

// judgeRef checks reference t against what was read of its file and adds
// its share of the output to *size, the output's size up to it.
func (x *expansion) judgeRef(t *token, patch bool, size *int) error {
	f := x.file(t.path)
	n, err := f.check(t, patch)
	if err != nil {
		return err
	}
	if *size += n; *size > maxOutput {
		return tooLarge()
	}
	if !f.reached(t) && x.stopped == stopRead {
		return x.readLimit(t, f)
	}
	// Not reached, and reading stopped for the cap: not judged; the output
	// passes the cap at this reference or a later one.
	return nil
}

// file is what was read of path; an empty state when reading stopped
// before opening it.
func (x *expansion) file(path string) *fileState {
	if f := x.files[path]; f != nil {
		return f
	}
	return &fileState{}
}

// readLimit is the error for reference t, whose range is beyond what the
// call could read.
func (x *expansion) readLimit(t *token, f *fileState) error {
	where := "before this file"
	if n := f.lines(); n > 0 {
		where = "where this file has at least " + plural(n, "line")
	}
	return fmt.Errorf("%w: line %d, but reading stopped after %s of files, %s", errReadLimit, t.last, byteCount(maxRead), where)
}

// assemble builds d's output: the text, with each token replaced by its
// text (the lines of a reference, nothing for an escape's backslash).
func (d *doc) assemble() []byte {
	out := make([]byte, 0, d.size)
	prev := 0
	for i := range d.toks {
		t := &d.toks[i]
		from, to := t.span()
		out = append(out, d.src[prev:from]...)
		prev = to
		switch {
		case t.escape:
		case d.patch:
			out = appendAdded(out, t.parts)
		default:
			for _, p := range t.parts {
				out = append(out, p...)
			}
		}
	}
	return append(out, d.src[prev:]...)
}
