package imagepaste

import (
	"bytes"
	"image/gif"
	"image/jpeg"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// FuzzCheck: whatever the bytes, the checks and the conversion neither
// panic nor take more than MaxDecoded, and what they take, Go's decoders
// read whole: an image pbwrap saves is one the agent can open.
func FuzzCheck(f *testing.F) {
	imgs := testImages(f)
	for _, name := range []string{"gray", "rgba64", "pal16"} {
		f.Add(encodePNG(f, imgs[name]))
		var b bytes.Buffer
		if err := jpeg.Encode(&b, imgs[name], nil); err == nil {
			f.Add(b.Bytes())
		}
		b.Reset()
		if err := bmp.Encode(&b, imgs[name]); err == nil {
			f.Add(b.Bytes())
		}
		b.Reset()
		if err := tiff.Encode(&b, imgs[name], &tiff.Options{Compression: tiff.Deflate}); err == nil {
			f.Add(b.Bytes())
		}
	}
	var g bytes.Buffer
	if err := gif.Encode(&g, imgs["pal256"], nil); err == nil {
		f.Add(g.Bytes())
	}
	f.Add(riff(chunk("VP8X", vp8x(0x10, 13, 7)), chunk("VP8L", vp8l(13, 7, 0x80102030))))
	f.Fuzz(func(t *testing.T, b []byte) {
		fm, ok := Sniff(b)
		if !ok {
			return
		}
		if fm.Convert {
			var out bytes.Buffer
			if err := Convert(&out, bytes.NewReader(b), int64(len(b))); err == nil {
				if err := CheckPNG(bytes.NewReader(out.Bytes())); err != nil {
					t.Fatalf("Convert wrote a PNG CheckPNG refuses: %v", err)
				}
			}
			return
		}
		if err := Check(bytes.NewReader(b), int64(len(b)), fm); err == nil {
			if _, err := decodeAs(fm.Ext, b); err != nil {
				t.Fatalf("Check took a %s the decoder refuses: %v", fm.Ext, err)
			}
		}
	})
}
