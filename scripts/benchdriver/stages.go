//go:build darwin || freebsd || linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// stageNames are the durations of a lane's step, as pbwrap built with
// the tag pbwrap_stages writes them (ptyproxy/stages_on.go).
var stageNames = [5]string{"wake→read", "read", "read→write", "write", "write→end"}

// measureStages types keys keystrokes, keyInterval apart, into pbwrap,
// which must be built with -tags pbwrap_stages, and reports the time its
// lane spent in each stage of a step, per direction: the user-space time
// from the wake-up to the write (wake→read and read→write: the lane, the
// pump and its filter) is pbwrap's own share of a keystroke's latency;
// the read and the write are the kernel's.
func measureStages(self, pbwrap string, keys int) error {
	dir, err := os.MkdirTemp("", "pbwrap-stages-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "stages")
	r, err := start([]string{pbwrap, "--", self, "child-echo"}, "PBWRAP_STAGES="+path)
	if err != nil {
		return err
	}
	if err := r.waitFor([]byte("READY"), 10*time.Second); err != nil {
		r.stop()
		return err
	}
	buf := make([]byte, 64)
	for k := range keys {
		time.Sleep(keyInterval)
		key := []byte{'a' + byte(k%26)}
		if _, err := r.master.Write(key); err != nil {
			r.stop()
			return fmt.Errorf("type: %w", err)
		}
		_ = r.master.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := r.master.Read(buf); err != nil {
			r.stop()
			return fmt.Errorf("echo: %w", err)
		}
	}
	r.stop() // pbwrap ends its Run, which writes the stages.
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w (is %s built with -tags pbwrap_stages?)", err, pbwrap)
	}
	defer f.Close()
	rows, err := parseStages(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Printf("pbwrap's lane, per step: %d keystrokes %v apart; median (p90) in µs\n\n", keys, keyInterval)
	reportStages(os.Stdout, rows)
	return nil
}

// parseStages reads the lines pbwrap wrote: the direction, then the five
// durations in nanoseconds.
func parseStages(f io.Reader) (rows [2][5][]time.Duration, err error) {
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 6 {
			return rows, fmt.Errorf("line %d: %d fields, want 6", line, len(fields))
		}
		var v [6]int64
		for i, s := range fields {
			if v[i], err = strconv.ParseInt(s, 10, 64); err != nil {
				return rows, fmt.Errorf("line %d: %w", line, err)
			}
		}
		if v[0] != 0 && v[0] != 1 {
			return rows, fmt.Errorf("line %d: direction %d", line, v[0])
		}
		for i := range 5 {
			rows[v[0]][i] = append(rows[v[0]][i], time.Duration(v[i+1]))
		}
	}
	return rows, sc.Err()
}

// reportStages prints, per direction, the median and p90 of each stage,
// and of the user-space time before the write.
func reportStages(w io.Writer, rows [2][5][]time.Duration) {
	cell := func(d []time.Duration) string {
		if len(d) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f (%.1f)", micros(quantile(d, 0.5)), micros(quantile(d, 0.9)))
	}
	fmt.Fprintf(w, "%-8s %6s", "", "steps")
	for _, n := range stageNames {
		fmt.Fprintf(w, " %13s", n)
	}
	fmt.Fprintf(w, " %13s\n", "user to write")
	for dir, name := range []string{"input", "output"} {
		st := rows[dir]
		user := make([]time.Duration, len(st[0]))
		for i := range user {
			user[i] = st[0][i] + st[2][i]
		}
		fmt.Fprintf(w, "%-8s %6d", name, len(st[0]))
		for _, d := range st {
			fmt.Fprintf(w, " %13s", cell(d))
		}
		fmt.Fprintf(w, " %13s\n", cell(user))
	}
}

// micros is d in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
