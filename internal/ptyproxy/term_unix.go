//go:build darwin || freebsd || linux

package ptyproxy

import (
	"os/signal"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// active is the running session, for guard to restore the terminal when
// any goroutine panics.
var active atomic.Pointer[session]

// guard restores the terminal if the calling goroutine is panicking, then
// lets the panic go on. Every goroutine of a session defers it.
func guard() {
	if r := recover(); r != nil {
		if s := active.Load(); s != nil {
			s.giveBack()
		}
		panic(r)
	}
}

// takeOver writes TerminalSetup, runs then (if not nil), and puts the
// terminal in raw mode, unless the terminal is already taken, or pbwrap is
// not in the terminal's foreground process group (after bg), where
// touching the terminal would stop pbwrap or disturb the job that owns it.
// It reports whether it took the terminal. On fg, then continues the
// command: after its modes are back, before raw mode (see continueChild).
func (s *session) takeOver(then func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw || !inForeground() {
		return false
	}
	if err := withoutTTOU(func() error { return s.setUp(then) }); err != nil {
		s.cfg.Logf("raw mode: %v", err)
		return false
	}
	return true
}

// setUp writes TerminalSetup, runs then, enters raw mode and writes
// TerminalQuestion. s.mu must be held.
func (s *session) setUp(then func()) error {
	s.out.writeFrom(s.cfg.TerminalSetup)
	s.raw = true // From here on, giveBack undoes it.
	if then != nil {
		then()
	}
	if _, err := term.MakeRaw(0); err != nil {
		return err
	}
	s.out.writeFrom(s.cfg.TerminalQuestion)
	return nil
}

// taken reports whether pbwrap has the terminal (raw mode).
func (s *session) taken() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw
}

// giveBack writes TerminalReset and restores the termios saved at start.
// It is safe to call more than once and from any goroutine.
func (s *session) giveBack() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.raw {
		return
	}
	s.raw = false
	if err := withoutTTOU(s.restore); err != nil {
		s.cfg.Logf("restore terminal: %v", err)
	}
}

func (s *session) restore() error {
	s.out.writeFrom(s.cfg.TerminalReset)
	return term.Restore(0, s.saved)
}

// inForeground reports whether pbwrap's process group owns the terminal.
func inForeground() bool {
	pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}

// inBackground reports whether another process group owns the terminal,
// which is still there (a hung-up terminal has no owner to ask about).
func inBackground() bool {
	pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	return err == nil && pgrp != unix.Getpgrp()
}

// withoutTTOU runs f with SIGTTOU ignored, so that changing the terminal
// from a background process group (after the shell took it back) cannot
// stop pbwrap and hang the restore. The disposition is back to default
// afterwards, so that no program pbwrap starts later inherits it.
func withoutTTOU(f func() error) error {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	return f()
}

// syncSize copies the terminal's size to the PTY. With force, the
// command's foreground process group also gets SIGWINCH when the size has
// not changed, so that it redraws.
func (s *session) syncSize(force bool) {
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil {
		s.cfg.Logf("get terminal size: %v", err)
		return
	}
	if err := s.pty.control(func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) }); err != nil {
		s.cfg.Logf("set pty size: %v", err)
	}
	if !force {
		return
	}
	pgrp := 0
	err = s.pty.control(func(fd int) (err error) {
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	if err == nil && pgrp > 0 {
		_ = unix.Kill(-pgrp, unix.SIGWINCH) // Best effort.
	}
}
