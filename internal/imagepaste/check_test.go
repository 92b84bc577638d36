package imagepaste

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// testImages are images of every kind the Go encoders write, small.
func testImages(t testing.TB) map[string]image.Image {
	r := image.Rect(0, 0, 13, 7)
	gray, gray16 := image.NewGray(r), image.NewGray16(r)
	rgba, rgba64, nrgba, nrgba64 := image.NewRGBA(r), image.NewRGBA64(r), image.NewNRGBA(r), image.NewNRGBA64(r)
	pal2 := image.NewPaletted(r, color.Palette{color.Black, color.White})
	pal16 := image.NewPaletted(r, palette.Plan9[:16])
	pal256 := image.NewPaletted(r, palette.Plan9)
	for y := range 7 {
		for x := range 13 {
			v := uint8(x*19 + y*31)
			gray.SetGray(x, y, color.Gray{v})
			gray16.SetGray16(x, y, color.Gray16{uint16(v) * 257})
			rgba.SetRGBA(x, y, color.RGBA{v, v / 2, 255 - v, 255})
			rgba64.SetRGBA64(x, y, color.RGBA64{uint16(v) << 8, 0, 1 << 15, 0xffff})
			nrgba.SetNRGBA(x, y, color.NRGBA{v, 3, 200, v})
			nrgba64.SetNRGBA64(x, y, color.NRGBA64{1, uint16(v) << 8, 2, uint16(v) << 8})
			pal2.SetColorIndex(x, y, v&1)
			pal16.SetColorIndex(x, y, v&15)
			pal256.SetColorIndex(x, y, v)
		}
	}
	return map[string]image.Image{"gray": gray, "gray16": gray16, "rgba": rgba, "rgba64": rgba64, "nrgba": nrgba, "nrgba64": nrgba64, "pal2": pal2, "pal16": pal16, "pal256": pal256}
}

func encodePNG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// goTestdata lists the images of a kind in Go's own test data, which its
// decoders are tested with; none where the Go tree has no sources.
func goTestdata(t *testing.T, glob string) []string {
	m, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "image", glob))
	if len(m) == 0 {
		t.Logf("no %s under %s", glob, runtime.GOROOT())
	}
	return m
}

// CheckPNG takes what image/png decodes, and refuses what it does not:
// every kind of PNG the Go encoder writes, and Go's own test PNGs
// (PngSuite, interlaced ones, broken ones), but for bytes after IEND,
// which CheckPNG refuses too.
func TestCheckPNGAgreesWithDecoder(t *testing.T) {
	cases := map[string][]byte{}
	for name, img := range testImages(t) {
		cases[name] = encodePNG(t, img)
	}
	for _, glob := range []string{"png/testdata/*.png", "png/testdata/pngsuite/*.png", "testdata/*.png"} {
		for _, path := range goTestdata(t, glob) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cases[filepath.Base(path)] = b
		}
	}
	for name, b := range cases {
		_, derr := png.Decode(bytes.NewReader(b))
		cerr := CheckPNG(bytes.NewReader(b))
		if (cerr == nil) != (derr == nil) {
			t.Errorf("%s: CheckPNG %v, png.Decode %v", name, cerr, derr)
		}
		if cerr != nil && Reason(cerr) == "" {
			t.Errorf("%s: %v is no image's error", name, cerr)
		}
	}
}

// A PNG cut anywhere is not whole.
func TestCheckPNGTruncated(t *testing.T) {
	b := encodePNG(t, testImages(t)["rgba"])
	for n := range len(b) {
		if err := CheckPNG(bytes.NewReader(b[:n])); err == nil {
			t.Fatalf("%d of %d bytes: taken", n, len(b))
		}
	}
}

// pngChunk is one chunk, its CRC computed.
func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// rawPNG is a PNG of its chunks: IHDR of w×h at depth and colour type,
// then the chunks given.
func rawPNG(w, h uint32, depth, ct byte, chunks ...[]byte) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, ct
	out := append([]byte(pngSignature), pngChunk("IHDR", ihdr)...)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

func zlibOf(p []byte) []byte {
	var b bytes.Buffer
	z := zlib.NewWriter(&b)
	z.Write(p)
	z.Close()
	return b.Bytes()
}

// What CheckPNG refuses, and why: each is what a decoder trips on, or an
// image larger than MaxDecoded, refused from its header.
func TestCheckPNGRefuses(t *testing.T) {
	rows := bytes.Repeat([]byte{0, 1, 2, 3}, 2) // 2 rows of 3 grey bytes, filter 0
	iend := pngChunk("IEND", nil)
	good := rawPNG(3, 2, 8, 0, pngChunk("IDAT", zlibOf(rows)), iend)
	if err := CheckPNG(bytes.NewReader(good)); err != nil {
		t.Fatalf("the good one: %v", err)
	}
	bad := func(b []byte, at int) []byte { b = bytes.Clone(b); b[at] ^= 1; return b }
	// A zlib bomb: a 1000x1000 grey PNG whose data inflates to 64 MB;
	// CheckPNG stops at the rows the header states.
	var bomb bytes.Buffer
	z := zlib.NewWriter(&bomb)
	z.Write(make([]byte, 64<<20))
	z.Close()
	for _, tt := range []struct {
		name string
		in   []byte
		want string
	}{
		{"bytes after IEND", append(bytes.Clone(good), 'x'), "bytes after IEND"},
		{"no IEND", good[:len(good)-12], "the image ends before IEND"},
		{"a wrong CRC", bad(good, len(good)-13), "IDAT has a wrong CRC"},
		{"a wrong zlib checksum", rawPNG(3, 2, 8, 0, pngChunk("IDAT", bad(zlibOf(rows), len(zlibOf(rows))-1)), iend), "zlib: invalid checksum"},
		{"a row's filter", rawPNG(3, 2, 8, 0, pngChunk("IDAT", zlibOf(append([]byte{5, 1, 2, 3}, rows[4:]...))), iend), "a row with filter type 5"},
		{"too little data", rawPNG(3, 2, 8, 0, pngChunk("IDAT", zlibOf(rows[:6])), iend), "less image data than its rows"},
		{"too much data", rawPNG(3, 2, 8, 0, pngChunk("IDAT", zlibOf(append(rows, 0))), iend), "more image data than its rows"},
		{"IDAT apart", rawPNG(3, 2, 8, 0, pngChunk("IDAT", zlibOf(rows)[:5]), pngChunk("tEXt", []byte("a\x00b")), pngChunk("IDAT", zlibOf(rows)[5:]), iend), "less image data than its rows"},
		{"an unknown critical chunk", rawPNG(3, 2, 8, 0, pngChunk("ABCD", nil), pngChunk("IDAT", zlibOf(rows)), iend), `an unknown critical chunk "ABCD"`},
		{"no palette", rawPNG(3, 2, 8, 3, pngChunk("IDAT", zlibOf(rows)), iend), "no PLTE before the image data"},
		{"a palette in grey", rawPNG(3, 2, 8, 0, pngChunk("PLTE", []byte{1, 2, 3}), pngChunk("IDAT", zlibOf(rows)), iend), "PLTE in a grey image"},
		{"bit depth", rawPNG(3, 2, 3, 0, iend), "bit depth 3 with colour type 0"},
		{"no data", rawPNG(3, 2, 8, 0, iend), "no image data"},
		{"a zero size", rawPNG(0, 2, 8, 0, iend), "a size of 0x2"},
		{"too large", rawPNG(1<<16, 1<<16, 16, 6, iend), "65536x65536 pixels, 32768 MiB decoded (at most 128 MiB)"},
		{"a zlib bomb", rawPNG(1000, 1000, 8, 0, pngChunk("IDAT", bomb.Bytes()), iend), "more image data than its rows"},
		{"too large for its data", rawPNG(16000, 16000, 8, 0, pngChunk("IDAT", bomb.Bytes()), iend), "16000x16000 pixels, 245 MiB decoded"},
		{"no signature", []byte("\x89PNG\r\n\x1a"), "no PNG signature"},
	} {
		err := CheckPNG(bytes.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || Reason(err) == "" {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// vp8l is a lossless WebP of w×h pixels all of one colour (argb), the
// bitstream written by hand: no transform, no colour cache, five prefix
// codes of one symbol each, so that every pixel takes no bits.
func vp8l(w, h int, argb uint32) []byte {
	var bits []bool
	put := func(v uint32, n int) {
		for i := range n {
			bits = append(bits, v>>i&1 == 1)
		}
	}
	put(0x2f, 8)
	put(uint32(w-1), 14)
	put(uint32(h-1), 14)
	put(1, 1) // alpha is used
	put(0, 3) // version
	put(0, 1) // no transform
	put(0, 1) // no colour cache
	put(0, 1) // no meta prefix codes
	one := func(sym uint32) {
		put(1, 1) // simple code
		put(0, 1) // one symbol
		put(1, 1) // of 8 bits
		put(sym, 8)
	}
	one(argb >> 8 & 0xff)  // green
	one(argb >> 16 & 0xff) // red
	one(argb & 0xff)       // blue
	one(argb >> 24)        // alpha
	one(0)                 // distance
	out := make([]byte, (len(bits)+7)/8)
	for i, b := range bits {
		if b {
			out[i/8] |= 1 << (i % 8)
		}
	}
	return out
}

// riff wraps chunks (fourcc and data) in a RIFF WEBP container.
func riff(chunks ...[2][]byte) []byte {
	var body bytes.Buffer
	body.WriteString("WEBP")
	for _, c := range chunks {
		body.Write(c[0])
		binary.Write(&body, binary.LittleEndian, uint32(len(c[1])))
		body.Write(c[1])
		if len(c[1])%2 == 1 {
			body.WriteByte(0)
		}
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(body.Len()))
	b.Write(body.Bytes())
	return b.Bytes()
}

func chunk(fourcc string, data []byte) [2][]byte { return [2][]byte{[]byte(fourcc), data} }

// vp8x is a VP8X chunk's data for a w×h canvas with flags.
func vp8x(flags byte, w, h int) []byte {
	return []byte{flags, 0, 0, 0, byte(w - 1), byte((w - 1) >> 8), byte((w - 1) >> 16), byte(h - 1), byte((h - 1) >> 8), byte((h - 1) >> 16)}
}

// The other formats pbwrap keeps as they are: each whole image is taken,
// each cut one refused, and each that states more than MaxDecoded refused
// from its header, before any decoding.
func TestCheck(t *testing.T) {
	imgs := testImages(t)
	enc := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	jpegOf := func(img image.Image) []byte {
		return enc(func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) })
	}
	anim := &gif.GIF{Image: []*image.Paletted{imgs["pal16"].(*image.Paletted), imgs["pal256"].(*image.Paletted)}, Delay: []int{1, 1}}
	valid := map[string][]byte{
		"jpg gray":  jpegOf(imgs["gray"]),
		"jpg rgba":  jpegOf(imgs["rgba"]),
		"gif":       enc(func(b *bytes.Buffer) error { return gif.Encode(b, imgs["pal256"], nil) }),
		"gif anim":  enc(func(b *bytes.Buffer) error { return gif.EncodeAll(b, anim) }),
		"webp":      riff(chunk("VP8L", vp8l(13, 7, 0xff102030))),
		"webp vp8x": riff(chunk("VP8X", vp8x(0x10, 13, 7)), chunk("VP8L", vp8l(13, 7, 0x80102030))),
	}
	for _, path := range append(goTestdata(t, "testdata/*.jpeg"), goTestdata(t, "testdata/*.gif")...) {
		if b, err := os.ReadFile(path); err == nil {
			valid[filepath.Base(path)] = b
		}
	}
	for name, b := range valid {
		f, ok := Sniff(b)
		if !ok {
			t.Fatalf("%s: Sniff found no format", name)
		}
		_, derr := decodeAs(f.Ext, b)
		err := Check(bytes.NewReader(b), int64(len(b)), f)
		if (err == nil) != (derr == nil) {
			t.Errorf("%s: Check %v, the decoder %v", name, err, derr)
		}
		if err != nil {
			continue
		}
		for n := SniffLen; n < len(b); n += 1 + len(b)/200 {
			if Check(bytes.NewReader(b[:n]), int64(n), f) == nil {
				t.Errorf("%s: cut to %d of %d bytes, taken", name, n, len(b))
				break
			}
		}
	}
	le16 := func(v int) string { return string([]byte{byte(v), byte(v >> 8)}) }
	be16 := func(v int) string { return string([]byte{byte(v >> 8), byte(v)}) }
	for _, tt := range []struct {
		name, ext, in, want string
	}{
		{"jpeg, progressive", "jpg", "\xff\xd8\xff\xc2\x00\x11\x08" + be16(7000) + be16(7000) + "\x03\x01\x11\x00\x02\x11\x00\x03\x11\x00", "7000x7000 pixels, 701 MiB decoded"},
		{"jpeg, baseline", "jpg", "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xc0\x00\x0b\x08" + be16(16000) + be16(16000) + "\x01\x01\x11\x00", "16000x16000 pixels, 245 MiB decoded"},
		{"jpeg, arithmetic", "jpg", "\xff\xd8\xff\xc9\x00\x0b\x08\x00\x10\x00\x10\x01\x01\x11\x00", "a frame kind image/jpeg does not decode (SOF9)"},
		{"gif, frames", "gif", "GIF89a" + le16(9000) + le16(9000) + "\x00\x00\x00" + strings.Repeat("\x2c\x00\x00\x00\x00"+le16(9000)+le16(9000)+"\x00\x08\x00", 2) + "\x3b", "9000x9000 pixels, 155 MiB decoded"},
		{"webp, VP8L", "webp", string(riff(chunk("VP8L", vp8l(16000, 16000, 0)))), "16000x16000 pixels, 1954 MiB decoded"},
		{"webp, VP8", "webp", string(riff(chunk("VP8 ", []byte("\x10\x02\x00\x9d\x01\x2a"+le16(16383)+le16(16383))))), "16383x16383 pixels, 400 MiB decoded"},
		{"webp, animated", "webp", string(riff(chunk("VP8X", vp8x(0x02, 10, 10)))), "an animation, no still image"},
		{"webp, RIFF size", "webp", string(riff(chunk("VP8L", vp8l(2, 2, 0)))) + "xx", "a RIFF size of"},
	} {
		err := Check(strings.NewReader(tt.in), int64(len(tt.in)), Format{Ext: tt.ext})
		if err == nil || !strings.Contains(err.Error(), tt.want) || Reason(err) == "" {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// decodeAs decodes b with the Go decoder of ext, every frame of a GIF.
func decodeAs(ext string, b []byte) (any, error) {
	r := bytes.NewReader(b)
	switch ext {
	case "jpg":
		return jpeg.Decode(r)
	case "gif":
		return gif.DecodeAll(r)
	case "webp":
		return webp.Decode(r)
	}
	return png.Decode(r)
}

// A TIFF that states more than MaxDecoded, or whose strip inflates past
// its rows, is refused before it is decoded; a BMP with fewer rows than
// it states too.
func TestConvertRefuses(t *testing.T) {
	le := binary.LittleEndian
	tiffOf := func(w, h, rows uint32, strip []byte) []byte {
		var b bytes.Buffer
		b.WriteString("II*\x00")
		binary.Write(&b, le, uint32(8))
		entries := [][3]uint32{{256<<16 | 4, 1, w}, {257<<16 | 4, 1, h}, {258<<16 | 3, 1, 8}, {259<<16 | 3, 1, 8}, {262<<16 | 3, 1, 1}, {273<<16 | 4, 1, 0}, {278<<16 | 4, 1, rows}, {279<<16 | 4, 1, uint32(len(strip))}}
		binary.Write(&b, le, uint16(len(entries)))
		at := uint32(8 + 2 + 12*len(entries) + 4)
		for _, e := range entries {
			if e[0]>>16 == 273 {
				e[2] = at
			}
			binary.Write(&b, le, uint16(e[0]>>16))
			binary.Write(&b, le, uint16(e[0]))
			binary.Write(&b, le, e[1])
			binary.Write(&b, le, e[2])
		}
		binary.Write(&b, le, uint32(0))
		b.Write(strip)
		return b.Bytes()
	}
	for _, tt := range []struct {
		name string
		in   []byte
		want string
	}{
		{"a TIFF too large", tiffOf(20000, 20000, 20000, zlibOf(make([]byte, 100))), "20000x20000 pixels, 382 MiB decoded"},
		{"a strip bomb", tiffOf(100, 100, 100, zlibOf(make([]byte, 1<<20))), "a block that inflates to more than its 10000 bytes of rows"},
		{"a BMP cut short", func() []byte {
			var b bytes.Buffer
			bmp.Encode(&b, image.NewRGBA(image.Rect(0, 0, 40, 40)))
			return b.Bytes()[:b.Len()/2]
		}(), "hold fewer than the 40 rows"},
	} {
		var out bytes.Buffer
		err := Convert(&out, bytes.NewReader(tt.in), int64(len(tt.in)))
		if err == nil || !strings.Contains(err.Error(), tt.want) || Reason(err) == "" || out.Len() != 0 {
			t.Errorf("%s: %v (%d bytes written), want %q", tt.name, err, out.Len(), tt.want)
		}
	}
	// A TIFF within the bounds converts.
	rows := bytes.Repeat([]byte{7}, 100*100)
	var out bytes.Buffer
	if err := Convert(&out, bytes.NewReader(tiffOf(100, 100, 100, zlibOf(rows))), int64(len(tiffOf(100, 100, 100, zlibOf(rows))))); err != nil {
		t.Fatal(err)
	}
	if err := CheckPNG(&out); err != nil {
		t.Error(err)
	}
	var tb bytes.Buffer
	if err := tiff.Encode(&tb, testImages(t)["nrgba64"], &tiff.Options{Compression: tiff.Deflate, Predictor: true}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Convert(&out, bytes.NewReader(tb.Bytes()), int64(tb.Len())); err != nil {
		t.Errorf("a deflated TIFF with a predictor: %v", err)
	}
	var ie *ImageError
	if err := Convert(&out, strings.NewReader("II*\x00\x08\x00\x00\x00"), 8); !errors.As(err, &ie) {
		t.Errorf("a cut TIFF: %v", err)
	}
}
