package imagepaste

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// SniffLen is how many bytes Sniff needs to tell every format apart
// (WebP's "RIFF", size, "WEBP").
const SniffLen = 12

// A Format is an image format pbwrap saves: by its magic bytes, never by
// the MIME type the clipboard claims.
type Format struct {
	Ext string // the file's extension, without the dot
	// Convert says that the agents do not take it as it is (TIFF, BMP:
	// what macOS "Copy Image" puts on the clipboard): it is saved as PNG
	// (see ToPNG).
	Convert bool
}

// Sniff returns the format whose magic bytes begin head, and false for
// none: PNG, JPEG, GIF and WebP are saved as they are, TIFF and BMP
// converted to PNG. head should hold SniffLen bytes, or the whole image
// if it is shorter.
func Sniff(head []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return Format{Ext: "png"}, true
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		return Format{Ext: "jpg"}, true
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return Format{Ext: "gif"}, true
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return Format{Ext: "webp"}, true
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return Format{Ext: "png", Convert: true}, true
	case bytes.HasPrefix(head, []byte("BM")) && len(head) >= 6:
		return Format{Ext: "png", Convert: true}, true
	}
	return Format{}, false
}

// MaxPixels bounds the size of an image ToPNG converts: a decoder
// allocates by the size the header states, which a small file can
// overstate. 50 million pixels (200 MB decoded) is larger than any
// screen shot of a 5K display.
const MaxPixels = 50_000_000

// ToPNG decodes a TIFF or BMP image, data, and writes it to w as PNG, with
// golang.org/x/image's decoders: pbwrap never runs a converter. An image
// stated larger than MaxPixels is refused before it is decoded.
func ToPNG(w io.Writer, data []byte) error {
	var decode func(io.Reader) (image.Image, error)
	var config func(io.Reader) (image.Config, error)
	switch {
	case bytes.HasPrefix(data, []byte("BM")):
		decode, config = bmp.Decode, bmp.DecodeConfig
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		decode, config = tiff.Decode, tiff.DecodeConfig
	default:
		return fmt.Errorf("imagepaste: convert to png: neither TIFF nor BMP (starts %q)", data[:min(len(data), SniffLen)])
	}
	c, err := config(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("imagepaste: convert to png: %w", err)
	}
	if c.Width <= 0 || c.Height <= 0 || int64(c.Width)*int64(c.Height) > MaxPixels {
		return fmt.Errorf("imagepaste: convert to png: %dx%d pixels, more than %d", c.Width, c.Height, MaxPixels)
	}
	img, err := decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("imagepaste: convert to png: %w", err)
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("imagepaste: convert to png: %w", err)
	}
	return nil
}
