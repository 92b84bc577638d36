package imagepaste

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

// pngSignature begins every PNG.
const pngSignature = "\x89PNG\r\n\x1a\n"

// maxChunk is the largest chunk length PNG allows (2^31 - 1).
const maxChunk = 1<<31 - 1

// CheckPNG reads a PNG from r to its end and reports whether it is whole
// and valid, as a decoder would read it, without decoding it into memory:
// the signature; every chunk's length and CRC; IHDR first, with a size
// whose decoded image (as image/png holds it) is at most MaxDecoded bytes
// and a valid bit depth, colour type and interlace method; PLTE where the
// colour type needs one, before the image data; no unknown critical
// chunk; the image data, consecutive IDAT chunks, one zlib stream
// (checksum included) that inflates to exactly the rows the header
// states, each with a valid filter type; IEND last, and nothing after it.
// Memory stays at a few buffers whatever the image's size: it streams.
func CheckPNG(r io.Reader) error {
	c := pngChecker{r: bufio.NewReaderSize(r, 32<<10), crc: crc32.NewIEEE()}
	if err := c.check(); err != nil {
		return &ImageError{Ext: "png", Err: err}
	}
	return nil
}

// pngChecker is CheckPNG's state.
type pngChecker struct {
	r   *bufio.Reader
	crc hash.Hash32

	// The chunk under way: its type and the bytes of its data still to
	// read.
	typ  string
	left uint32

	hdr      pngHeader
	palette  bool // PLTE seen
	data     bool // IDAT seen
	dataDone bool // the IDAT chunks are over
}

// pngHeader is what IHDR says.
type pngHeader struct {
	width, height int
	depth         int
	colorType     int
	interlace     bool
}

func (c *pngChecker) check() error {
	var sig [8]byte
	if _, err := io.ReadFull(c.r, sig[:]); err != nil || string(sig[:]) != pngSignature {
		return errors.New("no PNG signature")
	}
	if err := c.next(); err != nil {
		return err
	}
	if c.typ != "IHDR" {
		return fmt.Errorf("the first chunk is %q, not IHDR", c.typ)
	}
	if err := c.header(); err != nil {
		return err
	}
	for {
		if err := c.next(); err != nil {
			return err
		}
		switch c.typ {
		case "IHDR":
			return errors.New("a second IHDR")
		case "PLTE":
			if err := c.plte(); err != nil {
				return err
			}
		case "IDAT":
			if c.dataDone {
				return errors.New("IDAT chunks that are not consecutive")
			}
			if c.hdr.colorType == 3 && !c.palette {
				return errors.New("no PLTE before the image data of a paletted image")
			}
			if err := c.image(); err != nil {
				return err
			}
			// image reads on to the first chunk after the data.
			if err := c.after(); err != nil {
				return err
			}
			if c.typ == "IEND" {
				return c.end()
			}
		case "IEND":
			return c.end()
		default:
			if err := c.other(); err != nil {
				return err
			}
		}
	}
}

// next reads the next chunk's length and type.
func (c *pngChecker) next() error {
	var b [8]byte
	if _, err := io.ReadFull(c.r, b[:]); err != nil {
		return errors.New("the image ends before IEND")
	}
	n := binary.BigEndian.Uint32(b[:4])
	if n > maxChunk {
		return fmt.Errorf("a chunk of %d bytes, more than PNG allows", n)
	}
	for _, ch := range b[4:] {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z') {
			return fmt.Errorf("a chunk type %q", b[4:])
		}
	}
	c.typ, c.left = string(b[4:]), n
	c.crc.Reset()
	c.crc.Write(b[4:])
	return nil
}

// read reads the chunk's data into p, all of it.
func (c *pngChecker) read(p []byte) error {
	if uint32(len(p)) > c.left {
		return fmt.Errorf("%s is too short", c.typ)
	}
	if _, err := io.ReadFull(c.r, p); err != nil {
		return fmt.Errorf("the image ends inside %s", c.typ)
	}
	c.crc.Write(p)
	c.left -= uint32(len(p))
	return nil
}

// skip reads the rest of the chunk's data.
func (c *pngChecker) skip() error {
	if _, err := io.CopyN(c.crc, c.r, int64(c.left)); err != nil {
		return fmt.Errorf("the image ends inside %s", c.typ)
	}
	c.left = 0
	return nil
}

// done reads the chunk's CRC, once its data is read, and checks it.
func (c *pngChecker) done() error {
	if c.left != 0 {
		return fmt.Errorf("%s is too long", c.typ)
	}
	var b [4]byte
	if _, err := io.ReadFull(c.r, b[:]); err != nil {
		return fmt.Errorf("the image ends inside %s", c.typ)
	}
	if binary.BigEndian.Uint32(b[:]) != c.crc.Sum32() {
		return fmt.Errorf("%s has a wrong CRC", c.typ)
	}
	return nil
}

// header reads IHDR.
func (c *pngChecker) header() error {
	var b [13]byte
	if c.left != 13 {
		return fmt.Errorf("IHDR of %d bytes", c.left)
	}
	if err := c.read(b[:]); err != nil {
		return err
	}
	if err := c.done(); err != nil {
		return err
	}
	w, h := binary.BigEndian.Uint32(b[0:4]), binary.BigEndian.Uint32(b[4:8])
	if w == 0 || h == 0 || w > maxChunk || h > maxChunk {
		return fmt.Errorf("a size of %dx%d", w, h)
	}
	depth, ct := int(b[8]), int(b[9])
	valid := map[int][]int{0: {1, 2, 4, 8, 16}, 2: {8, 16}, 3: {1, 2, 4, 8}, 4: {8, 16}, 6: {8, 16}}[ct]
	ok := false
	for _, d := range valid {
		ok = ok || d == depth
	}
	if !ok {
		return fmt.Errorf("bit depth %d with colour type %d", depth, ct)
	}
	if b[10] != 0 || b[11] != 0 || b[12] > 1 {
		return fmt.Errorf("compression, filter or interlace method %d, %d, %d", b[10], b[11], b[12])
	}
	c.hdr = pngHeader{width: int(w), height: int(h), depth: depth, colorType: ct, interlace: b[12] == 1}
	if n := decodedBytes(c.hdr.width, c.hdr.height, c.hdr.pixelBytes()); n > MaxDecoded {
		return &TooLargeError{Width: c.hdr.width, Height: c.hdr.height, Bytes: n}
	}
	return nil
}

// samples is how many samples a pixel of the colour type has.
func (h *pngHeader) samples() int {
	return map[int]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[h.colorType]
}

// pixelBytes is how many bytes a pixel takes once decoded, as image/png
// holds it: Gray, Gray16, Paletted, RGBA, RGBA64, NRGBA or NRGBA64.
func (h *pngHeader) pixelBytes() int {
	switch {
	case h.colorType == 3 || h.colorType == 0 && h.depth <= 8:
		return 1
	case h.colorType == 0:
		return 2
	case h.depth == 16:
		return 8
	}
	return 4
}

// rowBytes is the size of a row of w pixels in the image data, its
// filter byte included.
func (h *pngHeader) rowBytes(w int) int64 {
	return 1 + (int64(w)*int64(h.samples()*h.depth)+7)/8
}

// plte reads PLTE.
func (c *pngChecker) plte() error {
	switch {
	case c.palette:
		return errors.New("a second PLTE")
	case c.data:
		return errors.New("PLTE after the image data")
	case c.hdr.colorType == 0 || c.hdr.colorType == 4:
		return errors.New("PLTE in a grey image")
	case c.left == 0 || c.left%3 != 0 || c.left > 256*3:
		return fmt.Errorf("PLTE of %d bytes", c.left)
	}
	c.palette = true
	if err := c.skip(); err != nil {
		return err
	}
	return c.done()
}

// other reads an ancillary chunk, which decoders skip; a critical chunk
// (its type's first letter upper case) they do not know makes the image
// unreadable.
func (c *pngChecker) other() error {
	if c.typ[0] >= 'A' && c.typ[0] <= 'Z' {
		return fmt.Errorf("an unknown critical chunk %q", c.typ)
	}
	if c.data {
		c.dataDone = true
	}
	if err := c.skip(); err != nil {
		return err
	}
	return c.done()
}

// image inflates the image data, from the IDAT chunk under way on, and
// checks its rows; it leaves the reader at the first chunk after the
// image data, whose length and type are read.
func (c *pngChecker) image() error {
	c.data = true
	idat := &idatReader{c: c}
	z, err := zlib.NewReader(idat)
	if err != nil {
		return fmt.Errorf("the image data is no zlib stream: %w", err)
	}
	var row [1]byte
	for _, p := range c.hdr.passes() {
		n := c.hdr.rowBytes(p.width) - 1
		for range p.height {
			if _, err := io.ReadFull(z, row[:]); err != nil {
				return dataError(idat, err)
			}
			if row[0] > 4 {
				return fmt.Errorf("a row with filter type %d", row[0])
			}
			if _, err := io.CopyN(io.Discard, z, n); err != nil {
				return dataError(idat, err)
			}
		}
	}
	switch n, err := z.Read(row[:]); {
	case n > 0:
		return errors.New("more image data than its rows")
	case err == io.EOF:
	case err == nil:
		// No data and no end yet: read on to the end, which must come
		// with no more data.
		if n, err := io.Copy(io.Discard, z); n > 0 {
			return errors.New("more image data than its rows")
		} else if err != nil {
			return dataError(idat, err)
		}
	default:
		return dataError(idat, err)
	}
	// Bytes after the zlib stream, in its last IDAT, are read and
	// dropped, as decoders do.
	if _, err := io.Copy(io.Discard, idat); err != nil {
		return err
	}
	return idat.err
}

// dataError says what went wrong inflating the image data.
func dataError(idat *idatReader, err error) error {
	if idat.err != nil {
		return idat.err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("less image data than its rows")
	}
	return fmt.Errorf("the image data: %w", err)
}

// after checks that the chunk after the image data may follow it.
func (c *pngChecker) after() error {
	c.dataDone = true
	switch c.typ {
	case "IHDR", "PLTE":
		return fmt.Errorf("%s after the image data", c.typ)
	case "IEND":
		return nil
	}
	return c.other()
}

// end reads IEND, which must be the last bytes.
func (c *pngChecker) end() error {
	if !c.data {
		return errors.New("no image data")
	}
	if c.left != 0 {
		return errors.New("IEND with data")
	}
	if err := c.done(); err != nil {
		return err
	}
	if _, err := c.r.ReadByte(); err != io.EOF {
		return errors.New("bytes after IEND")
	}
	return nil
}

// A pass is one of the sub-images of an interlaced PNG (Adam7), or the
// whole image.
type pass struct{ width, height int }

// passes are the image's sub-images, in order, those with no pixels left
// out (they have no rows in the data).
func (h *pngHeader) passes() []pass {
	if !h.interlace {
		return []pass{{h.width, h.height}}
	}
	var out []pass
	for _, a := range [7]struct{ x, y, dx, dy int }{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}} {
		w := (h.width - a.x + a.dx - 1) / a.dx
		ht := (h.height - a.y + a.dy - 1) / a.dy
		if w > 0 && ht > 0 {
			out = append(out, pass{w, ht})
		}
	}
	return out
}

// idatReader reads the data of consecutive IDAT chunks as one stream,
// checking each chunk's CRC. At the end of the last one, it has read the
// next chunk's length and type and returns io.EOF.
type idatReader struct {
	c   *pngChecker
	eof bool
	err error // why the chunks are not readable, as the image's error
}

func (r *idatReader) Read(p []byte) (int, error) {
	c := r.c
	for c.left == 0 {
		if r.eof || r.err != nil {
			return 0, io.EOF
		}
		if r.err = c.done(); r.err != nil {
			return 0, io.EOF
		}
		if r.err = c.next(); r.err != nil {
			return 0, io.EOF
		}
		if c.typ != "IDAT" {
			r.eof = true
			return 0, io.EOF
		}
	}
	n := min(len(p), int(min(c.left, 1<<30)))
	n, err := c.r.Read(p[:n])
	c.crc.Write(p[:n])
	c.left -= uint32(n)
	if err != nil && n == 0 {
		r.err = errors.New("the image ends inside IDAT")
		return 0, io.EOF
	}
	return n, nil
}
