package imagepaste

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

func TestSniff(t *testing.T) {
	for _, tt := range []struct {
		head    string
		ext     string
		convert bool
	}{
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\r", "png", false},
		{"\xff\xd8\xff\xe0\x00\x10JFIF", "jpg", false},
		{"GIF89a\x01\x00", "gif", false},
		{"GIF87a", "gif", false},
		{"RIFF\x24\x00\x00\x00WEBPVP8 ", "webp", false},
		{"II*\x00\x08\x00\x00\x00", "png", true},
		{"MM\x00*\x00\x00\x00\x08", "png", true},
		{"BM\x36\x00\x00\x00\x00\x00", "png", true},
		{"RIFF\x24\x00\x00\x00WAVE", "", false},
		{"\x89PNG", "", false},
		{"<html>", "", false},
		{"", "", false},
	} {
		f, ok := Sniff([]byte(tt.head))
		if f.Ext != tt.ext || f.Convert != tt.convert || ok != (tt.ext != "") {
			t.Errorf("Sniff(%q) = %+v, %v", tt.head, f, ok)
		}
	}
}

// TIFF and BMP come out as PNG with the same pixels; other data and a
// header that claims too many pixels are refused.
func TestToPNG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 10, 20, 255})
	img.Set(0, 0, color.RGBA{1, 2, 3, 255})
	for name, enc := range map[string]func(*bytes.Buffer) error{
		"bmp":  func(b *bytes.Buffer) error { return bmp.Encode(b, img) },
		"tiff": func(b *bytes.Buffer) error { return tiff.Encode(b, img, nil) },
	} {
		var in, out bytes.Buffer
		if err := enc(&in); err != nil {
			t.Fatal(err)
		}
		if f, ok := Sniff(in.Bytes()); !ok || !f.Convert {
			t.Errorf("%s: Sniff = %+v, %v", name, f, ok)
		}
		if err := ToPNG(&out, in.Bytes()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := png.Decode(&out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, pt := range []image.Point{{1, 1}, {0, 0}, {2, 1}} {
			r1, g1, b1, _ := got.At(pt.X, pt.Y).RGBA()
			r2, g2, b2, _ := img.At(pt.X, pt.Y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				t.Errorf("%s: pixel %v = %v, want %v", name, pt, got.At(pt.X, pt.Y), img.At(pt.X, pt.Y))
			}
		}
	}
	var out bytes.Buffer
	if err := ToPNG(&out, []byte("\x89PNG\r\n\x1a\n")); err == nil {
		t.Error("PNG: no error")
	}
	// A BMP header stating 100000 x 100000 pixels, with no pixels.
	huge := []byte("BM\x00\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\xa0\x86\x01\x00\xa0\x86\x01\x00\x01\x00\x18\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	if err := ToPNG(&out, huge); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("huge: %v", err)
	}
}

// The text normalizer at every split: newlines as CR, the end marker
// gone, other escapes kept.
func TestTextNorm(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a\nb\r\nc\rd", "a\rb\rc\rd"},
		{"x\x1b[201~y", "xy"},
		{"\x1b[201~\x1b[201~", ""},
		{"\x1b[20\x1b[201~", "\x1b[20"},
		{"\x1b[A\x1b", "\x1b[A\x1b"},
		{"\r\x1b\n", "\r\x1b\r"},
		{"\x1b[200~in\x1b[201~", "\x1b[200~in"},
	} {
		for n := 1; n <= max(1, len(tt.in)); n++ {
			var tn textNorm
			var out []byte
			for rest := tt.in; len(rest) > 0; rest = rest[min(n, len(rest)):] {
				out = tn.write(out, []byte(rest[:min(n, len(rest))]))
			}
			out = tn.flush(out)
			if string(out) != tt.want {
				t.Errorf("%q, reads of %d: %q, want %q", tt.in, n, out, tt.want)
			}
		}
	}
}
