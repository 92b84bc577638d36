package main

import (
	"errors"
	"flag"
	"strings"

	"github.com/pbwrap/pbwrap/internal/ptyproxy"
)

// suggestNotFound adds a hint to the error of a command that is not
// found (127) when its name is a likely typo for one of pbwrap's own
// commands: "pbwrap lsit" says "did you mean pbwrap list?". A command that
// is found runs, whatever its name (pbwrap is a wrapper: pbwrap stat runs
// stat(1)); so does any other error.
func suggestNotFound(name string, err error) error {
	var execErr *ptyproxy.ExecError
	if !errors.As(err, &execErr) || execErr.Code != 127 || strings.Contains(name, "/") {
		return err
	}
	hint := suggestCommand(name)
	if hint == "" {
		return err
	}
	// A new ExecError keeps the exit status and the one-line message
	// (exitCode prints the ExecError itself); its reason is the hint.
	return &ptyproxy.ExecError{Name: name, Code: 127, Err: notFoundHint(hint)}
}

// notFoundHint is the reason of a command not found that looks like a
// typo for pbwrap's command of that name.
type notFoundHint string

func (h notFoundHint) Error() string {
	return "command not found (did you mean pbwrap " + string(h) + "?)"
}

// suggestCommand returns the name of pbwrap's own command that name is
// most likely a typo for, or "" when none is close (closest). An exact
// name is no typo (it was written after --, on purpose).
func suggestCommand(name string) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return closest(name, names)
}

// closest returns the one of names that name is most likely a typo for,
// or "" when none is close: at most one edit (a letter added, removed,
// changed, or two swapped) for a name of up to 4 letters, at most two for
// a longer one. name itself is not a typo of itself.
func closest(name string, names []string) string {
	limit := 1
	if len(name) > 4 {
		limit = 2
	}
	best, bestDist := "", limit+1
	for _, n := range names {
		if d := editDistance(name, n); d > 0 && d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// flagError is the message for err, fs's parse error for args: for a flag
// fs does not define, "unknown flag" with the flag as the user wrote it
// ("--olderthan", not the flag package's "-olderthan"), and the flag of
// fs it is most likely a typo for.
func flagError(fs *flag.FlagSet, args []string, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err.Error()
	}
	spelled := "--" + name
	for _, a := range args {
		if a == "--" {
			break
		}
		if written, _, _ := strings.Cut(a, "="); strings.TrimLeft(written, "-") == name && strings.HasPrefix(written, "-") {
			spelled = written
			break
		}
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) > 1 { // -y and -v are short forms of a long one.
			names = append(names, f.Name)
		}
	})
	if hint := closest(name, names); hint != "" {
		return "unknown flag " + spelled + " (did you mean --" + hint + "?)"
	}
	return "unknown flag " + spelled
}

// editDistance is the optimal string alignment distance between a and b,
// byte by byte: the fewest insertions, deletions, substitutions and swaps
// of two adjacent bytes that turn a into b, no substring edited twice.
func editDistance(a, b string) int {
	// Three rows of the dynamic programming table: i-2, i-1 and i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
