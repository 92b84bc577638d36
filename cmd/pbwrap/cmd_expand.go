package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pbwrap/pbwrap/internal/fileref"
	"github.com/pbwrap/pbwrap/internal/printable"
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
whole expansion: nothing is written to standard output, and the exit status
is 1. Standard error lists every bad reference, not only the first, one line
each: FILE:LINE: REFERENCE: REASON (<stdin> for standard input).

Each file is opened once, however many references name it, and read only as
far as they need. One run takes at most 10000 references and reads at most
256 MiB of files, lines skipped on the way included; past either limit it
fails as for a bad reference. So a range over 64 MiB stops reading at 64 MiB,
and a range past the end of a huge file, whose lines must be counted to the
end, stops at 256 MiB, saying how many lines it saw ("at least N lines").
Memory stays bounded by the 64 MiB cap, however large the files or lines.
Symbolic links are followed here (pbwrap hook is stricter).

  --check   validate the references (reading the files) without writing anything;
            the bad ones are listed the same way`,
	run:       runExpand,
	lenient:   true,
	flagDecls: []flagDecl{{name: "check"}},
	files:     true,
}

func runExpand(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 1); err != nil {
		return err
	}
	check := switchOn(fs, "check")
	name := fs.Arg(0)
	if (name == "" || name == "-") && std.inTerminal() {
		fmt.Fprintln(std.err, readingStdin)
	}
	src, err := readInput(std, name)
	if err != nil {
		return err
	}
	var out []byte
	var errs []*fileref.Error
	if check {
		errs = fileref.CheckAll(src)
	} else {
		out, errs = fileref.ExpandAll(src)
	}
	if len(errs) > 0 {
		reportBadRefs(std.err, inputName(name), errs, check)
		return quietExit(1)
	}
	if check {
		return nil
	}
	_, err = std.out.Write(out)
	return err
}

// reportBadRefs tells a person every bad reference, one line each, as
// compilers do (FILE:LINE: REFERENCE: REASON), then that nothing was
// written. The words for a model ("do NOT substitute empty content") are
// the hooks' alone.
func reportBadRefs(w io.Writer, name string, errs []*fileref.Error, check bool) {
	for _, e := range errs {
		if e.Ref == "" {
			fmt.Fprintf(w, "%s: %s\n", printable.Quote(name), printable.Quote(e.Err.Error()))
			continue
		}
		fmt.Fprintf(w, "%s:%d: %s: %s\n", printable.Quote(name), e.Line, printable.Quote(e.Ref), printable.Quote(e.Err.Error()))
	}
	bad := plural(len(errs), "bad reference")
	if check {
		fmt.Fprintf(w, "pbwrap expand: %s\n", bad)
		return
	}
	fmt.Fprintf(w, "pbwrap expand: %s; nothing written\n", bad)
}

// inputName names the input in messages, as compilers do.
func inputName(name string) string {
	if name == "" || name == "-" {
		return "<stdin>"
	}
	return name
}

// readingStdin tells someone who typed pbwrap expand on a terminal why
// nothing happens: it waits for the text.
const readingStdin = "pbwrap expand: reading standard input; end it with Ctrl-D at the start of a line (or give a FILE)"

// readInput reads a named file, or standard input for "" or "-".
func readInput(std *streams, name string) ([]byte, error) {
	if name == "" || name == "-" {
		return io.ReadAll(std.in)
	}
	return os.ReadFile(name)
}
