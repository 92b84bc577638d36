package fileref

import (
	"bytes"
	"errors"
)

// errPatchPlacement: in a patch, content lines carry a "+" and the reference
// must be the whole of one, so that each line it stands for can carry its own.
var errPatchPlacement = errors.New(`in a patch a reference must be a whole added line, "+{{file:/abs/path:START:END}}"`)

// place checks that each reference of a patch is a whole added line and
// records that line. A misplaced reference is d's stop: the references
// before it are judged first, as in input order.
func (d *doc) place() {
	for i := range d.toks {
		t := &d.toks[i]
		if t.escape {
			continue
		}
		start, end, ok := wholeAddedLine(d.src, t)
		if !ok {
			d.stop = d.refError(t, errPatchPlacement)
			d.toks = d.toks[:i]
			return
		}
		t.line = [2]int{start, end}
	}
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

// appendAdded appends the lines of a range, given in parts, as added lines:
// a "+" before each, a newline after the last if it has none.
func appendAdded(out []byte, parts [][]byte) []byte {
	bol := true // at the beginning of a line
	for _, p := range parts {
		for len(p) > 0 {
			if bol {
				out = append(out, '+')
			}
			line := p
			if i := bytes.IndexByte(p, '\n'); i >= 0 {
				line = p[:i+1]
			}
			out = append(out, line...)
			bol = line[len(line)-1] == '\n'
			p = p[len(line):]
		}
	}
	if !bol {
		out = append(out, '\n')
	}
	return out
}
