//go:build darwin || freebsd || linux

package ptyio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// How the answers are waited for. Not with Go's read deadlines: on macOS
// /dev/tty cannot be registered with kqueue, so Go gives it none. Nor with
// poll(2), which does not support devices on macOS (its man page, BUGS).
// select(2) would work on all three systems, but its fd_set stops at
// FD_SETSIZE, Go's own signals interrupt it without restart (a retry loop
// with the timeout recomputed), and the read after it needs a way not to
// block anyway. So with the terminal's own read timeout: in non-canonical
// mode with VMIN 0 and VTIME t, a read on a blocking descriptor returns
// what has arrived, or nothing after t tenths of a second (POSIX,
// "Non-Canonical Mode Input Processing"). The line discipline does it, the
// same on Linux, macOS and FreeBSD, whatever the descriptor's pollability,
// and the termios are being changed for raw mode anyway. VTIME times one
// read, not the wait: the caller checks the clock between reads.

// readTick is VTIME, the longest one read waits for a byte, in tenths of
// a second: the smallest wait (0 would make the reads spin), so the
// deadline is overshot by at most 100 ms.
const readTick = 1

// QuestionMode returns a copy of saved changed for asking the terminal:
// no echo, no line editing, no signal keys, and reads (on a blocking
// descriptor, see OpenTTY) that return what has arrived or, after a tenth
// of a second, nothing: io.EOF from os.File.Read. The rest of the settings
// stay.
func QuestionMode(saved *unix.Termios) *unix.Termios {
	raw := *saved
	raw.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 0, readTick
	return &raw
}

func openTTY(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func controllingTTY() (*os.File, error) {
	tty, err := openTTY("/dev/tty")
	if errors.Is(err, unix.ENXIO) {
		return nil, ErrNotATerminal
	}
	return tty, err
}

// askModes writes termproto.PasteQuestion (after termproto.ClipQuestion
// when q.clip is set) to tty, reads the answers, and returns the DECRQM
// states for modes 2004 and 5522 ("" when none came within q.timeout), as
// QueryTerminal says. tty is used through its descriptor in blocking mode:
// askModes puts it so for good (File.Fd), so a tty in Go's poller loses
// its deadlines.
func (q terminalQuery) askModes(tty *os.File) (state, clip string, err error) {
	_ = tty.Fd() // Blocking from now on: see readReplies.
	saved, err := GetTermios(tty)
	if err != nil {
		return "", "", fmt.Errorf("read terminal settings: %w", err)
	}
	defer func() {
		if rerr := SetTermios(tty, saved); rerr != nil && err == nil {
			err = fmt.Errorf("restore terminal settings: %w", rerr)
		}
	}()
	if err := SetTermios(tty, QuestionMode(saved)); err != nil {
		return "", "", fmt.Errorf("set terminal to raw mode: %w", err)
	}
	question := termproto.PasteQuestion
	if q.clip {
		question = termproto.ClipQuestion + question
	}
	if _, err := tty.WriteString(question); err != nil {
		return "", "", fmt.Errorf("write terminal query: %w", err)
	}
	var r termproto.Replies
	r.Ask()
	if err := readReplies(tty, &r, time.Now().Add(q.timeout)); err != nil {
		return "", "", err
	}
	if m := r.Mode(); m != termproto.ModeUnanswered {
		state = string(m)
	}
	if m := r.Clip(); m != termproto.ModeUnanswered {
		clip = string(m)
	}
	if !r.AnsweredDA1() {
		err = q.discardLate(tty, &r)
	}
	return state, clip, err
}

// readReplies reads tty, which must be in QuestionMode and blocking, a
// byte at a time into r, until r has the DA1 answer or deadline has
// passed.
func readReplies(tty *os.File, r *termproto.Replies, deadline time.Time) error {
	var b [1]byte
	for !r.AnsweredDA1() && time.Now().Before(deadline) {
		n, err := tty.Read(b[:])
		if err == io.EOF {
			continue // VTIME passed without a byte.
		}
		if err != nil {
			return fmt.Errorf("read terminal answer: %w", err)
		}
		r.Take(b[:n])
	}
	return nil
}

// discardLate drains the late answers of a terminal that has not
// answered DA1 by the deadline, for q.grace or until DA1, and if DA1 has
// still not come, discards the terminal's pending input.
func (q terminalQuery) discardLate(tty *os.File, r *termproto.Replies) error {
	if q.late != nil {
		q.late()
	}
	if err := readReplies(tty, r, time.Now().Add(q.grace)); err != nil {
		return err
	}
	if r.AnsweredDA1() {
		return nil
	}
	if err := FlushInput(tty); err != nil {
		return fmt.Errorf("discard terminal input: %w", err)
	}
	return nil
}
