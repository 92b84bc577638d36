//go:build pbwrap_stages && linux

package ptyproxy

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	_ "unsafe" // For go:linkname.
)

// With the build tag pbwrap_stages, PBWRAP_STAGES=FILE writes to FILE
// (%p in it: the process id), at the end of each Run, how long each step
// of the lane took from its wake-up (doc/performance.md, "Fifth pass"):
// one line per step that read and wrote, with the direction (0: the
// input, 1: the output) and five durations in nanoseconds: wake-up to
// read, the read, read to write (the pump and its filter), the write, and
// write to the end of the step. A step that is not the first of its
// wake-up is left out, its wake-up to read holding the one before. Without
// the tag nothing of this is built: the marks are empty functions, which
// the compiler removes.
func init() {
	path := os.Getenv("PBWRAP_STAGES")
	if path == "" {
		return
	}
	startStages = func() func() {
		stages.mu.Lock()
		stages.on = true
		stages.mu.Unlock()
		return func() { writeStages(strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))) }
	}
}

// nanotime is the runtime's monotonic clock: one clock read, where
// time.Now reads two, so that the marks weigh as little as they can on
// what they time.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// stageMarks are the marks of the lane's step in progress: its wake-up,
// the read's start and end, the first write's start, the last write's
// end. Only the lane's goroutine sets them.
var stageMarks [5]int64

// maxStageRows bounds what a run keeps: the first steps.
const maxStageRows = 1 << 16

var stages struct {
	mu   sync.Mutex
	on   bool
	rows [][6]int64 // the direction, then the five durations
}

func stageWake() { stageMarks[0] = nanotime() }

func stageReadStart() { stageMarks[1] = nanotime() }

func stageReadEnd() { stageMarks[2] = nanotime() }

func stageWriteStart() {
	if stageMarks[3] == 0 {
		stageMarks[3] = nanotime()
	}
}

func stageWriteEnd() { stageMarks[4] = nanotime() }

// stageStep ends the step of direction dir: it keeps its durations if it
// was the first of its wake-up and both read and wrote.
func stageStep(dir int) {
	end := nanotime()
	m := stageMarks
	stageMarks = [5]int64{}
	if m[0] == 0 || m[1] == 0 || m[2] == 0 || m[3] == 0 || m[4] == 0 {
		return
	}
	stages.mu.Lock()
	defer stages.mu.Unlock()
	if stages.on && len(stages.rows) < maxStageRows {
		stages.rows = append(stages.rows, [6]int64{int64(dir), m[1] - m[0], m[2] - m[1], m[3] - m[2], m[4] - m[3], end - m[4]})
	}
}

// writeStages writes the steps kept so far to path, and forgets them.
func writeStages(path string) {
	stages.mu.Lock()
	rows := stages.rows
	stages.rows, stages.on = nil, false
	stages.mu.Unlock()
	f, err := os.Create(path)
	if err != nil {
		return
	}
	w := bufio.NewWriter(f)
	for _, r := range rows {
		fmt.Fprintln(w, r[0], r[1], r[2], r[3], r[4], r[5])
	}
	_ = w.Flush() // Best effort, as the trace's.
	_ = f.Close()
}
