//go:build darwin || freebsd || linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pbwrap/pbwrap/bracketed"
	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/ptyio"
	"golang.org/x/sys/unix"
)

// freeSpace is the space available to the user on the file system that
// holds path (or its nearest existing parent).
func freeSpace(path string) (uint64, string, error) {
	where := fsutil.NearestExisting(path)
	var st unix.Statfs_t
	if err := unix.Statfs(where, &st); err != nil {
		return 0, where, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), where, nil
}

// How the answers are waited for. Not with Go's read deadlines: on macOS
// /dev/tty cannot be registered with kqueue, so Go gives it none. Nor with
// poll(2), which does not support devices on macOS (its man page, BUGS).
// select(2) would work on all three systems, but its fd_set stops at
// FD_SETSIZE, Go's own signals interrupt it without restart (a retry loop
// with the timeout recomputed), and the read after it needs a way not to
// block anyway. So with the terminal's own read timeout: in
// non-canonical mode with VMIN 0 and VTIME t, a read on a blocking
// descriptor returns what has arrived, or nothing after t tenths of a
// second (POSIX, "Non-Canonical Mode Input Processing"). The line
// discipline does it, the same on Linux, macOS and FreeBSD, whatever the
// descriptor's pollability, and the termios are being changed for raw
// mode anyway. VTIME times one read, not the wait: the caller checks the
// clock between reads.
const (
	// readTick is VTIME, the longest one read waits for a byte, in tenths
	// of a second: the smallest wait (0 would make the reads spin), so the
	// deadline is overshot by at most 100 ms.
	readTick = 1

	// lateGrace is how long, after the deadline, the answers of a terminal
	// that has not answered DA1 are waited for to drain them: answers
	// already on their way (a slow ssh link) come within about a round
	// trip. Only a terminal that has not answered DA1 by the deadline
	// costs this wait, and every terminal answers DA1.
	lateGrace = 200 * time.Millisecond
)

// errNotATerminal says that pbwrap has no controlling terminal to ask.
var errNotATerminal = errors.New("not run from a terminal")

// queryBracketedPaste asks the controlling terminal whether it supports
// bracketed paste, with DECRQM (ESC[?2004$p), and returns the state it
// answers (1 set, 2 reset, 3 permanently set, 0 or 4 not supported), or ""
// when it does not answer within timeout. See terminalQuery.ask for what
// happens to the terminal's settings and input.
func queryBracketedPaste(timeout time.Duration) (string, error) {
	tty, err := openTTY("/dev/tty")
	if errors.Is(err, unix.ENXIO) {
		return "", errNotATerminal
	}
	if err != nil {
		return "", err
	}
	defer tty.Close()
	return terminalQuery{timeout: timeout, grace: lateGrace}.ask(tty)
}

// openTTY opens the terminal at path, for reading and writing, without
// making it the controlling terminal, as a blocking descriptor that Go's
// poller never sees. The caller closes it.
func openTTY(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// A terminalQuery asks a terminal whether it supports bracketed paste.
type terminalQuery struct {
	timeout time.Duration // how long the answers are waited for
	grace   time.Duration // after timeout, how long late answers are drained before the input is discarded
	late    func()        // if set, called when timeout has passed without the DA1 answer (a test seam)
}

// ask writes bracketed.PasteQuestion to tty, reads the answers, and returns the
// DECRQM state for mode 2004 ("" when none came within q.timeout).
//
// tty is used through its descriptor in blocking mode: ask puts it so for
// good (File.Fd), so a tty in Go's poller loses its deadlines. While ask
// runs, the terminal is in non-canonical mode without echo or signal
// keys: a Ctrl-C is a byte, not a SIGINT that would end pbwrap before the
// terminal is restored. ask restores the terminal's settings on every
// return.
//
// No answer is left for the shell to read as typed text. The input is
// read a byte at a time up to the DA1 answer, which comes last, so what
// the user types after it is left alone, but what the user typed before
// it is read and lost. If DA1 has not come by q.timeout, ask drains for
// q.grace more (a DECRQM answer then is not reported), and if it has
// still not come, discards all pending input (TCIFLUSH), keys typed
// meanwhile included. An answer that arrives after that still leaks: a
// longer grace would make doctor wait longer on every terminal that never
// answers DA1, for a link slower than any pbwrap is used over.
func (q terminalQuery) ask(tty *os.File) (state string, err error) {
	fd := int(tty.Fd())
	saved, err := ptyio.GetTermios(tty)
	if err != nil {
		return "", fmt.Errorf("read terminal settings: %w", err)
	}
	defer func() {
		if rerr := ptyio.SetTermios(tty, saved); rerr != nil && err == nil {
			err = fmt.Errorf("restore terminal settings: %w", rerr)
		}
	}()
	if err := ptyio.SetTermios(tty, questionMode(saved)); err != nil {
		return "", fmt.Errorf("set terminal to raw mode: %w", err)
	}
	if _, err := tty.WriteString(bracketed.PasteQuestion); err != nil {
		return "", fmt.Errorf("write terminal query: %w", err)
	}
	var r bracketed.Replies
	r.Ask()
	if err := readReplies(tty, &r, time.Now().Add(q.timeout)); err != nil {
		return "", err
	}
	if m := r.Mode(); m != bracketed.ModeUnanswered {
		state = string(m)
	}
	if !r.AnsweredDA1() {
		err = q.discardLate(tty, fd, &r)
	}
	return state, err
}

// questionMode returns saved changed for the question: no echo, no line
// editing, no signal keys, and reads that return what has arrived or,
// after readTick, nothing.
func questionMode(saved *unix.Termios) *unix.Termios {
	raw := *saved
	raw.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 0, readTick
	return &raw
}

// readReplies reads tty, which must be in questionMode and blocking, a
// byte at a time into r, until r has the DA1 answer or deadline has
// passed.
func readReplies(tty *os.File, r *bracketed.Replies, deadline time.Time) error {
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
func (q terminalQuery) discardLate(tty *os.File, fd int, r *bracketed.Replies) error {
	if q.late != nil {
		q.late()
	}
	if err := readReplies(tty, r, time.Now().Add(q.grace)); err != nil {
		return err
	}
	if r.AnsweredDA1() {
		return nil
	}
	if err := flushInput(fd); err != nil {
		return fmt.Errorf("discard terminal input: %w", err)
	}
	return nil
}
