//go:build !darwin && !freebsd && !linux

package main

import (
	"fmt"
	"os"
	"runtime"
)

// main says that there is nothing to measure here: the driver plays a
// terminal on a PTY, which it has on Linux, macOS and FreeBSD only.
func main() {
	fmt.Fprintf(os.Stderr, "benchdriver: not on %s: it needs a Unix PTY (Linux, macOS, FreeBSD)\n", runtime.GOOS)
	os.Exit(1)
}
