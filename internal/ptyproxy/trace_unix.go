//go:build pbwrap_trace && (darwin || freebsd || linux)

package ptyproxy

import (
	"os"
	"runtime/trace"
	"strconv"
	"strings"
)

// With the build tag pbwrap_trace, PBWRAP_TRACE=FILE writes an execution
// trace (runtime/trace) of each Run to FILE (%p in it: the process id), for go tool trace: how the
// goroutines, system calls and threads of the keystroke and output paths
// spend their time (doc/performance.md). Without the tag nothing of this
// is built.
func init() {
	path := os.Getenv("PBWRAP_TRACE")
	if path == "" {
		return
	}
	startTrace = func() func() {
		f, err := os.Create(strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid())))
		if err != nil {
			return func() {}
		}
		if err := trace.Start(f); err != nil {
			_ = f.Close() // Best effort.
			return func() {}
		}
		return func() {
			trace.Stop()
			_ = f.Close() // Best effort.
		}
	}
}
