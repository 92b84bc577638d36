package capture

import (
	"bytes"
	"strings"
	"testing"
)

var normalizeTests = []struct {
	name, in, want string
}{
	{"plain", "abc", "abc"},
	{"LF kept", "a\nb\n", "a\nb\n"},
	{"CR", "a\rb\r", "a\nb\n"},
	{"CRLF", "a\r\nb\r\n", "a\nb\n"},
	{"CR CR", "a\r\rb", "a\n\nb"},
	{"LF CR", "a\n\rb", "a\n\nb"},
	{"CR at end", "a\r", "a\n"},
	{"CSI-u Enter", "a\x1b[13ub", "a\nb"},
	{"CSI-u Enter with modifiers 1", "a\x1b[13;1ub", "a\nb"},
	{"other CSI-u key kept", "a\x1b[9ub\x1b[13;5u", "a\x1b[9ub\x1b[13;5u"},
	{"escape sequences kept", "\x1b[31mred\x1b[0m", "\x1b[31mred\x1b[0m"},
	{"incomplete CSI-u at end kept", "a\x1b[13", "a\x1b[13"},
	{"ESC then CR", "\x1b\rx", "\x1b\nx"},
	{"ESC ESC", "\x1b\x1b[13u", "\x1b\n"},
	{"UTF-8", "héllo\r世界", "héllo\n世界"},
}

// Every case at every chunk size, as the paste arrives in reads of any size.
func TestNormalizer(t *testing.T) {
	for _, tc := range normalizeTests {
		for size := 1; size <= max(1, len(tc.in)); size++ {
			var z normalizer
			var got []byte
			for in := []byte(tc.in); len(in) > 0; {
				n := min(size, len(in))
				got = z.write(got, in[:n])
				in = in[n:]
			}
			got = z.flush(got)
			if string(got) != tc.want {
				t.Errorf("%s, chunks of %d: got %q, want %q", tc.name, size, got, tc.want)
			}
		}
	}
}

func FuzzNormalizerChunking(f *testing.F) {
	for _, tc := range normalizeTests {
		f.Add([]byte(tc.in), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		var whole normalizer
		want := whole.flush(whole.write(nil, in))
		var z normalizer
		var got []byte
		step := int(size%16) + 1
		for rest := in; len(rest) > 0; {
			n := min(step, len(rest))
			got = z.write(got, rest[:n])
			rest = rest[n:]
		}
		got = z.flush(got)
		if !bytes.Equal(got, want) {
			t.Fatalf("chunks of %d: got %q, want %q", step, got, want)
		}
		// Only CR and CSI-u Enter change; without them the text is kept.
		if !bytes.ContainsAny(in, "\r\x1b") && !bytes.Equal(got, in) {
			t.Fatalf("changed text without CR or ESC: %q -> %q", in, got)
		}
	})
}

// BenchmarkNormalize is the line-end normalizer on pasted text: 80-byte
// lines ended by CR, as a terminal sends a paste.
func BenchmarkNormalize(b *testing.B) {
	p := bytes.Repeat([]byte(strings.Repeat("x", 79)+"\r"), 4096/80)
	var z normalizer
	dst := make([]byte, 0, 2*len(p))
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		dst = z.write(dst[:0], p)
	}
}

// indexCROrEsc finds what bytes.IndexAny(p, "\r\x1b") finds.
func FuzzIndexCROrEsc(f *testing.F) {
	for _, s := range []string{"", "abc", "a\rb", "a\x1bb", "\x1b\r", "\r\x1b", "xx\r\x1b\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := indexCROrEsc(p), bytes.IndexAny(p, "\r\x1b"); got != want {
			t.Fatalf("indexCROrEsc(%q) = %d, want %d", p, got, want)
		}
	})
}
