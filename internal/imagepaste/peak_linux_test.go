package imagepaste

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
)

// peakEnv names the image a re-run test binary checks or converts, to
// report its peak memory (see TestPeakMemoryAtTheLimit).
const peakEnv = "PBWRAP_IMAGEPASTE_PEAK"

func TestMain(m *testing.M) {
	if path := os.Getenv(peakEnv); path != "" {
		os.Exit(peakChild(path))
	}
	os.Exit(m.Run())
}

// peakChild checks or converts the image at path, as pbwrap does off the
// input path, and prints its VmHWM.
func peakChild(path string) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fi, err := f.Stat()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	head := make([]byte, SniffLen)
	if _, err := f.ReadAt(head, 0); err != nil {
		fmt.Println(err)
		return 1
	}
	format, _ := Sniff(head)
	defer HoldGC()() // As pbwrap checks one.
	switch {
	case format.Convert:
		err = Convert(io.Discard, f, fi.Size())
	case format.Ext == "png":
		err = CheckPNG(bufio.NewReader(f))
	default:
		err = Check(f, fi.Size(), format)
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Println(line)
		}
	}
	return 0
}

// The largest image of each kind that pbwrap takes, checked or converted
// in a process of its own: its peak resident memory (VmHWM) stays within
// MaxDecoded and what the Go runtime and the decoder's buffers add. The
// images are made here, in this process, and written to files: the child
// reads the file, as pbwrap reads its temp file. A BMP is bounded by the
// 32 MiB a saved image may have on the wire (DefaultMaxBytes) before
// MaxDecoded. Not with -short (it makes 130 MB images), nor with the race
// detector (whose shadow memory it would measure).
func TestPeakMemoryAtTheLimit(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("makes images of 130 MB; measures memory, which the race detector multiplies")
	}
	dir := t.TempDir()
	gradient := func(w, h int) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			row := img.Pix[y*img.Stride:]
			for x := range w {
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = byte(x), byte(y), byte(x+y), 255
			}
		}
		return img
	}
	gray := func(w, h int) *image.Gray {
		img := image.NewGray(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = byte(i % 251)
		}
		return img
	}
	for _, tt := range []struct {
		name  string
		bytes int64 // what MaxDecoded counts for it
		make  func(io.Writer) error
	}{
		{"png 5790x5790 RGBA", 5790 * 5790 * 4, func(w io.Writer) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, gradient(5790, 5790))
		}},
		{"tiff 5760x5760 RGBA, strips of 16 rows", 5760*5760*4 + 3*16*5760*4, func(w io.Writer) error {
			return writeStripTIFF(w, gradient(5760, 5760), 16)
		}},
		{"tiff 2890x2890 RGBA, one strip", 2890 * 2890 * 16, func(w io.Writer) error {
			return writeStripTIFF(w, gradient(2890, 2890), 2890)
		}},
		{"jpeg 11576x11576 grey", 11576 * 11576, func(w io.Writer) error {
			return jpeg.Encode(w, gray(11576, 11576), &jpeg.Options{Quality: 50})
		}},
		{"gif 11584x11584", 11584 * 11584, func(w io.Writer) error {
			img := image.NewPaletted(image.Rect(0, 0, 11584, 11584), color.Palette{color.Black, color.White})
			return gif.Encode(w, img, nil)
		}},
		{"webp 4096x4096 lossless", 4096 * 4096 * 8, func(w io.Writer) error {
			_, err := w.Write(riff(chunk("VP8L", vp8l(4096, 4096, 0xff336699))))
			return err
		}},
		{"bmp 3264x3264 (32 MiB on the wire)", 3264 * 3264 * 4, func(w io.Writer) error {
			return bmp.Encode(w, gradient(3264, 3264))
		}},
	} {
		if tt.bytes > MaxDecoded {
			t.Fatalf("%s: %d bytes, over MaxDecoded", tt.name, tt.bytes)
		}
		path := filepath.Join(dir, strings.Fields(tt.name)[0])
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		if err := tt.make(bw); err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		size, _ := f.Seek(0, io.SeekCurrent)
		f.Close()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), peakEnv+"="+path)
		out, err := cmd.CombinedOutput()
		kb, perr := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(string(out), "VmHWM:")), "kB")))
		if err != nil || perr != nil {
			t.Fatalf("%s: %v: %s", tt.name, err, out)
		}
		t.Logf("%-38s %9d bytes on the wire, %4d MiB decoded as counted: peak %4d MiB (MaxDecoded %d MiB)", tt.name, size, tt.bytes>>20, kb>>10, MaxDecoded>>20)
		if limit := int64(MaxDecoded + 32<<20); int64(kb)<<10 > limit {
			t.Errorf("%s: peak %d MiB, more than MaxDecoded and 32 MiB", tt.name, kb>>10)
		}
		os.Remove(path)
	}
}

// writeStripTIFF writes img as a TIFF of deflated strips of rows rows
// each, as libtiff writes them; golang.org/x/image/tiff writes one strip.
func writeStripTIFF(w io.Writer, img *image.RGBA, rows int) error {
	b := img.Bounds()
	var strips [][]byte
	for y := 0; y < b.Dy(); y += rows {
		var s bytes.Buffer
		z := zlib.NewWriter(&s)
		z.Write(img.Pix[y*img.Stride : min(y+rows, b.Dy())*img.Stride])
		z.Close()
		strips = append(strips, s.Bytes())
	}
	le := binary.LittleEndian
	type entry struct {
		tag, typ     uint16
		count, value uint32
	}
	n := uint32(len(strips))
	entries := []entry{
		{256, 4, 1, uint32(b.Dx())}, {257, 4, 1, uint32(b.Dy())}, {258, 3, 4, 0}, {259, 3, 1, 8}, {262, 3, 1, 2},
		{273, 4, n, 0}, {277, 3, 1, 4}, {278, 4, 1, uint32(rows)}, {279, 4, n, 0}, {338, 3, 1, 1},
	}
	at := uint32(8 + 2 + 12*len(entries) + 4)
	bitsAt, offsetsAt, countsAt := at, at+8, at+8+4*n
	data := countsAt + 4*n
	if n == 1 {
		data = at + 8
	}
	var hdr bytes.Buffer
	hdr.WriteString("II*\x00")
	binary.Write(&hdr, le, uint32(8))
	binary.Write(&hdr, le, uint16(len(entries)))
	for _, e := range entries {
		switch {
		case e.tag == 258:
			e.value = bitsAt
		case e.tag == 273 && n == 1:
			e.value = data // One value: in the entry.
		case e.tag == 273:
			e.value = offsetsAt
		case e.tag == 279 && n == 1:
			e.value = uint32(len(strips[0]))
		case e.tag == 279:
			e.value = countsAt
		}
		binary.Write(&hdr, le, e)
	}
	binary.Write(&hdr, le, uint32(0))
	binary.Write(&hdr, le, [4]uint16{8, 8, 8, 8})
	if n > 1 {
		off := data
		for _, s := range strips {
			binary.Write(&hdr, le, off)
			off += uint32(len(s))
		}
		for _, s := range strips {
			binary.Write(&hdr, le, uint32(len(s)))
		}
	}
	if _, err := w.Write(hdr.Bytes()); err != nil {
		return err
	}
	for _, s := range strips {
		if _, err := w.Write(s); err != nil {
			return err
		}
	}
	return nil
}
