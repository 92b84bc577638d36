package imagepaste

// endMarker ends a bracketed paste: clipboard text must not contain it,
// or the rest would reach the child as keystrokes.
const endMarker = "\x1b[201~"

// A textNorm turns clipboard text into what a terminal sends for a
// paste, at any chunking: newlines (LF, CRLF) as CR, the way the Enter
// key sends them, and every ESC [ 201 ~ removed, as kitty's own paste
// does when it sanitizes. The zero value is ready.
type textNorm struct {
	cr   bool // the last byte was a CR: an LF right after it is dropped
	held int  // a proper prefix of endMarker, held
}

// write appends the normalized p to dst.
func (t *textNorm) write(dst, p []byte) []byte {
	for _, c := range p {
		if t.held > 0 || c == endMarker[0] {
			if c == endMarker[t.held] {
				t.held++
				if t.held == len(endMarker) {
					t.held = 0 // Dropped whole.
				}
				continue
			}
			dst = append(dst, endMarker[:t.held]...)
			t.held, t.cr = 0, false
			if c == endMarker[0] {
				t.held = 1
				continue
			}
		}
		switch {
		case c == '\n' && t.cr:
		case c == '\n':
			dst = append(dst, '\r')
		default:
			dst = append(dst, c)
		}
		t.cr = c == '\r'
	}
	return dst
}

// flush appends what is held at the end of the text.
func (t *textNorm) flush(dst []byte) []byte {
	dst = append(dst, endMarker[:t.held]...)
	t.held = 0
	return dst
}
