package kittyclip

import (
	"bytes"
	"testing"
)

// The cost of the scanner on what most input is: a paste (text, a few
// escapes), and keys.
func BenchmarkScannerPaste(b *testing.B) {
	chunk := bytes.Repeat([]byte("some pasted text, \x1b[1mbold\x1b[m, and more of it\r"), 32<<10/48)
	s := NewScanner(discard{})
	s.Write([]byte(startMarker), epoch)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		s.Write(chunk, epoch)
	}
}

func BenchmarkScannerKey(b *testing.B) {
	s := NewScanner(discard{})
	key := []byte("a")
	for b.Loop() {
		s.Write(key, epoch)
	}
}
