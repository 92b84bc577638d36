package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pbwrap/pbwrap/pasteref"
)

var expandCommand = &command{
	name:    "expand",
	usage:   "expand [--check] [FILE | -]",
	summary: "expand {{file:/abs/path:START:END}} references, all or nothing",
	help: `Reads FILE, or standard input, and writes it to standard output with every
{{file:/abs/path:START:END}} replaced by lines START to END (1-based, inclusive)
of that file, exactly as they are there, the range's own trailing newline
included. A path may contain ":"; it must be absolute. \{{file: stands for the
literal text {{file:.

Any bad reference (malformed, relative path, missing or unreadable file, not
a regular file, a range outside the file, an output over 64 MiB) aborts the
whole expansion: nothing is written to standard output, the reason goes to
standard error, and the exit status is 1.

Each file is opened once, however many references name it, and read only as
far as they need. One run takes at most 10000 references and reads at most
256 MiB of files, lines skipped on the way included; past either limit it
fails as for a bad reference. So a range over 64 MiB stops reading at 64 MiB,
and a range past the end of a huge file, whose lines must be counted to the
end, stops at 256 MiB, saying how many lines it saw ("at least N lines").
Memory stays bounded by the 64 MiB cap, however large the files or lines.
Symbolic links are followed here (pbwrap hook is stricter).

  --check   validate the references (reading the files) without writing anything`,
	run: runExpand,
}

// expandAction is the Action line of a failed pbwrap expand.
const expandAction = "Nothing was written. Fix the reference and run again; do NOT substitute empty content."

func runExpand(c *command, _ *config, args []string) error {
	fs := c.flags()
	check := fs.Bool("check", false, "")
	if err := c.parse(fs, args, 1); err != nil {
		return err
	}
	if name := fs.Arg(0); (name == "" || name == "-") && stdinIsTerminal() {
		fmt.Fprintln(os.Stderr, readingStdin)
	}
	src, err := readInput(fs.Arg(0))
	if err != nil {
		return err
	}
	var out []byte
	if *check {
		err = pasteref.Check(src)
	} else {
		out, err = pasteref.Expand(src)
	}
	var perr *pasteref.Error
	if errors.As(err, &perr) {
		fmt.Fprint(os.Stderr, perr.Report(expandAction))
		return quietExit(1)
	}
	if err != nil {
		return err
	}
	if *check {
		return nil
	}
	_, err = os.Stdout.Write(out)
	return err
}

// readingStdin tells someone who typed pbwrap expand on a terminal why
// nothing happens: it waits for the text.
const readingStdin = "pbwrap expand: reading standard input; end it with Ctrl-D at the start of a line (or give a FILE)"

// readInput reads a named file, or standard input for "" or "-".
func readInput(name string) ([]byte, error) {
	if name == "" || name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}
