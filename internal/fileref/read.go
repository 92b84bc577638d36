package fileref

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// readSize is the read buffer: a line longer than that is read in pieces.
const readSize = 64 << 10

// openFile opens a file for ExpandAll and CheckAll, refusing anything but a
// regular file. It is a variable so that tests can count opens and fake
// failures.
var openFile opener = openRegular

// observe sees every file a call reads, in every entry point, before it is
// read. It is a variable so that tests can count opens and bytes read.
var observe = func(path string, r io.ReadCloser) io.ReadCloser { return r }

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
	if err == nil {
		err = regular(fi, path)
	}
	if err != nil {
		_ = f.Close() // Best effort: nothing was read.
		return nil, err
	}
	return f, nil
}

// regular refuses a file that is not a regular file.
func regular(fi fs.FileInfo, path string) error {
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", errNotRegular, fsutil.Kind(fi.Mode()))}
	}
	return nil
}

// fileState is what reading one path found.
type fileState struct {
	err      error // from opening or reading: every reference to the file fails with it
	complete int   // lines read through their newline
	partial  bool  // and part of the line after them
	eof      bool  // the end of the file was reached: the counts are the file's
}

// lines is the number of lines read, a last line without newline included:
// the file's line count when eof is set, and a lower bound otherwise.
func (f *fileState) lines() int {
	if f.partial {
		return f.complete + 1
	}
	return f.complete
}

// reached reports whether t's range was read to its end, or to the end of
// the file.
func (f *fileState) reached(t *token) bool {
	return f.eof || t.last <= f.complete
}

// check validates reference t against its file and returns its share of
// the output: exact when its range was reached, a lower bound otherwise. In
// a patch every line of the range becomes an added line: a "+" each, and a
// newline after a last line that has none.
func (f *fileState) check(t *token, patch bool) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	reached := f.reached(t)
	if reached && t.last > f.lines() {
		return 0, fmt.Errorf("%w: line %d, but %s", errPastEnd, t.last, lineCount(f.lines()))
	}
	n := t.size
	if patch && reached {
		n += t.last - t.first + 1
		if f.eof && f.partial && t.last == f.lines() {
			n++
		}
	}
	return n, nil
}

// readFile opens path and reads the ranges of refs, the references to it,
// once for all of them. br is the read buffer, reused from file to file.
func (x *expansion) readFile(path string, refs []*token, br *bufio.Reader) *fileState {
	r, err := x.open(path)
	if err != nil {
		return &fileState{err: err}
	}
	r = observe(path, r)
	defer r.Close() // Read only: a close error loses nothing.
	br.Reset(&budgetReader{r: r, x: x})
	defer br.Reset(nil) // Keep no reference to the closed file.
	f := &fileState{}
	f.err = x.scan(f, br, refs)
	return f
}

// errBudget: the call has read maxRead bytes.
var errBudget = errors.New("read limit reached")

// budgetReader reads from r while the call's read budget lasts, then fails
// with errBudget.
type budgetReader struct {
	r io.Reader
	x *expansion
}

func (b *budgetReader) Read(p []byte) (int, error) {
	left := maxRead - b.x.read
	if left <= 0 {
		return 0, errBudget
	}
	if len(p) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	b.x.read += n
	return n, err
}

// scan reads br up to the last line any of refs needs, or to the end, and
// records in f how far it got. It stops early when the call is bound to
// fail: when the ranges read and the text are over maxOutput, or the read
// budget is spent. A line is "\n"-terminated, except possibly the last;
// each reference's range includes its last line's newline.
func (x *expansion) scan(f *fileState, br *bufio.Reader, refs []*token) error {
	pending := slices.Clone(refs)
	slices.SortStableFunc(pending, func(a, b *token) int { return cmp.Compare(a.first, b.first) })
	need := 0
	for _, t := range refs {
		need = max(need, t.last)
	}
	var active []*token // references whose range covers the line being read
	for line := 1; line <= need; {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			for len(pending) > 0 && pending[0].first <= line {
				active, pending = append(active, pending[0]), pending[1:]
			}
			x.take(chunk, active)
			f.partial = chunk[len(chunk)-1] != '\n'
			if !f.partial {
				f.complete = line
				active = slices.DeleteFunc(active, func(t *token) bool { return t.last == line })
				line++
			}
		}
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			f.eof = true
			return nil
		case errBudget:
			x.stopped = stopRead
			return nil
		default:
			return err
		}
		if x.bound() {
			return nil
		}
	}
	return nil
}

// bound reports whether the call is bound to fail for the cap: the ranges
// read so far and the text around the references are over maxOutput, so
// the output would be, whatever is still unread. It then stops reading.
func (x *expansion) bound() bool {
	if x.stopped == notStopped && x.text+x.ranged > maxOutput {
		x.stopped = stopOutput
	}
	return x.stopped != notStopped
}

// take adds a chunk of the file to the ranges of the active references,
// and keeps it for the output unless the call is bound to fail by then.
func (x *expansion) take(chunk []byte, active []*token) {
	if len(active) == 0 {
		return
	}
	for _, t := range active {
		t.size += len(chunk)
	}
	x.ranged += len(chunk) * len(active)
	if !x.build || x.bound() {
		return
	}
	kept := x.arena.store(chunk)
	for _, t := range active {
		t.keep(kept)
	}
}

// Arena blocks grow from minBlock to maxBlock bytes.
const (
	minBlock = 4 << 10
	maxBlock = 1 << 20
)

// arena holds the bytes a call keeps, in blocks that never move: a chunk
// is copied once however many references share it, and no block is copied
// again as the kept bytes grow. Kept bytes are never more than maxOutput,
// since reading stops once they would be.
type arena struct {
	block []byte // the block being filled
}

// store copies p into the arena and returns the copy, whose capacity runs
// to the end of its block, so that token.keep can tell when two copies are
// adjacent.
func (a *arena) store(p []byte) []byte {
	if cap(a.block)-len(a.block) < len(p) {
		size := min(max(2*cap(a.block), minBlock), maxBlock)
		a.block = make([]byte, 0, max(size, len(p)))
	}
	n := len(a.block)
	a.block = append(a.block, p...)
	return a.block[n:]
}

// keep appends p, a copy in the arena, to t's range, extending its last
// part when p follows it in the same block.
func (t *token) keep(p []byte) {
	if n := len(t.parts); n > 0 {
		last := t.parts[n-1]
		if len(last) < cap(last) && &last[:len(last)+1][len(last)] == &p[0] {
			t.parts[n-1] = last[:len(last)+len(p)]
			return
		}
	}
	t.parts = append(t.parts, p)
}

// byteCount formats a byte count for a message: in MiB when it is a whole
// number of them.
func byteCount(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return plural(n, "byte")
}

// plural formats a count of things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
