package imagepaste

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"runtime/debug"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// MaxDecoded bounds the memory that checking or converting one image may
// take: the bytes its decoded form takes, as pbwrap's decoder for its
// format holds it (width × height × bytes per pixel, with whatever the
// decoder keeps beside the pixels: a progressive JPEG's coefficients, a
// TIFF's strip), read from its header before anything is decoded. 128
// MiB holds a 5K screenshot at 16 bits a channel (5120 × 2880 × 8 bytes,
// 113 MiB), and any 8-bit one up to 6K; an image that states more is no
// image pbwrap takes, however few bytes it has on the wire. A PNG is
// checked as it streams in, whatever its size, but held to the same
// bound: it is what the agent will decode.
const MaxDecoded = 128 << 20

// gcPercent is the garbage collector's target (GOGC) while an image is
// decoded (see HoldGC).
const gcPercent = 10

// HoldGC lowers the garbage collector's target while an image is checked
// or converted, and returns what restores it and gives the memory back
// to the system: the decoded image is then most of the heap, up to
// MaxDecoded, and the default target would let as much garbage again
// (inflaters, rows) pile up beside it before a collection. The target is
// the process's: one image at a time.
func HoldGC() (restore func()) {
	old := debug.SetGCPercent(gcPercent)
	return func() {
		debug.SetGCPercent(old)
		debug.FreeOSMemory()
	}
}

// A TooLargeError is an image whose decoded form would take more than
// MaxDecoded bytes.
type TooLargeError struct {
	Width, Height int
	Bytes         int64 // what decoding it would take
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%dx%d pixels, %d MiB decoded (at most %d MiB)", e.Width, e.Height, e.Bytes>>20+min(1, e.Bytes&(1<<20-1)), MaxDecoded>>20)
}

// decodedBytes is width × height × bytes per pixel, saturated at the
// largest int64.
func decodedBytes(w, h, bpp int) int64 {
	if w <= 0 || h <= 0 || bpp <= 0 {
		return 0
	}
	n := int64(w) * int64(h) // Both below 2^31.
	if n > math.MaxInt64/int64(bpp) {
		return math.MaxInt64
	}
	return n * int64(bpp)
}

// Check reads the image in r (size bytes) and reports whether it is a
// whole, valid image of the format f, by decoding all of it within
// MaxDecoded (see each format's check): a file with the right first
// bytes and anything else after them is refused. For PNG it is
// CheckPNG. TIFF and BMP are checked by Convert instead.
func Check(r io.ReaderAt, size int64, f Format) error {
	var err error
	sr := io.NewSectionReader(r, 0, size)
	switch f.Ext {
	case "png":
		return CheckPNG(sr)
	case "jpg":
		err = checkBounded(sr, jpegMemory, func(r io.Reader) error { _, err := jpeg.Decode(r); return err })
	case "gif":
		err = checkBounded(sr, gifMemory, func(r io.Reader) error { _, err := gif.DecodeAll(r); return err })
	case "webp":
		memory := func(r *bufio.Reader) (*TooLargeError, error) { return webpMemory(r, size) }
		err = checkBounded(sr, memory, func(r io.Reader) error { _, err := webp.Decode(r); return err })
	default:
		err = fmt.Errorf("no check for %q", f.Ext)
	}
	if err != nil {
		return &ImageError{Ext: f.Ext, Err: err}
	}
	return nil
}

// checkBounded reads the image's header for what decoding it takes
// (memory: a JPEG's frame header, a GIF's frames, a WebP's image chunk),
// refuses it past MaxDecoded, and decodes it to its end: whole.
func checkBounded(r *io.SectionReader, memory func(*bufio.Reader) (*TooLargeError, error), decode func(io.Reader) error) error {
	need, err := memory(bufio.NewReader(r))
	if err != nil {
		return err
	}
	if need.Bytes > MaxDecoded {
		return need
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return decode(r)
}

// jpegMemory reads a JPEG's markers up to its frame header and returns
// its size and what image/jpeg allocates to decode it: the component
// planes, padded to whole MCUs; a progressive image's coefficients (64
// int32 a block); the RGBA or CMYK image an RGB or four-component one is
// converted to.
func jpegMemory(r *bufio.Reader) (*TooLargeError, error) {
	var b [2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil || b != [2]byte{0xff, 0xd8} {
		return nil, errors.New("no JPEG start marker")
	}
	jfif, adobe, transform := false, false, byte(0)
	for {
		c, err := jpegMarker(r)
		if err != nil {
			return nil, err
		}
		if c == 0x01 || c >= 0xd0 && c <= 0xd7 {
			continue // No length.
		}
		if c == 0xd8 || c == 0xd9 || c == 0xda {
			return nil, fmt.Errorf("marker %#x before the frame header", c)
		}
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, errors.New("the image ends inside a marker")
		}
		n := int(binary.BigEndian.Uint16(b[:]))
		if n < 2 {
			return nil, fmt.Errorf("a marker of length %d", n)
		}
		seg := make([]byte, n-2)
		if _, err := io.ReadFull(r, seg); err != nil {
			return nil, errors.New("the image ends inside a marker")
		}
		switch {
		case c == 0xe0 && bytes.HasPrefix(seg, []byte("JFIF\x00")):
			jfif = true
		case c == 0xee && len(seg) >= 12 && bytes.HasPrefix(seg, []byte("Adobe")):
			adobe, transform = true, seg[11]
		case c == 0xc0 || c == 0xc1 || c == 0xc2:
			return jpegFrame(seg, c == 0xc2, jfif, adobe, transform)
		case c >= 0xc3 && c <= 0xcf && c != 0xc4 && c != 0xc8 && c != 0xcc:
			return nil, fmt.Errorf("a frame kind image/jpeg does not decode (SOF%d)", c-0xc0)
		}
	}
}

// jpegMarker reads the next marker's code, past fill bytes.
func jpegMarker(r *bufio.Reader) (byte, error) {
	c, err := r.ReadByte()
	if err != nil || c != 0xff {
		return 0, errors.New("no marker where one must be")
	}
	for c == 0xff {
		if c, err = r.ReadByte(); err != nil {
			return 0, errors.New("the image ends inside a marker")
		}
	}
	if c == 0 {
		return 0, errors.New("no marker where one must be")
	}
	return c, nil
}

// jpegFrame reads a frame header (SOF0, 1 or 2).
func jpegFrame(seg []byte, progressive, jfif, adobe bool, transform byte) (*TooLargeError, error) {
	if len(seg) < 6 {
		return nil, errors.New("a short frame header")
	}
	h, w, n := int(binary.BigEndian.Uint16(seg[1:3])), int(binary.BigEndian.Uint16(seg[3:5])), int(seg[5])
	if h == 0 || w == 0 || (n != 1 && n != 3 && n != 4) || len(seg) < 6+3*n {
		return nil, fmt.Errorf("a frame of %dx%d with %d components", w, h, n)
	}
	// A grey image's sampling factors do not count (image/jpeg reads it
	// in blocks of 8x8); the others' planes are padded to whole MCUs.
	hv := func(i int) (int, int) {
		if n == 1 {
			return 1, 1
		}
		b := seg[6+3*i+1]
		return max(1, int(b>>4)), max(1, int(b&0x0f))
	}
	hmax, vmax := 1, 1
	for i := range n {
		hi, vi := hv(i)
		hmax, vmax = max(hmax, hi), max(vmax, vi)
	}
	mxx, myy := int64(w+8*hmax-1)/int64(8*hmax), int64(h+8*vmax-1)/int64(8*vmax)
	var total int64
	for i := range n {
		hi, vi := hv(i)
		blocks := mxx * myy * int64(hi) * int64(vi)
		total += blocks * 64 // One byte a sample.
		if progressive {
			total += blocks * 64 * 4 // One int32 a coefficient.
		}
	}
	rgb := n == 3 && !jfif && (adobe && transform == 0 || seg[6] == 'R' && seg[9] == 'G' && seg[12] == 'B')
	if n == 4 || rgb {
		total += 4 * int64(w) * int64(h)
	}
	return &TooLargeError{Width: w, Height: h, Bytes: total}, nil
}

// gifMemory walks a GIF's blocks, to its trailer, and returns its size
// and the sum of its frames' pixels: image/gif keeps every frame, one byte
// a pixel.
func gifMemory(r *bufio.Reader) (*TooLargeError, error) {
	var b [13]byte
	if _, err := io.ReadFull(r, b[:]); err != nil || string(b[:3]) != "GIF" {
		return nil, errors.New("no GIF header")
	}
	w, h := int(binary.LittleEndian.Uint16(b[6:8])), int(binary.LittleEndian.Uint16(b[8:10]))
	if b[10]&0x80 != 0 {
		if _, err := r.Discard(3 << (b[10]&7 + 1)); err != nil {
			return nil, errors.New("the image ends inside its colour table")
		}
	}
	need := &TooLargeError{Width: w, Height: h}
	frames := 0
	for {
		c, err := r.ReadByte()
		if err != nil {
			return nil, errors.New("the image ends before its trailer")
		}
		switch c {
		case 0x3b:
			if frames == 0 {
				return nil, errors.New("no frame")
			}
			return need, nil
		case 0x21:
			if _, err := r.ReadByte(); err != nil {
				return nil, errors.New("the image ends inside an extension")
			}
		case 0x2c:
			var d [9]byte
			if _, err := io.ReadFull(r, d[:]); err != nil {
				return nil, errors.New("the image ends inside a frame's header")
			}
			fw, fh := int(binary.LittleEndian.Uint16(d[4:6])), int(binary.LittleEndian.Uint16(d[6:8]))
			need.Bytes += int64(fw) * int64(fh)
			if need.Bytes > MaxDecoded {
				return need, nil
			}
			frames++
			if d[8]&0x80 != 0 {
				if _, err := r.Discard(3 << (d[8]&7 + 1)); err != nil {
					return nil, errors.New("the image ends inside a colour table")
				}
			}
			if _, err := r.ReadByte(); err != nil { // LZW minimum code size
				return nil, errors.New("the image ends inside a frame")
			}
		default:
			return nil, fmt.Errorf("a block %#x", c)
		}
		// Data sub-blocks, up to an empty one.
		for {
			n, err := r.ReadByte()
			if err != nil {
				return nil, errors.New("the image ends inside a block")
			}
			if n == 0 {
				break
			}
			if _, err := r.Discard(int(n)); err != nil {
				return nil, errors.New("the image ends inside a block")
			}
		}
	}
}

// webpMemory checks the RIFF container's size against the file's, reads
// a WebP's chunks up to its image chunk and returns its size and the
// bytes golang.org/x/image/webp takes to decode it (animated WebP is no
// still image: it is refused): YCbCr 4:2:0 in whole macroblocks for
// lossy data, 8 bytes a pixel for lossless (the pixels and the colour
// index transform's copy), and the alpha plane (5 bytes a pixel when it
// is itself compressed losslessly, one when not).
func webpMemory(r *bufio.Reader, size int64) (*TooLargeError, error) {
	var b [12]byte
	if _, err := io.ReadFull(r, b[:]); err != nil || string(b[:4]) != "RIFF" || string(b[8:]) != "WEBP" {
		return nil, errors.New("no RIFF WEBP header")
	}
	if n := int64(binary.LittleEndian.Uint32(b[4:8])); n+8 != size {
		return nil, fmt.Errorf("a RIFF size of %d for %d bytes", n, size)
	}
	var alpha int64
	need := &TooLargeError{}
	for {
		var h [8]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return nil, errors.New("no image chunk")
		}
		n := int(binary.LittleEndian.Uint32(h[4:]))
		head, err := r.Peek(min(n, 10))
		if err != nil {
			return nil, fmt.Errorf("the image ends inside chunk %q", h[:4])
		}
		switch string(h[:4]) {
		case "VP8X":
			if len(head) < 10 {
				return nil, errors.New("a short VP8X chunk")
			}
			if head[0]&0x02 != 0 {
				return nil, errors.New("an animation, no still image")
			}
			need.Width = 1 + int(head[4]) | int(head[5])<<8 | int(head[6])<<16
			need.Height = 1 + int(head[7]) | int(head[8])<<8 | int(head[9])<<16
		case "ALPH":
			if len(head) < 1 {
				return nil, errors.New("an empty ALPH chunk")
			}
			alpha = 1
			if head[0]&0x03 == 1 {
				alpha = 5
			}
		case "VP8 ":
			if len(head) < 10 || head[3] != 0x9d || head[4] != 0x01 || head[5] != 0x2a {
				return nil, errors.New("a VP8 chunk without a key frame")
			}
			w := int(binary.LittleEndian.Uint16(head[6:8]) & 0x3fff)
			ht := int(binary.LittleEndian.Uint16(head[8:10]) & 0x3fff)
			mbs := int64((w+15)/16) * int64((ht+15)/16)
			need.Width, need.Height = max(need.Width, w), max(need.Height, ht)
			need.Bytes = mbs*(256+2*64+16) + alpha*int64(need.Width)*int64(need.Height)
			return need, nil
		case "VP8L":
			if len(head) < 5 || head[0] != 0x2f {
				return nil, errors.New("a VP8L chunk without its signature")
			}
			v := binary.LittleEndian.Uint32(head[1:5])
			w, ht := int(v&0x3fff)+1, int(v>>14&0x3fff)+1
			need.Width, need.Height = max(need.Width, w), max(need.Height, ht)
			need.Bytes = decodedBytes(w, ht, 8)
			return need, nil
		case "ANIM", "ANMF":
			return nil, errors.New("an animation, no still image")
		}
		if _, err := r.Discard(n + n&1); err != nil {
			return nil, fmt.Errorf("the image ends inside chunk %q", h[:4])
		}
	}
}

// Convert decodes the TIFF or BMP image in r (size bytes), bounded by
// MaxDecoded (see tiffMemory, bmpMemory), and writes it to w as PNG, with
// golang.org/x/image's decoders and image/png: pbwrap never runs a
// converter. The decoder reads the file where it is, with no copy of it
// in memory, and the PNG streams to w.
func Convert(w io.Writer, r io.ReaderAt, size int64) error {
	sr := io.NewSectionReader(r, 0, size)
	var head [4]byte
	if _, err := sr.ReadAt(head[:], 0); err != nil {
		return fmt.Errorf("imagepaste: convert to png: %w", err)
	}
	var img image.Image
	var err error
	ext := "tiff"
	switch {
	case bytes.HasPrefix(head[:], []byte("BM")):
		ext = "bmp"
		img, err = decodeBMP(sr, size)
	case string(head[:]) == "II*\x00", string(head[:]) == "MM\x00*":
		img, err = decodeTIFF(sr, size)
	default:
		err = fmt.Errorf("neither TIFF nor BMP (starts %q)", head)
	}
	if err != nil {
		return &ImageError{Ext: ext, Err: err}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := png.Encode(bw, img); err != nil {
		return fmt.Errorf("imagepaste: convert to png: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("imagepaste: convert to png: %w", err)
	}
	return nil
}

// decodeBMP bounds the image its header states (golang.org/x/image/bmp
// decodes into Paletted, one byte a pixel, or RGBA or NRGBA, four), checks
// that the file holds all its rows, and decodes it.
func decodeBMP(r *io.SectionReader, size int64) (image.Image, error) {
	c, err := bmp.DecodeConfig(r)
	if err != nil {
		return nil, err
	}
	var hdr [34]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, err
	}
	bpp := 4
	if _, ok := c.ColorModel.(color.Palette); ok {
		bpp = 1
	}
	if n := decodedBytes(c.Width, c.Height, bpp); n > MaxDecoded {
		return nil, &TooLargeError{Width: c.Width, Height: c.Height, Bytes: n}
	}
	bits := int64(binary.LittleEndian.Uint16(hdr[28:30]))
	stride := (int64(c.Width)*bits + 31) / 32 * 4
	if off := int64(binary.LittleEndian.Uint32(hdr[10:14])); off+stride*int64(c.Height) > size {
		return nil, fmt.Errorf("%d bytes hold fewer than the %d rows of %d bytes it states", size, c.Height, stride)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return bmp.Decode(r)
}

// decodeTIFF bounds what golang.org/x/image/tiff allocates for the image
// (see tiffMemory), and decodes it.
func decodeTIFF(r *io.SectionReader, size int64) (image.Image, error) {
	need, err := tiffMemory(r, size)
	if err != nil {
		return nil, err
	}
	if need.Bytes > MaxDecoded {
		return nil, need
	}
	return tiff.Decode(r)
}

// An ImageError is an image that is not whole and valid, or too large to
// check (Err is then a *TooLargeError): what Check, CheckPNG and Convert
// return for it, as opposed to an error reading it.
type ImageError struct {
	Ext string // the format it claims, by its first bytes
	Err error
}

func (e *ImageError) Error() string { return "imagepaste: check " + e.Ext + ": " + e.Err.Error() }

func (e *ImageError) Unwrap() error { return e.Err }

// Reason says what is wrong with the image err is about, for the user
// (an *ImageError), or "" when err is about no image.
func Reason(err error) string {
	var ie *ImageError
	if !errors.As(err, &ie) {
		return ""
	}
	name := strings.ToUpper(ie.Ext)
	if name == "JPG" {
		name = "JPEG"
	}
	var tl *TooLargeError
	if errors.As(ie.Err, &tl) {
		return "the clipboard image is too large (" + tl.Error() + ")"
	}
	return "the clipboard image is not a whole, valid " + name + " (" + ie.Err.Error() + ")"
}
