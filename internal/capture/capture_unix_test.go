//go:build darwin || freebsd || linux

package capture

import (
	"flag"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A write that fails in the middle of a large paste (the file-size limit,
// RLIMIT_FSIZE with SIGXFSZ ignored, which every Unix has and needs no
// root, stands in for a full disk) still delivers the whole paste, exactly as
// the terminal sent it: the saved part is replayed, then the rest.
func TestWriteFailureMidPasteReplaysExactly(t *testing.T) {
	for _, mode := range []bool{false, true} {
		r := newRig(t, Config{})
		r.mode = mode
		if _, err := r.open(); err != nil { // The manifest is written before the limit.
			t.Fatal(err)
		}
		signal.Ignore(syscall.SIGXFSZ)
		var old unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
		limit := old
		// Rlimit.Cur is uint64 on Linux and macOS and int64 on FreeBSD:
		// count up to the limit in steps an untyped constant can take.
		maxSize := fileSizeLimit()
		for limit.Cur = 0; uint64(limit.Cur) < maxSize; limit.Cur += 64 << 10 {
		}
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &limit); err != nil {
			t.Fatal(err)
		}
		body := strings.Repeat("0123456789abcdef\r", int(limit.Cur)*3/17) // Three times the limit.
		r.feed("<"+start+body+end+">", 4096)
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
		signal.Reset(syscall.SIGXFSZ)
		r.pause(NoteGap)
		note := UnsavedNote("file too large")
		want := "<" + body + ">" + note // The note waits for a pause; the key does not.
		if mode {
			want = "<" + start + body + end + start + note + end + ">"
		}
		if got := r.child.String(); got != want {
			t.Errorf("mode %v: child got %d bytes, want the %d pasted (first difference at %d)", mode, len(got), len(want), diffAt(got, want))
		}
		m := r.manifest()
		if len(m.Pastes) != 1 || m.Pastes[0].Outcome != "fallback" || m.Pastes[0].Reason == "" {
			t.Errorf("manifest: %+v", m.Pastes)
		}
	}
}

// fileSizeLimit is the file-size limit for the test: 64 KiB, or, when
// go test keeps a log of the files the test opens (to cache its result),
// that log's size and a MiB more, so that the log can still be written.
func fileSizeLimit() uint64 {
	limit := uint64(64 << 10)
	if f := flag.Lookup("test.testlogfile"); f != nil && f.Value.String() != "" {
		if fi, err := os.Stat(f.Value.String()); err == nil {
			limit = max(limit, uint64(fi.Size())+1<<20)
		}
	}
	return limit
}

func diffAt(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
