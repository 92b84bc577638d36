package pasteref

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
)

// readSize is the read buffer: a line longer than that is copied in pieces.
const readSize = 64 << 10

// openFile opens a file for reading, refusing anything but a regular file. It
// is a variable so that tests can count opens and fake failures.
var openFile = openRegular

// openRegular opens path (following symbolic links) and checks what it opened,
// so that a directory, device or named pipe is refused without a race between
// a check and the open. openFlags keeps the open of a named pipe from waiting
// for a writer.
func openRegular(path string) (io.ReadCloser, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close() // Best effort: nothing was read.
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close() // Best effort: nothing was read.
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return f, nil
}

// readRanges reads the file at path once for all the references to it, setting
// each one's size and, within the budget, its text. br is the read buffer,
// reused from file to file.
func readRanges(path string, refs []*token, b *budget, br *bufio.Reader) *fileState {
	f, err := openFile(path)
	if err != nil {
		return &fileState{err: err}
	}
	defer f.Close() // Read only: a close error loses nothing.
	br.Reset(f)
	defer br.Reset(nil) // Keep no reference to the closed file.
	lines, err := scanLines(br, refs, b)
	return &fileState{lines: lines, err: err}
}

// scanLines reads br up to the last line any of refs needs, or to its end,
// and returns the number of lines read: all of the file's lines whenever a
// reference ends past them. A line is "\n"-terminated, except possibly the
// last; each reference's range includes its last line's newline.
func scanLines(br *bufio.Reader, refs []*token, b *budget) (int, error) {
	pending := slices.Clone(refs)
	slices.SortStableFunc(pending, func(x, y *token) int { return cmp.Compare(x.first, y.first) })
	need := 0
	for _, t := range refs {
		need = max(need, t.last)
	}
	var active []*token    // references whose range covers line
	line, open := 1, false // the line being read; whether part of it was
	for line <= need {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			for len(pending) > 0 && pending[0].first <= line {
				active, pending = append(active, pending[0]), pending[1:]
			}
			for _, t := range active {
				t.size += len(chunk)
				b.keep(t, chunk)
			}
			open = chunk[len(chunk)-1] != '\n'
			if !open {
				active = slices.DeleteFunc(active, func(t *token) bool { return t.last == line })
				line++
			}
		}
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			if open {
				return line, nil
			}
			return line - 1, nil
		default:
			return 0, err
		}
	}
	return line - 1, nil
}

// budget bounds the file content an expansion keeps in memory.
//
// Every kept byte belongs to a reference that is in the input before any
// error lex found. Were the expansion to succeed, each of those references
// would be in range and its whole range in the output, so the kept bytes
// could not exceed the output, which cannot exceed the limit. So once keeping
// one more chunk would pass the limit, the expansion is bound to fail (with
// ErrTooLarge or an earlier error, found from sizes and line counts alone),
// and keeping stops for good.
type budget struct {
	limit int
	used  int
	off   bool // keep nothing: Check, or the expansion is bound to fail
}

// keep appends p to t's text, within the budget.
func (b *budget) keep(t *token, p []byte) {
	if b.off {
		return
	}
	if len(p) > b.limit-b.used {
		b.off = true
		return
	}
	b.used += len(p)
	t.text = append(t.text, p...)
}
