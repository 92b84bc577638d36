//go:build unix

package ptyproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// ioBufSize is the read size on both directions: large enough that a
// flood of output or a big paste moves in few system calls, small enough
// to stay in cache.
const ioBufSize = 32 << 10

// forwarded are the signals that, sent to pbwrap, go on to the command's
// process group, as they would reach it with no wrapper in between.
var forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT}

// onOutput, when set (only in test builds), sees each chunk of output.
var onOutput func([]byte)

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

type session struct {
	cfg    Config
	master *os.File
	shim   int // pid of the session process
	child  atomic.Int64
	saved  *term.State
	in     *pump
	out    *pump

	mu  sync.Mutex // guards raw
	raw bool       // the terminal is in raw mode with TerminalSetup written

	// Job control, owned by loop.
	childStopped bool // the command is stopped and waits for pbwrap to continue it
	inputWake    chan struct{}
}

type waitEvent struct {
	stopped bool
	status  int
}

// Run runs cfg's command in a PTY wired to the process's own terminal and
// returns its exit status: the command's own, or 128+N when it died of
// signal N. Standard input and output must be a terminal (ErrNotTerminal
// otherwise). The terminal is restored before Run returns, and also if any
// goroutine of the session panics.
func Run(cfg Config) (int, error) {
	if !term.IsTerminal(0) || !term.IsTerminal(1) {
		return 0, ErrNotTerminal
	}
	s := &session{cfg: cfg, inputWake: make(chan struct{}, 1)}
	if s.cfg.Logf == nil {
		s.cfg.Logf = func(string, ...any) {}
	}
	saved, err := term.GetState(0)
	if err != nil {
		return 0, fmt.Errorf("read terminal state: %w", err)
	}
	s.saved = saved

	sigc := make(chan os.Signal, 16)
	signal.Notify(sigc, append([]os.Signal{syscall.SIGWINCH, syscall.SIGCONT}, forwarded...)...)
	defer signal.Stop(sigc)

	tty, err := s.openPTY()
	if err != nil {
		return 0, err
	}
	defer s.master.Close()
	active.Store(s)
	defer active.Store(nil)
	s.out = newPump("output", cfg.Output, os.Stdout, s.cfg.Logf)
	s.in = newPump("input", cfg.Input, s.master, s.cfg.Logf)
	// Raw mode before the command starts: a key typed at once (Ctrl-Z)
	// is the command's, not a signal to pbwrap from the cooked terminal.
	defer s.giveBack()
	s.takeOver()
	err = s.startShim(tty)
	tty.Close()
	if err != nil {
		return 0, err
	}
	outDone := make(chan struct{})
	go s.pumpOutput(outDone) // Ends at EOF/EIO from the master, or at the drain deadline.
	go s.pumpInput()         // Blocks in read(0) for good; deliberately never joined.
	waits := make(chan waitEvent)
	go s.wait(waits) // Ends when the session process has exited.

	return s.loop(sigc, waits, outDone), nil
}

// openPTY opens the PTY with the terminal's line settings and size, and
// returns its slave side for startShim. It must run before raw mode.
func (s *session) openPTY() (*os.File, error) {
	// The master stays in blocking mode: a thread blocked in read(2)
	// wakes straight into the copy, which measured faster than Go's
	// poller, both for keystroke echo and for floods of output.
	master, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	s.master = master
	// The command sees the user's own line settings (erase character,
	// IUTF8, ...) and size, as it would without pbwrap.
	if tio, err := unix.IoctlGetTermios(0, ioctlGetTermios); err == nil {
		if err := unix.IoctlSetTermios(int(tty.Fd()), ioctlSetTermios, tio); err != nil {
			s.cfg.Logf("copy termios to pty: %v", err)
		}
	}
	if ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ); err == nil {
		if err := s.setSize(ws); err != nil {
			s.cfg.Logf("set pty size: %v", err)
		}
	}
	return tty, nil
}

// startShim starts the session process on the PTY's slave side tty; it
// starts the command and reports its pid.
func (s *session) startShim(tty *os.File) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	report, reportW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start %s: %w", s.cfg.Path, err)
	}
	defer report.Close()
	cmd := exec.Command(self, append([]string{ShimArg, s.cfg.Path}, s.cfg.Args...)...)
	cmd.Args[0] = "pbwrap" // For ps, and for test binaries that dispatch on argv[0].
	cmd.Env = s.cfg.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.ExtraFiles = []*os.File{reportW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	err = cmd.Start()
	reportW.Close()
	if err != nil {
		return fmt.Errorf("start %s: %w", s.cfg.Path, err)
	}
	s.shim = cmd.Process.Pid
	// The session process reports the command's pid, or closes the pipe
	// without a word when the command could not start.
	line, _ := bufio.NewReader(report).ReadString('\n')
	if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
		s.child.Store(int64(pid))
	}
	return nil
}

// OpenPTY opens a new PTY pair. Unlike pty.Open, which hands the master
// back in blocking mode, the master is non-blocking in Go's poller: its
// reads can be given a deadline, and Close ends a pending Read. The caller
// closes both files.
func OpenPTY() (master, slave *os.File, err error) {
	m, slave, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	defer m.Close()
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		slave.Close()
		return nil, nil, fmt.Errorf("dup pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		slave.Close()
		return nil, nil, fmt.Errorf("set pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), m.Name()), slave, nil
}

// SetSize sets the size of the terminal f (either side of a PTY) without
// taking f out of Go's poller, as File.Fd would.
func SetSize(f *os.File, rows, cols uint16) error {
	return setWinsize(f, &unix.Winsize{Row: rows, Col: cols})
}

func setWinsize(f *os.File, ws *unix.Winsize) error {
	return control(f, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws)
	})
}

// loop handles signals and the session process's state changes until the
// command has exited, then drains its output and returns its status. It
// alone changes job-control state (childStopped).
func (s *session) loop(sigc <-chan os.Signal, waits <-chan waitEvent, outDone <-chan struct{}) int {
	for {
		select {
		case sig := <-sigc:
			switch sig {
			case syscall.SIGWINCH:
				s.syncSize(false)
			case syscall.SIGCONT:
				// Continued after a stop of pbwrap's own (bg then fg,
				// SIGTTIN): take the terminal back if it is ours again.
				s.resumed()
			default:
				s.forward(sig.(syscall.Signal))
			}
		case ev := <-waits:
			if ev.stopped {
				s.suspend()
				continue
			}
			s.drain(outDone)
			return ev.status
		}
	}
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

// suspend mirrors the command's stop: the terminal is given back and
// pbwrap stops itself, so that the shell gets its prompt; see resumed for
// what happens when it is continued.
func (s *session) suspend() {
	s.cfg.Logf("command stopped; stopping")
	s.childStopped = true
	s.giveBack()
	raiseStop()
	s.cfg.Logf("continued")
	s.resumed()
}

// resumed runs when pbwrap has been continued: in the foreground it
// continues a stopped command, takes the terminal over and resends the
// size. In the background (bg) it leaves the command stopped until fg, as a
// full-screen program stops again when it finds it does not own the
// terminal. Either way the input pump looks again.
func (s *session) resumed() {
	if inForeground() && s.childStopped {
		s.continueChild()
	}
	if s.takeOver() {
		s.syncSize(true)
	}
	s.wakeInput()
}

// wakeInput tells an input pump waiting after a background read to try
// again.
func (s *session) wakeInput() {
	select {
	case s.inputWake <- struct{}{}:
	default: // A wake-up is already pending.
	}
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

func (s *session) pumpOutput(done chan<- struct{}) {
	defer guard()
	defer close(done)
	buf := make([]byte, ioBufSize)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			if onOutput != nil {
				onOutput(buf[:n])
			}
			s.out.feed(buf[:n])
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

// pumpInput copies the user's keystrokes to the input pump. Where the
// platform allows (holdTTIN), a read in the background (after bg, or
// started with &) fails with EIO instead of stopping pbwrap on SIGTTIN;
// the pump then waits to be in the foreground again, woken by the SIGCONT
// of fg or by a periodic look. pbwrap so never stops for input, and a
// signal sent to it in the background (kill %1) is always forwarded. A
// command stopped by Ctrl-Z stays stopped meanwhile (see resumed).
func (s *session) pumpInput() {
	defer guard()
	held := holdTTIN()
	buf := make([]byte, ioBufSize)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			s.in.feed(buf[:n])
		}
		if err == nil {
			continue
		}
		if held && errors.Is(err, syscall.EIO) && inBackground() {
			s.awaitForeground()
			continue
		}
		if !errors.Is(err, io.EOF) {
			s.cfg.Logf("read terminal: %v", err)
		}
		s.in.close()
		return
	}
}

// foregroundPoll is how often pbwrap in the background looks whether it
// owns the terminal again, besides waking on SIGCONT: cheap, and slow
// enough to cost nothing while it waits.
const foregroundPoll = 250 * time.Millisecond

// awaitForeground waits for a wake-up (SIGCONT) or foregroundPoll.
func (s *session) awaitForeground() {
	t := time.NewTimer(foregroundPoll)
	defer t.Stop()
	select {
	case <-s.inputWake:
	case <-t.C:
	}
}

// wait reports every stop and the exit of the session process.
func (s *session) wait(events chan<- waitEvent) {
	defer guard()
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(s.shim, &ws, unix.WUNTRACED, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		switch {
		case err != nil:
			s.cfg.Logf("wait: %v", err)
			events <- waitEvent{status: 1}
			return
		case ws.Stopped():
			events <- waitEvent{stopped: true}
		case ws.Exited():
			events <- waitEvent{status: ws.ExitStatus()}
			return
		case ws.Signaled():
			events <- waitEvent{status: 128 + int(ws.Signal())}
			return
		}
	}
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
	if err := s.setSize(ws); err != nil {
		s.cfg.Logf("set pty size: %v", err)
	}
	if !force {
		return
	}
	if pgrp, err := s.foregroundGroup(); err == nil && pgrp > 0 {
		_ = unix.Kill(-pgrp, unix.SIGWINCH) // Best effort.
	}
}

func (s *session) setSize(ws *unix.Winsize) error { return setWinsize(s.master, ws) }

func (s *session) foregroundGroup() (int, error) {
	var pgrp int
	err := control(s.master, func(fd int) error {
		var err error
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	return pgrp, err
}

// control runs f on f's descriptor without taking it out of the poller, as
// File.Fd would.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// takeOver puts the terminal in raw mode and writes TerminalSetup, unless
// it already is, or pbwrap is not in the terminal's foreground process
// group (after bg), where touching the terminal would stop pbwrap or
// disturb the job that owns it. It reports whether it took the terminal.
func (s *session) takeOver() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw || !inForeground() {
		return false
	}
	err := withoutTTOU(func() error {
		if _, err := term.MakeRaw(0); err != nil {
			return err
		}
		s.out.write(s.cfg.TerminalSetup)
		return nil
	})
	if err != nil {
		s.cfg.Logf("raw mode: %v", err)
		return false
	}
	s.raw = true
	return true
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
	err := withoutTTOU(func() error {
		s.out.write(s.cfg.TerminalReset)
		return term.Restore(0, s.saved)
	})
	if err != nil {
		s.cfg.Logf("restore terminal: %v", err)
	}
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
