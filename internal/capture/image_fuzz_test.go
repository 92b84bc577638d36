package capture

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
)

var (
	requestPW = regexp.MustCompile(`:pw=([A-Za-z0-9+/=]*);`)
	packetPW  = regexp.MustCompile(`pw=([A-Za-z0-9+/=]*)`)
	note      = regexp.MustCompile(`\[pbwrap: [^]]*\]`)
	// reply is a 5522 reply as a terminal writes it, whole: its
	// metadata and base64 payload, ended by ST or BEL. Controls inside
	// (but ESC and BEL) are keys typed meanwhile, and leave it whole.
	reply = regexp.MustCompile("\x1b\\]5522;type=[-A-Za-z0-9=:+/._\x00-\x06\x08-\x1a\x1c-\x1f\x7f]*(;[A-Za-z0-9+/=\x00-\x06\x08-\x1a\x1c-\x1f\x7f]*)?(\x1b\\\\|\x07)")
)

// FuzzImagePaste feeds Input, with image paste on, the fuzzer's input
// split at its chosen points, with time passing between reads (up to
// 25.5 s, within a paste's silence):
//   - whatever comes, no password is used twice and every read carries
//     one, and no password of a whole reply reaches the child, unless the
//     input has it outside any reply (typed), or the reads pause for
//     kittyclip.PacketSilence or more (a reply can then stall twice);
//   - the same bytes pasted (bracketed, shorter than a saved paste, with
//     no end marker inside, the markers whole) reach the child exactly as
//     pasted, whatever replies, prefixes or cut packets they hold.
func FuzzImagePaste(f *testing.F) {
	png := fakekitty.NoisePNG(8, 8)
	f.Add([]byte("a"+fakekitty.Event(fakekitty.PW, "image/png", "")+"b"+fakekitty.Reply("pbwrap-1", "image/png", png)+"c"), uint8(5), uint8(0))
	f.Add([]byte(fakekitty.Event(fakekitty.PW, "text/plain", "primary")+fakekitty.Reply("pbwrap-1", "text/plain", []byte("hi\n"))+fakekitty.Event("QUJD", "image/gif", "")), uint8(1), uint8(3))
	f.Add([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")+fakekitty.Event(fakekitty.PW, "image/png", "")+"\x1b]5522;type=read:status=EPERM:id=pbwrap-1\x1b\\"), uint8(9), uint8(200))
	f.Add([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")+strings.Replace(fakekitty.Reply("pbwrap-1", "image/png", png), "AAAA", "AA\x1aAA", 1)+"k"), uint8(200), uint8(0))
	f.Add([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")+fakekitty.Reply("pbwrap-1", "image/png", png)[:300]+"hello world\r"), uint8(150), uint8(1))
	f.Add([]byte("\x1b[200~"+fakekitty.Event(fakekitty.PW, "image/png", "")+"\x1b[201~\x1b]5522;typ\x1b]5522;type=read"), uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, chunk, pause uint8) {
		// What the input types: all but the replies. Inside a paste,
		// replies are pasted text (the second half checks pastes).
		typed := reply.ReplaceAll(in, nil)
		if bytes.Contains(in, startMarker) || time.Duration(pause)*100*time.Millisecond >= kittyclip.PacketSilence {
			// A link that stalls for PacketSilence twice inside one reply
			// is beyond the scanner (see kittyclip.Scanner).
			typed = in
		}
		r, term := imageRig(t, ImageOn)
		r.feedTimed(in, 1+int(chunk), time.Duration(pause)*100*time.Millisecond)
		r.in.clip.wait()
		r.in.Close(&r.child)
		child := r.child.String()
		seen := map[string]bool{}
		for _, m := range requestPW.FindAllStringSubmatch(term.String(), -1) {
			if seen[m[1]] {
				t.Fatalf("password %q used twice: %q", m[1], term.String())
			}
			seen[m[1]] = true
			if !bytes.Contains(typed, []byte(m[1])) && strings.Contains(child, m[1]) {
				t.Fatalf("the password of a read reached the child: %q", child)
			}
		}
		if bytes.Count(term.Bytes(), []byte("\x1b]5522;")) != len(seen) {
			t.Fatalf("a request without a password: %q", term.String())
		}
		got := note.ReplaceAllString(child, "") // pbwrap's own words
		for _, m := range reply.FindAll(in, -1) {
			for _, pw := range packetPW.FindAllSubmatch(m, -1) {
				if len(pw[1]) >= 4 && !bytes.Contains(typed, pw[1]) && strings.Contains(got, string(pw[1])) {
					t.Fatalf("the password %q of a packet reached the child: %q", pw[1], child)
				}
			}
		}

		// The same bytes, pasted.
		body := in
		for bytes.Contains(body, endMarker) {
			body = bytes.ReplaceAll(body, endMarker, nil)
		}
		if len(body) >= DefaultMinBytes {
			body = body[:DefaultMinBytes-1]
		}
		// The markers come whole, as a terminal writes them (a marker
		// split by a pause past EscHold is typing, as it is without
		// image paste).
		p, _ := imageRig(t, ImageOn)
		want := "<" + start + string(body) + end + ">"
		p.feed("<"+start, 0)
		p.feedTimed(body, 1+int(chunk), time.Duration(pause)*100*time.Millisecond)
		p.feed(end+">", 0)
		p.in.Close(&p.child)
		if got := p.child.String(); got != want && bytes.Count(body, []byte("\n"))+1 < DefaultMinLines {
			t.Fatalf("pasted:\n got %q\nwant %q", got, want)
		}
	})
}

// feedTimed feeds in, n bytes a read, time passing by pause between
// reads, and lets time pass as the proxy does (Flush at each deadline).
func (r *rig) feedTimed(in []byte, n int, pause time.Duration) {
	r.t.Helper()
	for len(in) > 0 {
		k := min(n, len(in))
		if _, err := r.in.Filter(&r.child, in[:k], r.now); err != nil {
			r.t.Fatal(err)
		}
		in = in[k:]
		r.now = r.now.Add(pause)
		for i := 0; i < 8; i++ {
			d := r.in.deadline()
			if d.IsZero() || r.now.Before(d) {
				break
			}
			if _, err := r.in.Flush(&r.child, r.now); err != nil {
				r.t.Fatal(err)
			}
		}
	}
}
