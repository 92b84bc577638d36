package capture

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/bmp"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
	"github.com/pbwrap/pbwrap/internal/imagepaste"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
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

// images waits until the images received are checked (off the input
// path), and lets Input type their paths.
func (r *rig) images() {
	r.t.Helper()
	r.in.clip.wait()
	if _, err := r.in.Flush(&r.child, r.now); err != nil {
		r.t.Fatal(err)
	}
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
			if r.child.String() != note+"k" || !strings.HasSuffix(term.String(), kittyclip.ModeOff) || string(r.in.ImageReset()) != kittyclip.ModeOff || r.in.ImageSetup() != nil {
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
	r.images()
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

// A TIFF or BMP is converted off the input path: the keys typed while it
// is converted reach the child at once, before its path, which follows
// when the PNG is ready; a PNG pasted meanwhile comes after the image
// pasted before it. The converter is held here until the keys are in.
func TestImageConversionHoldsNoKey(t *testing.T) {
	release := make(chan struct{})
	convert := convertImage
	convertImage = func(w io.Writer, r io.ReaderAt, size int64) error {
		<-release
		return convert(w, r, size)
	}
	defer func() { convertImage = convert }()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	var b bytes.Buffer
	if err := bmp.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	r, _ := imageRig(t, ImageOn)
	r.feed(fakekitty.Event(fakekitty.PW, "image/bmp", "")+fakekitty.Reply("pbwrap-1", "image/bmp", b.Bytes()), 0)
	r.feed("abc", 0)
	r.feed(fakekitty.Event("QUJD", "image/png", "")+fakekitty.Reply("pbwrap-2", "image/png", testPNG(t))+"d", 0)
	if got := r.child.String(); got != "abcd" {
		t.Fatalf("while the BMP is converted the child has %q, want the keys", got)
	}
	close(release)
	r.images()
	one, two := filepath.Join(r.sess.Dir, "image-1.png"), filepath.Join(r.sess.Dir, "image-2.png")
	if want := "abcd" + start + one + end + start + two + end; r.child.String() != want {
		t.Fatalf("child %q, want %q", r.child.String(), want)
	}
	if got, err := os.ReadFile(two); err != nil || !bytes.Equal(got, testPNG(t)) {
		t.Errorf("%s: %v", two, err)
	}
}

// An image that is not whole is not saved, wherever its check runs: the
// note says why, the mode goes off, no image file is left.
func TestImageNotWhole(t *testing.T) {
	png := testPNG(t)
	var j bytes.Buffer
	if err := jpeg.Encode(&j, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ mime, data, note string }{
		{"image/png", string(png[:len(png)-20]), "not a whole, valid PNG (the image ends inside IDAT)"},
		{"image/png", string(png) + "trailing", "not a whole, valid PNG (bytes after IEND)"},
		{"image/jpeg", j.String()[:j.Len()/2], "not a whole, valid JPEG (unexpected EOF)"},
	} {
		r, term := imageRig(t, ImageOn)
		r.feed(fakekitty.Event(fakekitty.PW, tt.mime, "")+fakekitty.Reply("pbwrap-1", tt.mime, []byte(tt.data)), 0)
		r.images()
		want := "[pbwrap: image paste is off for this session: the clipboard image is " + tt.note + "; paste again for the terminal's own paste]"
		if r.child.String() != want || !strings.HasSuffix(term.String(), kittyclip.ModeOff) {
			t.Errorf("%s: child %q, want %q", tt.mime, r.child.String(), want)
		}
		if m, _ := filepath.Glob(filepath.Join(r.sess.Dir, "[i.][mt]*")); len(m) != 0 {
			t.Errorf("%s: left %q", tt.mime, m)
		}
	}
}

// Input typed during a paste event is held in memory up to heldMemory,
// then in a temp file, and reaches the child whole, after the event's
// paste: a large paste among it is saved exact.
func TestImageHeldInputSpills(t *testing.T) {
	r, _ := imageRig(t, ImageOn)
	ev := fakekitty.Event(fakekitty.PW, "text/plain", "")
	cut := strings.Index(ev, "\x1b\\") + 2
	body := strings.Repeat("0123456789abcdef\n", (3*heldMemory)/17)
	r.feed(ev[:cut]+"a"+start+body+end+"b", 4096)
	if r.in.clip.held.file == nil || len(r.in.clip.held.mem) > heldMemory || r.child.Len() != 0 {
		t.Fatalf("held %d bytes in memory, file %v; child %q", len(r.in.clip.held.mem), r.in.clip.held.file != nil, r.child.String())
	}
	r.feed(ev[cut:]+fakekitty.Reply("pbwrap-1", "text/plain", []byte("first")), 0)
	got := r.child.String()
	if !strings.HasPrefix(got, start+"first"+end+"a"+start+"[paste saved: ") || !strings.HasSuffix(got, "paste-1.txt]"+end+"b") {
		t.Fatalf("child %q", got)
	}
	if saved, _ := os.ReadFile(filepath.Join(r.sess.Dir, "paste-1.txt")); string(saved) != body {
		t.Errorf("saved %d bytes, want the %d pasted", len(saved), len(body))
	}
	if m, _ := filepath.Glob(filepath.Join(r.sess.Dir, ".tmp-*")); len(m) != 0 {
		t.Errorf("temp files left: %q", m)
	}
}

// With --allow-clipboard-read the replies to the child's own reads reach
// it; pbwrap's, and the paste events with their passwords, never do.
func TestImagePassClipboardReplies(t *testing.T) {
	for _, pass := range []bool{false, true} {
		r := newRig(t, Config{Image: ImageOn, PassClipboardReplies: pass})
		r.in.SetTell(func(f func() []byte) { f() })
		mine := fakekitty.Reply("child-7", "text/plain", []byte("hi"))
		r.feed("<"+mine+fakekitty.Packet("type=read:status=DONE", "")+fakekitty.Reply("pbwrap-3", "image/png", []byte("x"))+">", 0)
		want := "<>"
		if pass {
			want = "<" + mine + fakekitty.Packet("type=read:status=DONE", "") + ">"
		}
		if r.child.String() != want {
			t.Errorf("pass %v: child %q, want %q", pass, r.child.String(), want)
		}
	}
}

// pbwrap's read waits while the output holds it (the child left a string
// open), and is settled once the output has paused for SettleQuiet, or
// after SettleMax however the output goes on.
func TestImageSettle(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []time.Duration // when the output keeps coming, after the event
		at    time.Duration   // when the read is written
	}{
		{"quiet", nil, SettleQuiet},
		{"output goes on", []time.Duration{10 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}, 80*time.Millisecond + SettleQuiet},
	} {
		var term bytes.Buffer
		out := NewOutput(OutputConfig{})
		r := newRig(t, Config{Image: ImageOn, Between: out.Between, Settle: out.Settle})
		r.in.SetTell(func(f func() []byte) { term.Write(f()) })
		t0 := r.now
		var shown bytes.Buffer
		out.Filter(&shown, []byte("\x1b]0;title"), t0)
		r.feed(fakekitty.Event(fakekitty.PW, "image/png", ""), 0)
		if term.Len() != 0 {
			t.Fatalf("%s: the read went inside the open string: %q", tt.name, term.String())
		}
		for _, d := range tt.steps {
			out.Filter(&shown, []byte("x"), t0.Add(d))
		}
		for now := t0; now.Before(t0.Add(SettleMax)) && term.Len() == 0; now = now.Add(time.Millisecond) {
			if d := r.in.deadline(); !d.IsZero() && !now.Before(d) {
				r.in.Flush(&r.child, now)
				if term.Len() > 0 && now.Before(t0.Add(tt.at)) {
					t.Errorf("%s: settled at %v, want at %v", tt.name, now.Sub(t0), tt.at)
				}
			}
		}
		if want := "\x1b\\" + readRequest("pbwrap-1", fakekitty.PW, "", "image/png"); term.String() != want {
			t.Errorf("%s: terminal got %q, want %q", tt.name, term.String(), want)
		}
	}
}
