package capture

import "bytes"

// normalizer turns the bytes of a paste as the terminal sent them into the
// text the user copied: terminals send a newline as CR, some send CRLF, and
// tmux with extended keys sends Enter as a CSI-u key (ESC[13u, ESC[13;1u).
// All of them become LF; every other byte passes unchanged. It is a
// resumable state machine: a CR, or an incomplete CSI-u Enter, at the end of
// a chunk is held until the next chunk or the end decides what it was.
type normalizer struct {
	state normState
	held  []byte // the prefix of a CSI-u Enter seen so far, in stateEsc
}

type normState uint8

const (
	stateText normState = iota
	stateCR             // a CR was seen; an LF right after it is part of it
	stateEsc            // held is a proper prefix of a CSI-u Enter
)

// csiEnter are the key encodings of Enter that become LF. Only their
// first byte is ESC, so bytes held after a mismatch need no second look.
var csiEnter = [][]byte{[]byte("\x1b[13u"), []byte("\x1b[13;1u")}

// write appends the normalized form of p to dst and returns it.
func (z *normalizer) write(dst, p []byte) []byte {
	for i := 0; i < len(p); {
		switch z.state {
		case stateText:
			j := indexCROrEsc(p[i:])
			if j < 0 {
				return append(dst, p[i:]...)
			}
			dst = append(dst, p[i:i+j]...)
			i += j
			if p[i] == '\r' {
				z.state = stateCR
			} else {
				z.state = stateEsc
				z.held = append(z.held[:0], 0x1b)
			}
			i++
		case stateCR:
			dst = append(dst, '\n')
			z.state = stateText
			if p[i] == '\n' {
				i++
			}
		case stateEsc:
			cand := append(z.held, p[i])
			switch enterMatch(cand) {
			case matchFull:
				dst = append(dst, '\n')
				z.state = stateText
				i++
			case matchPrefix:
				z.held = cand
				i++
			default:
				// Not an Enter: what was held passes as it is, and p[i]
				// is looked at again as text.
				dst = append(dst, z.held...)
				z.state = stateText
			}
		}
	}
	return dst
}

// flush ends the paste: a held CR becomes LF, a held incomplete escape
// passes unchanged.
func (z *normalizer) flush(dst []byte) []byte {
	switch z.state {
	case stateCR:
		dst = append(dst, '\n')
	case stateEsc:
		dst = append(dst, z.held...)
	}
	z.state = stateText
	return dst
}

type matchKind uint8

const (
	matchNone matchKind = iota
	matchPrefix
	matchFull
)

// enterMatch tells whether p is a CSI-u Enter, a proper prefix of one, or
// neither.
func enterMatch(p []byte) matchKind {
	kind := matchNone
	for _, seq := range csiEnter {
		switch {
		case bytes.Equal(p, seq):
			return matchFull
		case len(p) < len(seq) && bytes.HasPrefix(seq, p):
			kind = matchPrefix
		}
	}
	return kind
}

// indexCROrEsc is bytes.IndexAny(p, "\r\x1b"), which looks at one byte at
// a time: two bytes.IndexByte, which look at many (about 4x faster on
// pasted lines, BenchmarkNormalize).
func indexCROrEsc(p []byte) int {
	cr := bytes.IndexByte(p, '\r')
	if cr < 0 {
		return bytes.IndexByte(p, 0x1b)
	}
	if esc := bytes.IndexByte(p[:cr], 0x1b); esc >= 0 {
		return esc
	}
	return cr
}
