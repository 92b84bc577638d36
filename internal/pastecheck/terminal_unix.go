//go:build darwin || freebsd || linux

package pastecheck

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// pasteReadSize is the size of the check's reads: ptyproxy's, so that a
// paste comes in the same reads as it would to pbwrap.
const pasteReadSize = 32 << 10

// AtTerminal runs the paste check on the controlling terminal: it asks for
// a paste and measures what comes, for at most a minute, and what the
// wrapper would make of it with policy. The terminal is left as it was.
func AtTerminal(policy Policy) (*Sample, error) {
	tty, err := ptyio.ControllingTTY()
	if err != nil {
		return nil, err
	}
	defer tty.Close()
	return pasteCheck{wait: pasteWait, quiet: pasteQuiet}.run(tty, policy)
}

// A pasteCheck asks the user to paste, and measures what the terminal
// sends.
type pasteCheck struct {
	wait  time.Duration // for the paste to begin
	quiet time.Duration // after its last input, when it has no end marker
}

// run asks for a paste on tty and reads it: until its end marker, a
// Ctrl-C first, c.quiet without input after some came, or c.wait without
// any. It is read as doctor's terminal query reads (ptyio.QueryTerminal):
// through tty's descriptor in blocking mode, in ptyio.QuestionMode (reads
// that wait a tenth of a second at most), since Go gives a terminal no
// read deadline on macOS; with no echo and no signal keys, and no input
// translation (CR stays CR), so that the bytes are the terminal's. Bracketed paste is on
// while it reads, as pbwrap turns it on, so that a terminal that supports
// it marks the paste. The terminal's settings are restored, and
// bracketed paste turned off, on every return; input that comes after the
// read that ended the paste is left for the shell.
func (c pasteCheck) run(tty *os.File, policy Policy) (s *Sample, err error) {
	saved, err := ptyio.GetTermios(tty)
	if err != nil {
		return nil, fmt.Errorf("read terminal settings: %w", err)
	}
	defer func() {
		_, werr := tty.WriteString(termproto.PasteOff)
		if rerr := ptyio.SetTermios(tty, saved); rerr != nil && err == nil {
			err = fmt.Errorf("restore terminal settings: %w", rerr)
		}
		if werr != nil && err == nil {
			err = fmt.Errorf("turn bracketed paste off: %w", werr)
		}
	}()
	if err := ptyio.SetTermios(tty, pasteMode(saved)); err != nil {
		return nil, fmt.Errorf("set terminal to raw mode: %w", err)
	}
	if _, err := fmt.Fprintf(tty, termproto.PasteOn+pastePrompt, waitText(c.wait)); err != nil {
		return nil, fmt.Errorf("write the question: %w", err)
	}
	probe := newPasteProbe(policy)
	if err := c.read(tty, probe); err != nil {
		return nil, err
	}
	return probe.finish(), nil
}

// read feeds probe what tty sends, with the time of each read, until the
// paste is over (see run).
func (c pasteCheck) read(tty *os.File, probe *pasteProbe) error {
	buf := make([]byte, pasteReadSize)
	begin := time.Now()
	var last time.Time
	for !probe.done() {
		n, err := tty.Read(buf)
		now := time.Now()
		switch {
		case n > 0:
			probe.feed(buf[:n], now)
			last = now
		case err != nil && err != io.EOF: // EOF: VTIME passed without a byte.
			return fmt.Errorf("read the paste: %w", err)
		case probe.started() && now.Sub(last) >= c.quiet, !probe.started() && now.Sub(begin) >= c.wait:
			return nil
		}
	}
	return nil
}

// pasteMode returns saved changed for the check: ptyio.QuestionMode, and no
// input translation or flow control, as in pbwrap's raw mode.
func pasteMode(saved *unix.Termios) *unix.Termios {
	raw := ptyio.QuestionMode(saved)
	raw.Iflag &^= unix.ICRNL | unix.INLCR | unix.IGNCR | unix.IXON | unix.ISTRIP
	return raw
}
