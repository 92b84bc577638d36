package termproto

import (
	"testing"
	"time"
)

// BenchmarkBurstTypedKey is the burst detector's cost on the keystroke
// path: one key at a time, a millisecond apart, each typed at once.
func BenchmarkBurstTypedKey(b *testing.B) {
	d := NewBurst(nopSink{}, 8192, 200)
	key := []byte("a")
	now := epoch
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Millisecond)
		if d.Write(key, now); d.Pending() {
			b.Fatal("a typed key is held")
		}
	}
}

// BenchmarkBurstText32K is its cost on a paste from a terminal without
// bracketed paste: 32 KiB reads of text, a paste from the first one on.
func BenchmarkBurstText32K(b *testing.B) {
	d := NewBurst(nopSink{}, 8192, 200)
	chunk := repeatTo("func main() {\r\tfmt.Println(\"hello, world\")\r}\r", 32<<10)
	now := epoch
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Millisecond)
		d.Write(chunk, now)
	}
}
