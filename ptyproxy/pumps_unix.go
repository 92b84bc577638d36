//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// ioBufSize is the read size on both directions: large enough that a
// flood of output or a big paste moves in few system calls, small enough
// to stay in cache.
const ioBufSize = 32 << 10

// foregroundPoll is how often pbwrap in the background looks whether it
// owns the terminal again, besides waking on SIGCONT: cheap, and slow
// enough to cost nothing while it waits.
const foregroundPoll = 250 * time.Millisecond

// onOutput, when set, sees each chunk of output before the output pump
// does. It is a test seam: ptyproxy's own tests set it to panic.
var onOutput func([]byte)

// pumpOutput copies the command's output to the output pump until every
// holder of the PTY's slave side has closed it, then closes done.
func (s *session) pumpOutput(done chan<- struct{}) {
	defer guard()
	defer close(done)
	buf := make([]byte, ioBufSize)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			s.output(buf[:n])
		}
		if err != nil {
			// EIO (Linux) or EOF: every holder of the PTY's other end
			// has closed it.
			if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.EIO) {
				s.cfg.Logf("read pty: %v", err)
			}
			return
		}
	}
}

func (s *session) output(p []byte) {
	if onOutput != nil {
		onOutput(p)
	}
	s.out.feed(p)
}

// drain lets the output pump read what the command left in the PTY, for
// at most DrainTimeout, then lets the output filter write what it holds.
// A pump still blocked in read (a grandchild holds the PTY open) is
// abandoned, closed so that nothing more reaches the terminal.
func (s *session) drain(outDone <-chan struct{}) {
	select {
	case <-outDone:
	case <-time.After(DrainTimeout):
		s.cfg.Logf("drain: the PTY is still open after %v; leaving it", DrainTimeout)
	}
	s.out.close()
}

// pumpInput copies the user's keystrokes to the input pump. A read in the
// background (after bg, or started with &) fails with EIO, since pbwrap
// ignores SIGTTIN (see ignoreTTIN); the pump then waits to be in the
// foreground again, woken by the SIGCONT of fg or by a periodic look. A
// command stopped by Ctrl-Z stays stopped meanwhile (see resumed).
func (s *session) pumpInput() {
	defer guard()
	buf := make([]byte, ioBufSize)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			s.in.feed(buf[:n])
		}
		if err != nil && !s.inputGoesOn(err) {
			s.in.close()
			return
		}
	}
}

// inputGoesOn reports whether reading the terminal goes on after err: a
// read refused in the background (EIO) is tried again once pbwrap may be
// in the foreground; any other error ends the input.
func (s *session) inputGoesOn(err error) bool {
	if errors.Is(err, syscall.EIO) && inBackground() {
		s.awaitForeground()
		return true
	}
	if !errors.Is(err, io.EOF) {
		s.cfg.Logf("read terminal: %v", err)
	}
	return false
}

// awaitForeground waits for a wake-up (SIGCONT) or foregroundPoll.
func (s *session) awaitForeground() {
	t := time.NewTimer(foregroundPoll)
	defer t.Stop()
	select {
	case <-s.inputWake:
	case <-t.C:
	}
}
