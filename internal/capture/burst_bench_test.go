package capture

import (
	"io"
	"testing"
	"time"
)

// benchmarkKey times the input filter on one typed key at a time, a
// millisecond apart, looking for unmarked pastes (BurstOn) or not
// (BurstOff; BurstAuto before the terminal has answered): the cost of the
// burst detector on the keystroke path.
func benchmarkKey(b *testing.B, mode BurstMode) {
	in := NewInput(Config{MinBytes: DefaultMinBytes, MinLines: DefaultMinLines, Burst: mode})
	key := []byte("a")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Millisecond)
		if d, _ := in.Filter(io.Discard, key, now); !d.IsZero() {
			b.Fatal("a typed key asked for a deadline")
		}
	}
}

func BenchmarkInputKeyBurstOff(b *testing.B)  { benchmarkKey(b, BurstOff) }
func BenchmarkInputKeyBurstAuto(b *testing.B) { benchmarkKey(b, BurstAuto) }
func BenchmarkInputKeyBurstOn(b *testing.B)   { benchmarkKey(b, BurstOn) }

// BenchmarkInputKeyAnswered times a typed key after the terminal has
// answered Ask, as most sessions run: with BurstAuto, a terminal that
// marks its pastes (the burst detector off) or does not (on).
func BenchmarkInputKeyAnswered(b *testing.B) {
	for _, tt := range []struct{ name, answer string }{
		{"Marks", "\x1b[?2004;1$y\x1b[?62c"},
		{"NoMarks", "\x1b[?2004;2$y\x1b[?62c"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			in := NewInput(Config{MinBytes: DefaultMinBytes, MinLines: DefaultMinLines, Burst: BurstAuto})
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			in.Ask(now)
			if _, err := in.Filter(io.Discard, []byte(tt.answer), now); err != nil || in.Pending() {
				b.Fatalf("the answer: %v, pending %v", err, in.Pending())
			}
			key := []byte("a")
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(time.Millisecond)
				if d, _ := in.Filter(io.Discard, key, now); !d.IsZero() {
					b.Fatal("a typed key asked for a deadline")
				}
			}
		})
	}
}
