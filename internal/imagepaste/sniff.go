package imagepaste

import "bytes"

// SniffLen is how many bytes Sniff needs to tell every format apart
// (WebP's "RIFF", size, "WEBP").
const SniffLen = 12

// A Format is an image format pbwrap saves: by its magic bytes, never by
// the MIME type the clipboard claims; what is saved is then checked whole
// (CheckPNG, Check, Convert).
type Format struct {
	Ext string // the file's extension, without the dot
	// Convert says that the agents do not take it as it is (TIFF, BMP:
	// what macOS "Copy Image" puts on the clipboard): it is saved as PNG
	// (see Convert).
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
