package main

import (
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/pbwrap/pbwrap/internal/printable"
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
	d := string(diff.Diff(printable.Quote(from), old, printable.Quote(name), updated))
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
	// Tabs stay, for the file's indentation; printable.Inline would show
	// them as \t.
	parts := strings.Split(line, "\t")
	for i, p := range parts {
		parts[i] = printable.Inline(p)
	}
	return strings.Join(parts, "\t")
}
