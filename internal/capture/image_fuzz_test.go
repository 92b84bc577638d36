package capture

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
)

var (
	requestPW = regexp.MustCompile(`:pw=([A-Za-z0-9+/=]*);`)
	// wellFormed is a 5522 packet as a terminal writes it: nothing in it
	// that cuts it (ESC, CAN, SUB), ended by ST or BEL.
	wellFormed = regexp.MustCompile("\x1b\\]5522;[^\x1b\x07\x18\x1a]*(\x1b\\\\|\x07)")
)

// FuzzImagePaste feeds Input, with image paste on, the fuzzer's input
// split at its chosen points, with time passing between reads: whatever
// comes, no password is used twice and every read carries one; when the
// terminal's packets are whole (nothing cuts them) and no time passes
// (so no hold is let go as keys), no packet's password reaches the child.
func FuzzImagePaste(f *testing.F) {
	f.Add([]byte("a"+fakekitty.Event(fakekitty.PW, "image/png", "")+"b"+fakekitty.Reply("pbwrap-1", "image/png", []byte("\x89PNG\r\n\x1a\n0123456789"))+"c"), uint8(5), uint8(0))
	f.Add([]byte(fakekitty.Event(fakekitty.PW, "text/plain", "primary")+fakekitty.Reply("pbwrap-1", "text/plain", []byte("hi\n"))+fakekitty.Event("QUJD", "image/gif", "")), uint8(1), uint8(3))
	f.Add([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")+fakekitty.Event(fakekitty.PW, "image/png", "")+"\x1b]5522;type=read:status=EPERM:id=pbwrap-1\x1b\\"), uint8(9), uint8(200))
	f.Fuzz(func(t *testing.T, in []byte, chunk, pause uint8) {
		whole := pause == 0 && !bytes.Contains(wellFormed.ReplaceAll(in, nil), []byte(":pw="))
		r, term := imageRig(t, ImageOn)
		n := 1 + int(chunk)
		for len(in) > 0 {
			k := min(n, len(in))
			if _, err := r.in.Filter(&r.child, in[:k], r.now); err != nil {
				t.Fatal(err)
			}
			in = in[k:]
			r.now = r.now.Add(time.Duration(pause) * 100 * time.Millisecond)
			if d := r.in.deadline(); !d.IsZero() && !r.now.Before(d) {
				r.in.Flush(&r.child, r.now)
			}
		}
		r.in.Close(&r.child)
		child := r.child.String()
		seen := map[string]bool{}
		for _, m := range requestPW.FindAllStringSubmatch(term.String(), -1) {
			if seen[m[1]] {
				t.Fatalf("password %q used twice: %q", m[1], term.String())
			}
			seen[m[1]] = true
			if whole && strings.Contains(child, ":pw="+m[1]) {
				t.Fatalf("the password of a read reached the child: %q", child)
			}
		}
		if bytes.Count(term.Bytes(), []byte("\x1b]5522;")) != len(seen) {
			t.Fatalf("a request without a password: %q", term.String())
		}
		if whole && strings.Contains(child, ":pw=") {
			t.Fatalf("a packet's password reached the child: %q", child)
		}
	})
}
