//go:build pbwrap_testhooks

package ptyproxy

import (
	"bytes"
	"os"
)

// Built only into the test binary of pbwrap: PBWRAP_TEST_PANIC=WORD makes
// the output pump panic when the command prints WORD, to show that the
// terminal is restored when pbwrap panics.
func init() {
	word := os.Getenv("PBWRAP_TEST_PANIC")
	if word == "" {
		return
	}
	onOutput = func(p []byte) {
		if bytes.Contains(p, []byte(word)) {
			panic("test panic on " + word)
		}
	}
}
