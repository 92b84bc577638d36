package capture

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
)

// hostileSessions is how many random sessions TestHostileSessions plays.
const hostileSessions = 1500

// Random sessions with paste events on, played as an awkward terminal
// would, each checked byte for byte: keys (every control but ESC among
// them), text pastes that hold kitty's packets, prefixes of them and cut
// ones, image and text pastes through paste events whose replies carry
// keys typed meanwhile (Ctrl-Z, Ctrl-X, DEL...), keys typed between an
// event and its reply; every read split at random points, with pauses
// between what the terminal writes at once. The child must get each key,
// paste and path, in order, and nothing else: no byte lost, none of the
// terminal's replies or passwords.
func TestHostileSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	img := fakekitty.NoisePNG(12, 9)
	var inputs, bytesIn, lost int
	root := fastTempDir(t)
	sessions := hostileSessions
	if testing.Short() {
		sessions /= 10
	}
	for n := range sessions {
		r, term := imageRig(t, ImageOn)
		r.root = root
		var want strings.Builder
		images, events := 0, 0
		for range 1 + rng.IntN(8) {
			var writes []string // what the terminal writes at once, in turn
			switch rng.IntN(5) {
			case 0:
				k := keys(rng, 1+rng.IntN(20))
				writes = append(writes, k)
				want.WriteString(k)
			case 1:
				body := pasteBody(rng)
				writes = append(writes, start+body+end)
				want.WriteString(start + body + end)
			case 2, 3, 4:
				events++
				pw := fmt.Sprintf("UFc%04d%03dx=", n%10000, events) // One for each event, as kitty's.
				id := fmt.Sprintf("pbwrap-%d", events)
				text := rng.IntN(3) == 0
				mime, data := "image/png", img
				if text {
					mime, data = "text/plain", []byte(keys(rng, 1+rng.IntN(300)))
				}
				meanwhile := ""
				if rng.IntN(2) == 0 {
					meanwhile = keys(rng, 1+rng.IntN(5))
				}
				reply, inside := withKeys(rng, fakekitty.Reply(id, mime, data))
				writes = append(writes, fakekitty.Event(pw, mime, ""))
				if meanwhile != "" {
					writes = append(writes, meanwhile)
				}
				writes = append(writes, reply)
				if text {
					want.WriteString(start + strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\r"), "\n", "\r") + end)
				} else {
					images++
					want.WriteString(start + "\x00IMAGE" + fmt.Sprint(images) + "\x00" + end)
				}
				want.WriteString(meanwhile + inside)
			}
			for _, w := range writes {
				inputs++
				bytesIn += len(w)
				for rest := w; len(rest) > 0; {
					k := min(len(rest), 1+rng.IntN(64))
					r.feed(rest[:k], 0)
					rest = rest[k:]
				}
				r.now = r.now.Add(time.Duration(rng.IntN(300)) * time.Millisecond)
				if d := r.in.deadline(); !d.IsZero() && !r.now.Before(d) {
					r.in.Flush(&r.child, r.now)
				}
			}
		}
		r.images()
		r.in.Close(&r.child)
		expect := want.String()
		if r.sess != nil {
			for i := images; i > 0; i-- {
				expect = strings.ReplaceAll(expect, "\x00IMAGE"+fmt.Sprint(i)+"\x00", filepath.Join(r.sess.Dir, fmt.Sprintf("image-%d.png", i)))
			}
		}
		got := r.child.String()
		if got != expect {
			lost += max(0, len(expect)-len(got))
			t.Errorf("session %d: child got\n%q\nwant\n%q", n, got, expect)
			if lost > 1000 {
				t.FailNow()
			}
			continue
		}
		if strings.Contains(got, "UFc") && !strings.Contains(expect, "UFc") || bytes.Contains(term.Bytes(), []byte(kittyclip.ModeOff)) {
			t.Errorf("session %d: a password reached the child, or the mode went off: %q", n, term.String())
		}
	}
	t.Logf("%d sessions, %d writes of the terminal (%d bytes): %d bytes lost", sessions, inputs, bytesIn, lost)
}

// keys is n random keys: printable ASCII and every C0 control but ESC.
func keys(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		for b[i] = byte(rng.IntN(127)); b[i] == 0x1b; b[i] = byte(rng.IntN(127)) {
		}
	}
	return string(b)
}

// pasteBody is a small paste (under the size of a saved one) of text,
// escapes, and kitty's packets, whole, in part, cut.
func pasteBody(rng *rand.Rand) string {
	parts := []string{
		fakekitty.Event(fakekitty.PW, "image/png", ""),
		fakekitty.Reply("pbwrap-1", "image/png", []byte("\x89PNG\r\n\x1a\n")),
		"\x1b]5522;type=read:status=DATA;AA AA\x1b\\", "\x1b]5522;", "\x1b]5522;type=rea", "\x1b]55",
		"\x1b[A", "\x1b", "\x1b[200~", "\x1b[20", "\x07", "\x18", "\x1a", "\r\n", "text ",
	}
	var b strings.Builder
	for range 1 + rng.IntN(6) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return strings.ReplaceAll(b.String(), end, "")
}

// withKeys puts random keys (controls a person types: Ctrl-Z, Ctrl-X, DEL,
// Enter) inside the reply's packets, and returns it and the keys, in
// order: a terminal puts none there, and they are keys.
func withKeys(rng *rand.Rand, reply string) (string, string) {
	if rng.IntN(2) == 0 {
		return reply, ""
	}
	controls := []byte{0x1a, 0x18, 0x7f, '\r', 0x03, 0x00, 0x04}
	var out, keys strings.Builder
	in := false
	for i := 0; i < len(reply); i++ {
		c := reply[i]
		out.WriteByte(c)
		switch {
		case strings.HasPrefix(reply[i:], "\x1b]5522;"):
			in = true
			out.WriteByte(reply[i+1]) // A control after ESC is a key of its own (Alt).
			i++
			continue
		case c == '\\' && i > 0 && reply[i-1] == 0x1b:
			in = false
		}
		if in && c != 0x1b && reply[i+1] != 0x1b && rng.IntN(200) == 0 {
			k := controls[rng.IntN(len(controls))]
			out.WriteByte(k)
			keys.WriteByte(k)
		}
	}
	return out.String(), keys.String()
}
