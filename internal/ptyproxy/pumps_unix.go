//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

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
	relayOnThread(s.out, s.pty, s.output, s.outputEnds)
}

// outputEnds reports whether reading the PTY ends after err: always.
func (s *session) outputEnds(err error) bool {
	// EIO (Linux) or EOF: every holder of the PTY's other end has closed
	// it; ErrClosed: the session is over and has closed it.
	if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.EIO) && !errors.Is(err, os.ErrClosed) {
		s.cfg.Logf("read pty: %v", err)
	}
	return true
}

// output passes a chunk of the command's output through the output pump.
func (s *session) output(p []byte) time.Time {
	if onOutput != nil {
		onOutput(p)
	}
	return s.out.feed(p)
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

// settleWait bounds how long a stop waits for the output the command wrote
// before it stopped: it is in the PTY already and goes through at once,
// unless the terminal does not read (then the reset would wait anyway).
const settleWait = 100 * time.Millisecond

// settleOutput waits, once the command has stopped, until the output pump
// has passed on what the command wrote before it stopped (its cleanup, the
// terminal's echo of ^Z), so that nothing of it reaches the shell's prompt
// after TerminalReset: until the PTY holds no output and no chunk is on its
// way, twice a millisecond apart (a read may have taken bytes and not yet
// said so), or settleWait.
func (s *session) settleOutput() {
	deadline := time.Now().Add(settleWait)
	for quiet := 0; quiet < 2 && time.Now().Before(deadline); {
		quiet++
		if outputQueued(s.pty) || s.outFlight.Load() {
			quiet = 0
		}
		time.Sleep(time.Millisecond)
	}
}

// outputQueued reports whether the PTY holds output that the proxy has not
// read: select(2) without waiting, which works on a terminal everywhere
// (FIONREAD on the master side counts the other direction on macOS).
func outputQueued(master *port) bool {
	n := 0
	_ = master.control(func(fd int) error { // Best effort.
		var fds unix.FdSet
		fds.Set(fd)
		n, _ = unix.Select(fd+1, &fds, nil, nil, &unix.Timeval{})
		return nil
	})
	return n > 0
}

// pumpInput copies the user's keystrokes to the input pump. A read in the
// background (after bg, or started with &) fails with EIO, since pbwrap
// ignores SIGTTIN (see ignoreTTIN); the pump then waits to be in the
// foreground again, woken by the SIGCONT of fg or by a periodic look. A
// command stopped by Ctrl-Z stays stopped meanwhile (see resumed). It
// ends with the input, or when the session closes the terminal's port
// (see closeTerminal).
func (s *session) pumpInput() {
	defer guard()
	relay(s.in, s.tin, s.in.feed, s.inputEnds)
}

// inputEnds reports whether reading the terminal ends after err, and
// closes the input pump if it does.
func (s *session) inputEnds(err error) bool {
	if s.inputGoesOn(err) {
		return false
	}
	s.in.close()
	if hungUp(err) {
		// The command, which may ignore SIGHUP, learns it as it would
		// without pbwrap: its reads end, its writes fail. pbwrap has no
		// one left to tell anything: the SIGHUP the shell sends its jobs
		// when the terminal goes, which may come after Run has returned
		// and stopped catching it, must not kill it before it has cleaned
		// up. So SIGHUP stays caught, by a channel nobody reads, for the
		// rest of the process. (signal.Ignore would do, but a SIGHUP that
		// comes while it runs can find the signal neither wanted nor
		// ignored yet, and kill the process: it did, 1 run in 200.)
		s.cfg.Logf("the terminal hung up; hanging up the command's terminal")
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
		s.closeMaster() // The output pump ends with it.
	}
	return true
}

// hungUp reports whether the read of the terminal that failed with err
// found it hung up (see hangUpSeen).
func hungUp(err error) bool {
	pgrp, pgrpErr := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	canonical := true
	if tio, err := ptyio.GetTermios(os.Stdin); err == nil {
		canonical = tio.Lflag&unix.ICANON != 0
	} else {
		pgrpErr = err
	}
	return hangUpSeen(err, pgrpErr, pgrp == unix.Getpgrp(), canonical)
}

// hangUpSeen reports whether a read of the terminal that failed with err
// found it hung up: it ended (or failed with EIO), and either the
// terminal can no longer be asked about (pgrpErr: the query of its
// foreground process group, or of its mode, failed), or pbwrap owns it
// and it is in raw mode, where a read returns nothing only once the
// terminal is gone. The terminal is not always torn down by the time its
// read ends: macOS ends the reads of a terminal whose other side closed
// at once and detaches it only when its session leader exits; Linux wakes
// its readers before it hangs it up. A read that ends while the terminal
// is cooked may be a Ctrl-D, and one in the background is refused (EIO),
// not a hang-up.
func hangUpSeen(err, pgrpErr error, foreground, canonical bool) bool {
	if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.EIO) {
		return false
	}
	return pgrpErr != nil || foreground && !canonical
}

// inputQueued reports whether the terminal has input waiting for pbwrap
// to read: none while another process group owns the terminal (after bg),
// when what is typed is not pbwrap's. It costs two system calls: it is
// for the expiry of a deadline, not for every keystroke.
func inputQueued() bool {
	n, err := unix.IoctlGetInt(0, ioctlInputQueued)
	return err == nil && n > 0 && inForeground()
}

// lingerSlack is how long past the input filter's deadline the session
// waits, once the command has ended, for the filter to be done: time for
// the Flush of that deadline to run and finish (writing out what it holds,
// say) on a loaded machine. A call blocked for good (see pump.end) delays the exit
// by as much.
const lingerSlack = time.Second

// finishInput runs once the command has ended: the input filter finishes
// what the terminal had not finished sending (see Unfinished), reading on
// until it is done or a forwarded signal comes, then the input is closed.
func (s *session) finishInput(settled <-chan struct{}, sigc <-chan os.Signal) {
	select {
	case <-settled:
	default:
		// The filter says why itself, if it must (a paste in flight): a
		// terminal's answer still to come is routine.
		s.linger(settled, sigc)
	}
	if !s.in.closeWithin(lingerSlack) {
		s.cfg.Logf("input: the filter is still busy after %v; leaving it", lingerSlack)
	}
}

// linger waits until settled is closed, a forwarded signal comes, or the
// input filter's deadline has passed by lingerSlack without it being done
// (a call to it is blocked). Other signals are handled as usual.
func (s *session) linger(settled <-chan struct{}, sigc <-chan os.Signal) {
	t := time.NewTimer(lingerSlack)
	defer t.Stop()
	for {
		select {
		case <-settled:
			return
		case sig := <-sigc:
			if slices.Contains(forwarded, sig) {
				s.cfg.Logf("input: %v; no longer reading", sig)
				return
			}
			s.signaled(sig.(syscall.Signal))
		case <-t.C:
			due := s.in.deadline()
			if due.IsZero() || time.Since(due) >= lingerSlack {
				s.cfg.Logf("input: the filter is not done %v after its deadline; no longer reading", lingerSlack)
				return
			}
			t.Reset(time.Until(due) + lingerSlack)
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
	if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
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
