//go:build darwin || freebsd || linux

package ptytest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
)

// The environment variables that make the test binary play a part.
const (
	leaderEnv = "PBWRAP_TEST_LEADER"
	childEnv  = "PBWRAP_TEST_CHILD"
	reportEnv = "PBWRAP_TEST_REPORT"
	inputEnv  = "PBWRAP_TEST_INPUT"
	shellEnv  = "PBWRAP_TEST_SHELL"
)

// Dispatch plays the leader or the recording child, and exits, when the
// environment says the test binary was re-run as one of them; otherwise it
// returns at once. TestMain calls it before anything else.
func Dispatch() {
	switch {
	case os.Getenv(leaderEnv) != "":
		os.Exit(leaderMain(os.Args[1:]))
	case os.Getenv(childEnv) != "":
		os.Exit(childMain(os.Args[1:]))
	}
}

// A reportFile is a file of lines that a helper process appends to, as it
// goes, for the test to read at any time. It is safe for concurrent use.
type reportFile struct {
	mu   sync.Mutex
	name string
}

func (r *reportFile) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, format+"\n", args...)
}

// withoutEnv is env without the variable key.
func withoutEnv(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// Pattern returns n bytes of printable text that changes along its length,
// so that a lost, repeated or reordered block shows in a comparison.
func Pattern(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%08d abcdefghijklmnopqrstuvwxyz\r\n", i)
	}
	return b.Bytes()[:n]
}

// Noise returns n pseudo-random bytes of every value, the same on every
// run.
func Noise(n int) []byte {
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return b
}

// Diff says how got differs from want: their lengths and the offset of
// the first byte that differs. It is "" when they are the same.
func Diff(got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	return fmt.Sprintf("got %d bytes, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Tail is the last n bytes of b, or b.
func Tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Lines returns n numbered lines as a terminal sends them when they are
// pasted or typed, each ended by CR: "PREFIX line 0\rPREFIX line 1\r...".
func Lines(n int, prefix string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s line %d\r", prefix, i)
	}
	return b.String()
}
