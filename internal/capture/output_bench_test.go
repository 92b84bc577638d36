package capture

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/store"
)

// benchmarkOutput times the output filter as pbwrap wires it (mode
// tracker, then the mode 2004 filter) on chunk, read after read.
func benchmarkOutput(b *testing.B, chunk []byte) {
	o := NewOutput(OutputConfig{})
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Filter(io.Discard, chunk, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOutputKeyEcho is the output filter's cost on the keystroke
// path: the child's echo of one key.
func BenchmarkOutputKeyEcho(b *testing.B) { benchmarkOutput(b, []byte("a")) }

// BenchmarkOutputText32K is plain text, as a build log or cat writes it.
func BenchmarkOutputText32K(b *testing.B) {
	benchmarkOutput(b, []byte(strings.Repeat("0123456789abcdef", 2<<10)))
}

// BenchmarkOutputColored32K is what an agent's TUI writes: colored text,
// cursor moves, the cursor hidden and shown.
func BenchmarkOutputColored32K(b *testing.B) {
	line := "\x1b[?25l\x1b[2K\x1b[1G\x1b[38;5;246m│\x1b[39m \x1b[1mRead\x1b[22m(\x1b[36msrc/main.go\x1b[39m) \x1b[2m⎿ 120 lines\x1b[22m\r\n\x1b[?25h"
	benchmarkOutput(b, bytes.Repeat([]byte(line), 32<<10/len(line)))
}

// BenchmarkInputPaste64K is the input filter on one endless bracketed
// paste, 64 KiB a read, with no store configured: the paste goes inline,
// as when the store fails, so this is the parser and the paste's
// bookkeeping, not the disk.
func BenchmarkInputPaste64K(b *testing.B) {
	in := NewInput(Config{MinBytes: DefaultMinBytes, MinLines: DefaultMinLines, Burst: BurstAuto})
	chunk := bytes.Repeat([]byte("func main() {\r\tfmt.Println(\"hello, world\")\r}\r"), 64<<10/44)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in.Filter(io.Discard, []byte("\x1b[200~"), now)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		in.Filter(io.Discard, chunk, now)
	}
}

// BenchmarkInputPasteSaved is the input filter saving a whole bracketed
// paste of 8 MiB to a store session, read 4 KiB at a time as a terminal's
// line discipline hands it over: the parser, the two temp files, the
// hash, and the commit with its syncs.
func BenchmarkInputPasteSaved(b *testing.B) {
	dir := b.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "pbwrap-bench-"); err == nil {
		dir = shm
		defer os.RemoveAll(shm)
	}
	root, err := store.OpenRoot(filepath.Join(dir, "root"))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var sess *store.Session
	open := func() (*store.Session, error) {
		if sess != nil {
			return sess, nil
		}
		id, err := store.NewSessionID()
		if err != nil {
			return nil, err
		}
		sess, err = root.NewSession(id, store.Meta{PID: 1, Argv0: "agent", Start: now, Version: "bench"})
		return sess, err
	}
	line := bytes.Repeat([]byte("x"), 79)
	body := bytes.Repeat(append(line, '\r'), 8<<20/80)
	paste := append(append([]byte("\x1b[200~"), body...), "\x1b[201~"...)
	b.SetBytes(int64(len(paste)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		in := NewInput(Config{MinBytes: DefaultMinBytes, MinLines: DefaultMinLines, Open: open, RepeatWindow: -1})
		paste[len(paste)-8] = byte('a' + i%26) // Not the same text as the last: no reuse.
		for p := paste; len(p) > 0; {
			n := min(4096, len(p))
			in.Filter(io.Discard, p[:n], now)
			p = p[n:]
		}
	}
}
