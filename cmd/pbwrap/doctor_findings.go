package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pbwrap/pbwrap/internal/printable"
)

// A finding is one thing a check of pbwrap doctor found: a line of the
// report, and, when what it found stops pbwrap doing its job, the problem
// and its fix, which the report lists again at its end. The checks return
// findings and print nothing; report prints them, and reportJSON writes
// them as JSON (doctor --json).
type finding struct {
	check   string // the check that found it, as doctor --json names it: root, terminal, config, agents, paste
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

// statusNames are the statuses as doctor --json names them.
var statusNames = [...]string{fact: "info", passed: "ok", failed: "fail", skipped: "skipped", unknown: "unknown"}

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

// of sets the check of each finding that has none yet to check, and
// returns them.
func (r findings) of(check string) findings {
	for i := range r {
		if r[i].check == "" {
			r[i].check = check
		}
	}
	return r
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

// doctorFormat is the version of doctor --json's schema.
const doctorFormat = 1

// jsonFinding is a finding as doctor --json writes it (see doctor's help).
type jsonFinding struct {
	Check   string `json:"check"`
	Depth   int    `json:"depth"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// reportJSON writes found to w as one JSON document, the same findings,
// in the same order, as report prints, with every character that is not
// printable escaped (see printable.JSON); with report's exit status.
func reportJSON(w io.Writer, found findings) error {
	out := make([]jsonFinding, 0, len(found))
	for _, f := range found {
		out = append(out, jsonFinding{Check: f.check, Depth: f.depth, Status: statusNames[f.status],
			Message: f.line, Problem: f.problem, Fix: f.fix})
	}
	n := found.problems()
	data, err := json.MarshalIndent(struct {
		Format   int           `json:"format"`
		OK       bool          `json:"ok"`
		Problems int           `json:"problems"`
		Findings []jsonFinding `json:"findings"`
	}{doctorFormat, n == 0, n, out}, "", "  ")
	if err != nil {
		return fmt.Errorf("doctor --json: %w", err)
	}
	_, _ = w.Write(append(printable.JSON(data), '\n')) // Best effort, as report's.
	if n > 0 {
		return quietExit(1)
	}
	return nil
}
