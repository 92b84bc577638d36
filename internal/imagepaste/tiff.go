package imagepaste

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/image/tiff/lzw"
)

// TIFF tags and values tiffMemory reads (TIFF 6.0).
const (
	tagWidth           = 256
	tagHeight          = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagStripOffsets    = 273
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagTileWidth       = 322
	tagTileLength      = 323
	tagTileOffsets     = 324
	tagTileByteCounts  = 325

	compressNone     = 1
	compressLZW      = 5
	compressDeflate  = 8
	compressDeflate2 = 32946
	compressPackBits = 32773

	photometricRGB = 2
)

// maxIFDEntries bounds the entries of the IFD tiffMemory reads: TIFF
// writers use a few dozen.
const maxIFDEntries = 4096

// A tiffEntry is one IFD entry: its type, count and the offset of its
// values in the file (or the values themselves, when they fit in four
// bytes).
type tiffEntry struct {
	typ   uint16
	count uint32
	value [4]byte
}

// tiffMemory reads a TIFF's first IFD, the one golang.org/x/image/tiff
// decodes, and returns its size and what that decoder allocates for it:
// the image (one or two bytes a pixel for grey and paletted images, four
// or eight for RGB), its block offsets and counts, and the buffer into
// which it inflates each strip or tile, which grows as it fills: up to
// three times the largest one's data while it grows (the old array and
// the new, twice as large). To know that, it inflates every block, and
// refuses the image if one holds more than its rows: a few bytes on the
// wire can inflate to far more than any image. So the decoder's memory is
// known before it starts.
func tiffMemory(r io.ReaderAt, size int64) (*TooLargeError, error) {
	var h [8]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, errors.New("no TIFF header")
	}
	var order binary.ByteOrder = binary.LittleEndian
	if h[0] == 'M' {
		order = binary.BigEndian
	}
	at := int64(order.Uint32(h[4:]))
	var nb [2]byte
	if _, err := r.ReadAt(nb[:], at); err != nil {
		return nil, errors.New("the image ends before its IFD")
	}
	n := int(order.Uint16(nb[:]))
	if n == 0 || n > maxIFDEntries {
		return nil, fmt.Errorf("an IFD of %d entries", n)
	}
	raw := make([]byte, 12*n)
	if _, err := r.ReadAt(raw, at+2); err != nil {
		return nil, errors.New("the image ends inside its IFD")
	}
	ifd := make(map[uint16]tiffEntry, n)
	for i := range n {
		e := raw[12*i:]
		var v [4]byte
		copy(v[:], e[8:12])
		ifd[order.Uint16(e)] = tiffEntry{typ: order.Uint16(e[2:]), count: order.Uint32(e[4:]), value: v}
	}
	t := tiffReader{r: r, size: size, order: order, ifd: ifd}
	return t.memory()
}

// tiffReader reads the values of a TIFF's IFD.
type tiffReader struct {
	r     io.ReaderAt
	size  int64
	order binary.ByteOrder
	ifd   map[uint16]tiffEntry
}

// values returns a reader of the entry's values (BYTE, SHORT or LONG),
// with its count; ok is false when it has none.
func (t *tiffReader) values(tag uint16) (next func() (uint64, error), count int, ok bool) {
	e, ok := t.ifd[tag]
	if !ok || e.count == 0 {
		return nil, 0, false
	}
	width := map[uint16]int{1: 1, 3: 2, 4: 4}[e.typ]
	if width == 0 {
		return func() (uint64, error) { return 0, fmt.Errorf("tag %d of type %d", tag, e.typ) }, int(e.count), true
	}
	var src io.Reader
	if n := int64(width) * int64(e.count); n <= 4 {
		src = &sliceReader{b: e.value[:n]}
	} else {
		off := int64(t.order.Uint32(e.value[:]))
		if off < 0 || off+n > t.size {
			return func() (uint64, error) { return 0, fmt.Errorf("tag %d's values past the end of the file", tag) }, int(e.count), true
		}
		src = bufio.NewReader(io.NewSectionReader(t.r, off, n))
	}
	var b [4]byte
	return func() (uint64, error) {
		if _, err := io.ReadFull(src, b[:width]); err != nil {
			return 0, fmt.Errorf("tag %d: %w", tag, err)
		}
		switch width {
		case 1:
			return uint64(b[0]), nil
		case 2:
			return uint64(t.order.Uint16(b[:])), nil
		}
		return uint64(t.order.Uint32(b[:])), nil
	}, int(e.count), true
}

// first returns the entry's first value, or def when there is none.
func (t *tiffReader) first(tag uint16, def uint64) (uint64, error) {
	next, _, ok := t.values(tag)
	if !ok {
		return def, nil
	}
	return next()
}

// sliceReader reads a few bytes in place.
type sliceReader struct{ b []byte }

func (s *sliceReader) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

func (t *tiffReader) memory() (*TooLargeError, error) {
	w, err := t.first(tagWidth, 0)
	if err != nil {
		return nil, err
	}
	h, err := t.first(tagHeight, 0)
	if err != nil {
		return nil, err
	}
	if w == 0 || h == 0 || w > 1<<24 || h > 1<<24 {
		return nil, fmt.Errorf("a size of %dx%d", w, h)
	}
	next, samples, ok := t.values(tagBitsPerSample)
	bits, depth := 1, 1
	if ok {
		bits, depth = 0, 0
		for range min(samples, 16) {
			b, err := next()
			if err != nil {
				return nil, err
			}
			bits, depth = bits+int(b), max(depth, int(b))
		}
	} else {
		samples = 1
	}
	photometric, err := t.first(tagPhotometric, 0)
	if err != nil {
		return nil, err
	}
	pixel := 1
	switch {
	case photometric == photometricRGB && depth > 8:
		pixel = 8
	case photometric == photometricRGB:
		pixel = 4
	case depth > 8:
		pixel = 2
	}
	need := &TooLargeError{Width: int(w), Height: int(h), Bytes: decodedBytes(int(w), int(h), pixel)}
	if need.Bytes > MaxDecoded {
		return need, nil
	}

	// The blocks: tiles, or strips of whole rows.
	bw, bh := w, h
	offsetsTag, countsTag := uint16(tagStripOffsets), uint16(tagStripByteCounts)
	if tw, err := t.first(tagTileWidth, 0); err != nil {
		return nil, err
	} else if tw != 0 {
		tl, err := t.first(tagTileLength, 0)
		if err != nil {
			return nil, err
		}
		bw, bh = tw, tl
		offsetsTag, countsTag = tagTileOffsets, tagTileByteCounts
	} else if rows, err := t.first(tagRowsPerStrip, 0); err != nil {
		return nil, err
	} else if rows > 0 && rows < h {
		bh = rows
	}
	if bw == 0 || bh == 0 || bw > 1<<24 || bh > 1<<24 {
		return nil, fmt.Errorf("blocks of %dx%d", bw, bh)
	}
	blocks := ((w + bw - 1) / bw) * ((h + bh - 1) / bh)
	if blocks > uint64(t.size) {
		return nil, fmt.Errorf("%d blocks in %d bytes", blocks, t.size)
	}
	need.Bytes += int64(blocks) * 24 // Their offsets and counts, read and as []uint.
	offsets, nOffsets, ok1 := t.values(offsetsTag)
	counts, nCounts, ok2 := t.values(countsTag)
	if !ok1 || !ok2 || uint64(nOffsets) < blocks || uint64(nCounts) < blocks {
		return nil, errors.New("fewer block offsets or counts than blocks")
	}
	compression, err := t.first(tagCompression, compressNone)
	if err != nil {
		return nil, err
	}
	// What a block's rows take, and what the decoder lets one inflate to.
	rows := int64(bh) * ((int64(bw)*int64(bits) + 7) / 8)
	limit := int64(bw) * int64(bh) * 8
	var largest int64
	for range blocks {
		off, err := offsets()
		if err != nil {
			return nil, err
		}
		n, err := counts()
		if err != nil {
			return nil, err
		}
		if off > uint64(t.size) || n > uint64(t.size)-off {
			return nil, fmt.Errorf("a block of %d bytes at %d, past the end of the file", n, off)
		}
		data := io.NewSectionReader(t.r, int64(off), int64(n))
		var got int64
		switch compression {
		case compressNone, 0:
			got = int64(n)
		case compressLZW:
			got, err = inflated(lzw.NewReader(data, lzw.MSB, 8), rows)
		case compressDeflate, compressDeflate2:
			var z io.ReadCloser
			if z, err = zlib.NewReader(data); err == nil {
				got, err = inflated(z, rows)
			}
		case compressPackBits:
			got, err = unpacked(data, rows)
		default:
			got = min((int64(bw)+7)/8*int64(bh), limit) // CCITT: one bit a pixel; others the decoder refuses.
		}
		if err != nil {
			return nil, err
		}
		if got > rows && compression != compressNone && compression != 0 {
			return nil, fmt.Errorf("a block that inflates to more than its %d bytes of rows", rows)
		}
		if compression == compressNone || compression == 0 {
			largest = max(largest, readCost(min(got, limit)))
		} else {
			largest = max(largest, 3*min(got, limit)+512)
		}
	}
	need.Bytes += largest
	return need, nil
}

// readCost is what golang.org/x/image/tiff holds to read a block of n
// bytes that is not compressed: the block itself, or, from 10 MiB on, the
// block grown by appends of 10 MiB (old and new array while one is
// copied), and the 10 MiB it reads them into.
func readCost(n int64) int64 {
	const chunk = 10 << 20
	if n < chunk {
		return n
	}
	return n*9/4 + chunk
}

// inflated reads r to its end, up to limit bytes, and returns how many it
// held (limit+1 when more); an error in the data is an error.
func inflated(r io.ReadCloser, limit int64) (int64, error) {
	defer r.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(r, limit+1))
	if err != nil {
		return 0, fmt.Errorf("a block's data: %w", err)
	}
	return n, nil
}

// unpacked reads PackBits data to its end, up to limit bytes unpacked,
// and returns how many it unpacks to (more than limit when more).
func unpacked(r io.Reader, limit int64) (int64, error) {
	br := bufio.NewReader(r)
	var n int64
	for n <= limit {
		b, err := br.ReadByte()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		switch code := int(int8(b)); {
		case code >= 0:
			if _, err := br.Discard(code + 1); err != nil {
				return 0, errors.New("PackBits data cut short")
			}
			n += int64(code + 1)
		case code == -128:
		default:
			if _, err := br.ReadByte(); err != nil {
				return 0, errors.New("PackBits data cut short")
			}
			n += int64(1 - code)
		}
	}
	return n, nil
}
