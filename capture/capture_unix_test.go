//go:build darwin || freebsd || linux

package capture

import (
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
		limit.Cur = 64 << 10
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &limit); err != nil {
			t.Fatal(err)
		}
		body := strings.Repeat("0123456789abcdef\r", 12000) // About 200 KB.
		r.feed("<"+start+body+end+">", 4096)
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
		signal.Reset(syscall.SIGXFSZ)
		want := "<" + body + ">"
		if mode {
			want = "<" + start + body + end + ">"
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

func diffAt(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
