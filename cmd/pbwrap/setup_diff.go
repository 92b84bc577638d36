package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"
)

// unifiedDiff returns the change from old to updated, texts of the file
// name, as go-internal/diff writes it (a "diff" line, then "diff -u"'s
// format): lines that only the old text has start with "-", lines only
// the new one has with "+". A nil old is a file that does not exist yet.
// Every line is made safe to show on a terminal (displayLine). Equal
// texts give "".
func unifiedDiff(name string, old, updated []byte) string {
	from := name
	if old == nil {
		from = "/dev/null"
	}
	d := string(diff.Diff(printable(from), old, printable(name), updated))
	lines := strings.SplitAfter(d, "\n")
	for i, l := range lines {
		if line, ok := strings.CutSuffix(l, "\n"); ok {
			lines[i] = displayLine(line) + "\n"
		}
	}
	return strings.Join(lines, "")
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
