//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

// loop handles signals and the session process's state changes until the
// command has exited, then drains its output, lets the input filter finish
// (see Unfinished) and returns the command's status. It alone changes
// job-control state (childStopped).
func (s *session) loop(sigc <-chan os.Signal, waits <-chan ptyio.WaitState, outDone <-chan struct{}) int {
	for {
		// Without the terminal (in the background, after bg or a start
		// with &), look now and then whether the shell has brought pbwrap
		// to the foreground: its fg of a running job sends no SIGCONT,
		// and a reader waiting for the terminal is not told either.
		var look <-chan time.Time
		if !s.taken() {
			look = time.After(foregroundPoll)
		}
		select {
		case sig := <-sigc:
			s.signaled(sig.(syscall.Signal))
		case <-look:
			if inForeground() {
				s.resumed() // As if continued.
			}
		case st := <-waits:
			if st.Ended() {
				settled := s.in.end()
				s.drain(outDone)
				s.finishInput(settled, sigc)
				return st.ExitCode()
			}
			s.suspend()
		}
	}
}

// signaled acts on a signal sent to pbwrap.
func (s *session) signaled(sig syscall.Signal) {
	switch sig {
	case syscall.SIGWINCH:
		s.syncSize(false)
	case syscall.SIGCONT:
		// Continued after a stop of pbwrap's own (bg then fg, SIGTTIN):
		// take the terminal back if it is ours again.
		s.resumed()
	default:
		s.forward(sig)
	}
}

// wait reports every stop of the session process, then how it ended.
func (s *session) wait(events chan<- ptyio.WaitState) {
	defer guard()
	st, err := ptyio.WaitExit(s.shim, func(sig int) {
		events <- ptyio.WaitState{Kind: ptyio.Stopped, N: sig}
	})
	if err != nil {
		s.cfg.Logf("wait: %v", err)
		st = ptyio.WaitState{Kind: ptyio.Exited, N: 1}
	}
	events <- st
}

// forward sends sig to the command's process group, or to the session
// process while the command's pid is not known. A stopped command is
// continued after it, as a shell's kill does, so that it can act on it.
func (s *session) forward(sig syscall.Signal) {
	if pid := int(s.child.Load()); pid > 0 {
		if err := unix.Kill(-pid, sig); err != nil && errors.Is(err, unix.ESRCH) {
			_ = unix.Kill(pid, sig) // Best effort.
		}
	} else {
		_ = unix.Kill(s.shim, sig) // Best effort.
	}
	if s.childStopped {
		s.continueChild()
	}
}

// continueChild continues the stopped command, then the session process.
// pbwrap continues the command itself, before the terminal is in raw mode
// again: SIGCONT discards pending stop signals, so a SIGCONT that came
// after a Ctrl-Z typed right after fg would swallow it.
func (s *session) continueChild() {
	s.childStopped = false
	if pid := int(s.child.Load()); pid > 0 {
		_ = unix.Kill(-pid, unix.SIGCONT) // Best effort.
	}
	_ = unix.Kill(s.shim, unix.SIGCONT) // Best effort: it goes back to waiting.
}

// suspend mirrors the command's stop: once what the command wrote before
// it stopped is through, the terminal is given back and pbwrap stops
// itself, so that the shell gets its prompt; see resumed for what happens
// when it is continued.
func (s *session) suspend() {
	s.cfg.Logf("command stopped; stopping")
	s.childStopped = true
	s.settleOutput()
	s.giveBack()
	raiseStop()
	s.cfg.Logf("continued")
	s.resumed()
}

// resumed runs when pbwrap has been continued: in the foreground it takes
// the terminal over, writing TerminalSetup (the command's modes back)
// before it continues a stopped command and enters raw mode, then resends
// the size. In the background (bg) it leaves the command stopped until fg,
// as a full-screen program stops again when it finds it does not own the
// terminal. Either way the input pump looks again.
func (s *session) resumed() {
	if s.takeOver(s.continueStopped) {
		s.syncSize(true)
	}
	s.wakeInput()
}

// continueStopped continues the command if it is stopped.
func (s *session) continueStopped() {
	if s.childStopped {
		s.continueChild()
	}
}

// wakeInput tells an input pump waiting after a background read to try
// again.
func (s *session) wakeInput() {
	select {
	case s.inputWake <- struct{}{}:
	default: // A wake-up is already pending.
	}
}
