package capture

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
	"github.com/pbwrap/pbwrap/internal/imagepaste"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
	"golang.org/x/image/bmp"
)

// testPNG is a real PNG of about 10 KB, more than two packets.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 60, 50))
	for i := range img.Pix {
		img.Pix[i] = byte(i*7 + i/13)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageRig is a rig whose terminal writes are recorded.
func imageRig(t *testing.T, mode ImageMode) (*rig, *bytes.Buffer) {
	r := newRig(t, Config{Image: mode})
	r.mode = true
	var term bytes.Buffer
	r.in.SetTell(func(f func() []byte) { term.Write(f()) })
	return r, &term
}

func readRequest(id, pw, loc, mime string) string {
	req, err := kittyclip.AppendRead(nil, kittyclip.Read{ID: id, PW: pw, Name: imagepaste.ReadName, Primary: loc == "primary", MIME: []string{mime}})
	if err != nil {
		panic(err)
	}
	return string(req)
}

// An image pasted: the read goes out at once with the event's password;
// the image is saved, 0600, byte for byte, recorded, and its path typed as
// one bracketed paste; keys typed before the event come before it, keys
// typed while it is read after it. Every reply split at every byte.
func TestImagePasteFakeKitty(t *testing.T) {
	data := testPNG(t)
	for _, loc := range []string{"", "primary"} {
		event := "a" + fakekitty.Event(fakekitty.PW, "image/png", loc) + "b"
		reply := fakekitty.Reply("pbwrap-1", "image/png", data) + "c"
		for _, n := range splits(len(reply)) {
			r, term := imageRig(t, ImageOn)
			r.feed(event, n)
			if want := readRequest("pbwrap-1", fakekitty.PW, loc, "image/png"); term.String() != want {
				t.Fatalf("loc %q, reads of %d: the terminal got %q, want %q", loc, n, term.String(), want)
			}
			if r.child.String() != "a" {
				t.Fatalf("reads of %d: before the reply the child has %q", n, r.child.String())
			}
			r.feed(reply, n)
			path := filepath.Join(r.sess.Dir, "image-1.png")
			if want := "a" + start + path + end + "bc"; r.child.String() != want {
				t.Fatalf("loc %q, reads of %d: the child has %q, want %q", loc, n, r.child.String(), want)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("reads of %d: %s: %d bytes, %v; want the %d bytes pasted", n, path, len(got), err, len(data))
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v", path, fi.Mode())
			}
			m := r.manifest()
			if len(m.Pastes) != 1 || m.Pastes[0].Outcome != store.OutcomeImage || m.Pastes[0].Path != path || m.Pastes[0].Bytes != int64(len(data)) {
				t.Fatalf("manifest: %+v", m.Pastes)
			}
			if term.Len() != len(readRequest("pbwrap-1", fakekitty.PW, loc, "image/png")) || strings.Contains(r.child.String(), "]5522;") {
				t.Fatalf("more went to the terminal, or a packet to the child: %q", term.String())
			}
		}
	}
}

// splits are the read sizes a test runs: every size up to 64, then a few.
func splits(n int) []int {
	var out []int
	for i := 1; i <= min(n, 64); i++ {
		out = append(out, i)
	}
	return append(out, 100, 1000, 5000, n)
}

// Clipboard text takes the paste path: a small one goes inline with
// newlines as CR and no end marker in it; a large one is saved.
func TestTextPasteFakeKitty(t *testing.T) {
	r, term := imageRig(t, ImageOn)
	r.feed(fakekitty.Event(fakekitty.PW, "text/plain image/png", ""), 0)
	if want := readRequest("pbwrap-1", fakekitty.PW, "", "text/plain"); term.String() != want {
		t.Fatalf("request %q, want %q", term.String(), want)
	}
	r.feed(fakekitty.Reply("pbwrap-1", "text/plain", []byte("one\ntwo\x1b[201~x")), 7)
	if want := start + "one\rtwox" + end; r.child.String() != want {
		t.Fatalf("small text: child has %q, want %q", r.child.String(), want)
	}
	r.child.Reset()
	big := strings.Repeat("line of text\n", 1000)
	r.feed(fakekitty.Event("QUJD", "text/plain", ""), 0)
	r.feed(fakekitty.Reply("pbwrap-2", "text/plain", []byte(big)), 333)
	if got := r.child.String(); !strings.HasPrefix(got, start+"[paste saved: ") || !strings.HasSuffix(got, "paste-1.txt]"+end) {
		t.Fatalf("large text: child has %q", got)
	}
	saved, _ := os.ReadFile(filepath.Join(r.sess.Dir, "paste-1.txt"))
	if string(saved) != big {
		t.Errorf("paste-1.txt holds %d bytes, want the %d pasted", len(saved), len(big))
	}
}

// A denial, a reply lost and never finished, an unsupported type: the
// mode goes off at the terminal, one note is typed, held keys follow it,
// and the next paste takes the terminal's normal path.
func TestImagePasteFailures(t *testing.T) {
	for _, tt := range []struct {
		name, in, note string
		wait           bool
	}{
		{"EPERM", fakekitty.Event(fakekitty.PW, "image/png", "") + "k\x1b]5522;type=read:status=EPERM:id=pbwrap-1\x1b\\", "the terminal answered EPERM to the clipboard read", false},
		{"lost reply", fakekitty.Event(fakekitty.PW, "image/png", "") + "k\x1b]5522;type=read:status=OK:id=pbwrap-1\x1b\\\x1b]5522;type=read:status=DATA:id=pbwrap-1:mime=aW1hZ2UvcG5n;iVBO", "a reply from the terminal was cut off", true},
		{"no reply", fakekitty.Event(fakekitty.PW, "image/png", "") + "k", "the terminal did not answer within 5s", true},
		{"unsupported", fakekitty.Event(fakekitty.PW, "application/pdf", "") + "k", "the clipboard holds none of text, PNG, JPEG, GIF, WebP, TIFF, BMP (it has application/pdf)", false},
	} {
		for _, n := range []int{1, 2, 5, len(tt.in)} {
			r, term := imageRig(t, ImageOn)
			r.feed(tt.in, n)
			if tt.wait {
				d := r.in.deadline()
				if d.IsZero() {
					t.Fatalf("%s: no deadline", tt.name)
				}
				r.in.Flush(&r.child, d.Add(kittyclip.PacketSilence))
				r.in.Flush(&r.child, d.Add(2*kittyclip.PacketSilence))
			}
			note := "[pbwrap: image paste is off for this session: " + tt.note + "; paste again for the terminal's own paste]"
			if r.child.String() != note+"k" || !strings.HasSuffix(term.String(), kittyclip.ModeOff) || r.in.ImageReset() != nil {
				t.Fatalf("%s, reads of %d: child %q, terminal %q\nwant child %q and the mode off", tt.name, n, r.child.String(), term.String(), note+"k")
			}
			r.child.Reset()
			r.feed(start+"text"+end, n)
			if r.child.String() != start+"text"+end {
				t.Errorf("%s: a paste after: %q", tt.name, r.child.String())
			}
		}
	}
}

// A BMP (macOS "Copy Image" gives TIFF or BMP) is saved as PNG.
func TestImagePasteConverts(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(2, 2, color.RGBA{9, 99, 199, 255})
	var b bytes.Buffer
	if err := bmp.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	r, term := imageRig(t, ImageOn)
	r.feed(fakekitty.Event(fakekitty.PW, "image/bmp", ""), 0)
	if !strings.HasSuffix(term.String(), base64.StdEncoding.EncodeToString([]byte("image/bmp"))+"\x1b\\") {
		t.Fatalf("request %q", term.String())
	}
	r.feed(fakekitty.Reply("pbwrap-1", "image/bmp", b.Bytes()), 0)
	path := filepath.Join(r.sess.Dir, "image-1.png")
	if r.child.String() != start+path+end {
		t.Fatalf("child %q", r.child.String())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := png.Decode(f)
	if err != nil || got.Bounds() != img.Bounds() {
		t.Fatalf("decode %s: %v", path, err)
	}
}

// ImageAuto asks with DA1 as the fence, and turns the mode on only on an
// answer of 1 or 2; tmux 3.3a and screen answer DA1 alone.
func TestImageAuto(t *testing.T) {
	for _, tt := range []struct {
		answer string
		on     bool
	}{
		{"\x1b[?5522;2$y\x1b[?62;52;c", true},
		{"\x1b[?5522;1$y\x1b[?62;52;c", true},
		{"\x1b[?5522;0$y\x1b[?1;2c", false},
		{"\x1b[?1;2c", false},
	} {
		for n := 1; n <= len(tt.answer); n++ {
			r, term := imageRig(t, ImageAuto)
			if q := string(r.in.Ask(r.now)); q != termproto.ClipQuestion+"\x1b[c" {
				t.Fatalf("Ask = %q", q)
			}
			r.feed(tt.answer+"x", n)
			on := term.String() == kittyclip.ModeOn && string(r.in.ImageSetup()) == kittyclip.ModeOn
			if on != tt.on || r.child.String() != "x" {
				t.Errorf("%q, reads of %d: terminal %q, child %q; want on %v", tt.answer, n, term.String(), r.child.String(), tt.on)
			}
		}
	}
	r, _ := imageRig(t, ImageOff)
	if r.in.Ask(r.now) != nil || r.in.ImageSetup() != nil {
		t.Error("ImageOff asks or sets the mode")
	}
}

// A lone Esc reaches the child EscHold after it was read, with paste
// events on as with them off: the scanner's hold and the paste parser's
// are one wait, not two in a row (a held ESC passed on by the scanner
// counts from when it was read).
func TestImageLoneEscWaitsOnce(t *testing.T) {
	for _, mode := range []ImageMode{ImageOff, ImageOn} {
		r, _ := imageRig(t, mode)
		r.feed("\x1b", 0)
		due, err := r.in.Flush(&r.child, r.now.Add(termproto.EscHold/2))
		if err != nil || r.child.Len() != 0 {
			t.Fatalf("%v: half the hold on, the child got %q (%v); want nothing yet", mode, r.child.String(), err)
		}
		if want := r.now.Add(termproto.EscHold); due.After(want) {
			t.Errorf("%v: Flush owed at %v after the Esc, want at most EscHold (%v)", mode, due.Sub(r.now), termproto.EscHold)
		}
		if _, err := r.in.Flush(&r.child, r.now.Add(termproto.EscHold)); err != nil {
			t.Fatal(err)
		}
		if got := r.child.String(); got != "\x1b" {
			t.Errorf("%v: EscHold after a lone Esc the child got %q, want the Esc", mode, got)
		}
	}
}
