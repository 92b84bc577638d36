package bracketed

import "testing"

func BenchmarkModeTrackerColored32K(b *testing.B) {
	var t ModeTracker
	b.SetBytes(int64(len(coloredOutput)))
	b.ReportAllocs()
	for b.Loop() {
		t.Write(coloredOutput)
	}
}

func BenchmarkModeTrackerText32K(b *testing.B) {
	var t ModeTracker
	text := repeatTo("plain output without escapes\r\n", 32<<10)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		t.Write(text)
	}
}

// BenchmarkModeTrackerThenFilterColored32K is the output path of pbwrap:
// the tracker, then the mode filter.
func BenchmarkModeTrackerThenFilterColored32K(b *testing.B) {
	var t ModeTracker
	var f ModeFilter
	b.SetBytes(int64(len(coloredOutput)))
	b.ReportAllocs()
	for b.Loop() {
		f.Write(t.Write(coloredOutput))
	}
}
