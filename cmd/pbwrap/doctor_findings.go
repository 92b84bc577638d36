package main

import (
	"fmt"
	"io"
	"strings"
)

// A finding is one thing a check of pbwrap doctor found: a line of the
// report, and, when what it found stops pbwrap doing its job, the problem
// and its fix, which the report lists again at its end. The checks return
// findings and print nothing; report prints them.
type finding struct {
	depth   int    // how deep the line sits: 0 starts a section, each level indents by two
	status  status // how the line is marked
	line    string // what was found, one line, safe to print; "" for a problem with no line of its own
	problem string // what stops pbwrap doing its job, one line; "" when nothing does
	fix     string // what to do about problem
}

// A status is how a line of the report is marked. It says what a check
// concluded; a line with a problem may be a fact (the terminal does not
// support bracketed paste), a line marked failed may have its problem
// said by another (the disk is full, so the test paste failed).
type status uint8

const (
	fact    status = iota // no mark: a fact, not a check
	passed                // "ok": the check passed
	failed                // "FAIL": the check failed
	skipped               // "--": not tried
	unknown               // "?": could not be checked
)

// marks are the statuses' marks, as wide as the widest.
var marks = [...]string{passed: "ok  ", failed: "FAIL", skipped: "--  ", unknown: "?   "}

// findings are what checks return, with helpers to add to them.
type findings []finding

// fact adds an unmarked line.
func (r *findings) fact(depth int, format string, args ...any) {
	*r = append(*r, finding{depth: depth, line: fmt.Sprintf(format, args...)})
}

// mark adds a line marked s.
func (r *findings) mark(depth int, s status, line string) {
	*r = append(*r, finding{depth: depth, status: s, line: line})
}

// ok adds a line of a check that passed.
func (r *findings) ok(depth int, line string) { r.mark(depth, passed, line) }

// fail adds a line of a check that failed, with its problem and fix.
func (r *findings) fail(depth int, line, problem, fix string) {
	*r = append(*r, finding{depth: depth, status: failed, line: line, problem: problem, fix: fix})
}

// problem adds a problem that has no line of its own.
func (r *findings) problem(what, fix string) {
	*r = append(*r, finding{status: failed, problem: what, fix: fix})
}

// problems counts the findings with a problem.
func (r findings) problems() int {
	n := 0
	for _, f := range r {
		if f.problem != "" {
			n++
		}
	}
	return n
}

// report prints found to w: each line, a blank line before each section
// but the first; then that all is well, or each problem with its fix,
// ending with exit status 1.
func report(w io.Writer, found findings) error {
	var b strings.Builder
	for i, f := range found {
		if f.line == "" {
			continue
		}
		if f.depth == 0 && i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(strings.Repeat("  ", f.depth))
		if f.status != fact {
			b.WriteString(marks[f.status] + "  ")
		}
		b.WriteString(f.line + "\n")
	}
	n := found.problems()
	if n == 0 {
		b.WriteString("\nall is well\n")
		_, _ = io.WriteString(w, b.String()) // Best effort, as every report's.
		return nil
	}
	fmt.Fprintf(&b, "\n%d problem(s):\n", n)
	for _, f := range found {
		if f.problem != "" {
			fmt.Fprintf(&b, "  - %s\n    fix: %s\n", f.problem, f.fix)
		}
	}
	_, _ = io.WriteString(w, b.String()) // The exit status says it already.
	return quietExit(1)
}
