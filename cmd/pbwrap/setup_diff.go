package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// diffContext is how many unchanged lines a diff shows around a change,
// as diff -u does.
const diffContext = 3

// maxDiffCells bounds the table unifiedDiff fills (lines of the old text
// times lines of the new); settings files are far smaller. Past it, the
// diff shows the whole file removed and added.
const maxDiffCells = 4 << 20

// unifiedDiff returns the change from old to updated, texts of the file
// name, as a unified diff ("diff -u"): lines that only the old text has
// start with "-", lines only the new one has with "+". A nil old is a
// file that does not exist yet.
func unifiedDiff(name string, old, updated []byte) string {
	a, b := splitLines(string(old)), splitLines(string(updated))
	var out strings.Builder
	from := name
	if old == nil {
		from = "/dev/null"
	}
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", printable(from), printable(name))
	ops := diffLines(a, b)
	for start := 0; start < len(ops); {
		// A hunk: from diffContext lines before a change to diffContext
		// lines after the last change that is no further than twice that
		// from the one before.
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		last := first
		for i := first; i < len(ops); i++ {
			if ops[i].kind != ' ' {
				if i-last > 2*diffContext {
					break
				}
				last = i
			}
		}
		lo, hi := max(start, first-diffContext), min(len(ops), last+1+diffContext)
		writeHunk(&out, ops[lo:hi])
		start = hi
	}
	return out.String()
}

// A diffOp is one line of a diff: kind ' ' (in both), '-' or '+', and the
// line's number in the old and in the new text (1-based).
type diffOp struct {
	kind     byte
	line     string
	oldN     int
	newN     int
	oldAfter int // for '+': how many old lines come before it
	newAfter int // for '-': how many new lines come before it
}

func writeHunk(out *strings.Builder, ops []diffOp) {
	oldStart, newStart, oldLen, newLen := 0, 0, 0, 0
	for _, op := range ops {
		switch op.kind {
		case ' ':
			oldLen++
			newLen++
		case '-':
			oldLen++
		case '+':
			newLen++
		}
	}
	first := ops[0]
	switch first.kind {
	case ' ':
		oldStart, newStart = first.oldN, first.newN
	case '-':
		oldStart, newStart = first.oldN, first.newAfter+1
	case '+':
		oldStart, newStart = first.oldAfter+1, first.newN
	}
	// As diff -u: a range of no lines names the line before it.
	if oldLen == 0 {
		oldStart--
	}
	if newLen == 0 {
		newStart--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", oldStart, oldLen, newStart, newLen)
	for _, op := range ops {
		fmt.Fprintf(out, "%c%s\n", op.kind, displayLine(op.line))
	}
}

// splitLines splits text into lines, without their newlines.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// diffLines is the shortest edit from a to b, by the longest common
// subsequence of their lines.
func diffLines(a, b []string) []diffOp {
	if len(a)*len(b) > maxDiffCells {
		return replaceAll(a, b)
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{kind: ' ', line: a[i], oldN: i + 1, newN: j + 1})
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, diffOp{kind: '+', line: b[j], newN: j + 1, oldAfter: i})
			j++
		default:
			ops = append(ops, diffOp{kind: '-', line: a[i], oldN: i + 1, newAfter: j})
			i++
		}
	}
	return ops
}

// replaceAll is the edit that removes every line of a and adds every line
// of b.
func replaceAll(a, b []string) []diffOp {
	var ops []diffOp
	for i, l := range a {
		ops = append(ops, diffOp{kind: '-', line: l, oldN: i + 1})
	}
	for j, l := range b {
		ops = append(ops, diffOp{kind: '+', line: l, newN: j + 1, oldAfter: len(a)})
	}
	return ops
}

// displayLine is a line of a settings file as the diff shows it on a
// terminal: a CR that ends it (a CRLF file) is left out, tabs stay, and
// every other character that does not print (an escape sequence an agent
// wrote into the file) is shown escaped, as Go would quote it.
func displayLine(line string) string {
	line = strings.TrimSuffix(line, "\r")
	var b strings.Builder
	for i, r := range line {
		switch {
		case r == '\t' || strconv.IsPrint(r) && !(r == utf8.RuneError && !strings.HasPrefix(line[i:], string(utf8.RuneError))):
			b.WriteRune(r)
		case r == utf8.RuneError:
			fmt.Fprintf(&b, "\\x%02x", line[i])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}
