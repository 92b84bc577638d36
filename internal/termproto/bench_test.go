package termproto

import (
	"bytes"
	"strings"
	"testing"
)

// repeatTo repeats s up to n bytes.
func repeatTo(s string, n int) []byte {
	return []byte(strings.Repeat(s, n/len(s)+1)[:n])
}

func BenchmarkParserTypedKey(b *testing.B) {
	p := NewParser(nopSink{})
	key := []byte("a")
	b.ReportAllocs()
	for b.Loop() {
		p.Write(key, epoch)
	}
}

func BenchmarkParserPaste64K(b *testing.B) {
	p := NewParser(nopSink{})
	p.Write([]byte(StartMarker), epoch)
	chunk := repeatTo("func main() {\r\tfmt.Println(\"hello, world\")\r}\r", 64<<10)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		p.Write(chunk, epoch)
	}
}

// BenchmarkRepliesPaste64K: a paste's text read while the terminal's
// answers may still come (in a terminal that answers nothing, the whole
// session).
func BenchmarkRepliesPaste64K(b *testing.B) {
	var r Replies
	r.Ask()
	chunk := repeatTo("func main() {\r\tfmt.Println(\"hello, world\")\r}\r", 64<<10)
	dst := make([]byte, 0, len(chunk))
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = r.Write(dst[:0], chunk, epoch)
	}
}

// coloredOutput is 32 KiB of what an agent's TUI typically writes: colored
// text, cursor moves, cursor hiding and showing.
var coloredOutput = func() []byte {
	line := "\x1b[?25l\x1b[2K\x1b[1G\x1b[38;5;246m│\x1b[39m \x1b[1mRead\x1b[22m(\x1b[36msrc/main.go\x1b[39m) \x1b[2m⎿ 120 lines\x1b[22m\r\n\x1b[?25h"
	return repeatTo(line, 32<<10)
}()

func BenchmarkOutputFilterColored32K(b *testing.B) {
	var f OutputFilter
	b.SetBytes(int64(len(coloredOutput)))
	b.ReportAllocs()
	for b.Loop() {
		f.Write(coloredOutput)
	}
}

func BenchmarkOutputFilterText32K(b *testing.B) {
	var f OutputFilter
	text := repeatTo("plain output without escapes\r\n", 32<<10)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		f.Write(text)
	}
}

func BenchmarkOutputFilterWithModes32K(b *testing.B) {
	var f OutputFilter
	out := append(bytes.Clone(coloredOutput[:16<<10]), "\x1b[?1049;2004h"...)
	out = append(out, coloredOutput[:16<<10-13]...)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		f.Write(out)
	}
}
