package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// resetTerminalCommand undoes at the terminal what a program left on when
// it could not clean up: one that ran without pbwrap, or a pbwrap killed
// with SIGKILL. pbwrap does the same for its own child on every way out,
// with the resets of exactly what the child left on.
var resetTerminalCommand = &command{
	name:    "reset-terminal",
	usage:   "reset-terminal",
	summary: "undo the modes a crashed or killed program left on at this terminal",
	help: `Writes to the terminal (standard output when it is one, else /dev/tty) what
turns off the modes a program can leave on when it crashes or is killed: the
alternate screen, mouse reporting, focus and resize reports, the kitty
keyboard protocol on both screens (the reason Ctrl-C can print 9;5u), kitty's
clipboard mode, modifyOtherKeys and other key encodings, application cursor
keys and keypad, insert and newline modes, a hidden or blinking cursor, a
cursor style, origin mode, no autowrap, a synchronized update, bracketed
paste; and scroll margins, text attributes and character sets back to
normal. Nothing else is cleared. pbwrap does this itself whenever the program it wraps ends or is
suspended; this is for when it could not. If typing still misbehaves, run
stty sane too.`,
	run:     runResetTerminal,
	lenient: true,
}

func runResetTerminal(c *command, std *streams, cfg *config, args []string) error {
	if err := c.parse(cfg, c.flags(cfg), args, 0); err != nil {
		return err
	}
	w, closeTerminal, err := controllingTerminal()
	if err != nil {
		return fmt.Errorf("reset-terminal: %w", err)
	}
	defer closeTerminal()
	if _, err := w.Write(fullReset()); err != nil {
		return fmt.Errorf("reset-terminal: %w", err)
	}
	return nil
}

// fullReset is what reset-terminal writes: the reset of every mode pbwrap
// follows in its child's output, plain text and bracketed paste off among
// them.
func fullReset() []byte { return termproto.AppendFullReset(nil) }

// controllingTerminal returns the terminal to write to: standard output
// when it is a terminal, else the process's controlling terminal, with
// what closes it.
func controllingTerminal() (io.Writer, func(), error) {
	if term.IsTerminal(int(os.Stdout.Fd())) {
		return os.Stdout, func() {}, nil
	}
	f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("no terminal: standard output is not one, and %w", err)
	}
	return f, func() { _ = f.Close() }, nil // Best effort.
}
