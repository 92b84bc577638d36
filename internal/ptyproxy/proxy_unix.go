//go:build darwin || freebsd || linux

package ptyproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

// forwarded are the signals that, sent to pbwrap, go on to the command's
// process group, as they would reach it with no wrapper in between.
var forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT}

// A session is one run of Run. Its parts are owned by job: the terminal
// (term_unix.go), job control (jobs_unix.go), the copying both ways
// (relay_unix.go) and how each direction starts and ends (pumps_unix.go).
type session struct {
	cfg   Config
	pty   *port // the PTY's master side: the output pump reads it, the input pump writes it
	shim  int   // pid of the session process
	child atomic.Int64
	saved *term.State
	in    *pump
	out   *pump

	// The terminal, as the input pump reads it (tin) and the output pump
	// writes it (tout): one port on pbwrap's own description of it (see
	// ownTerminal), or standard input and standard output.
	tin, tout *port

	mu  sync.Mutex // guards raw
	raw bool       // the terminal is taken: TerminalSetup written, raw mode asked for

	// Job control, owned by loop.
	childStopped bool // the command is stopped and waits for pbwrap to continue it
	inputWake    chan struct{}

	// outFlight is set while the output pump holds a chunk read from the
	// PTY that it has not yet passed on (see settleOutput).
	outFlight atomic.Bool
}

// Run runs cfg's command in a PTY wired to the process's own terminal and
// returns its exit status: the command's own, or 128+N when it died of
// signal N. Standard input and output must be a terminal (ErrNotTerminal
// otherwise). The terminal is restored before Run returns, and also if any
// goroutine of the session panics. It is Start, then the Pending's Run.
func Run(cfg Config) (int, error) {
	p, err := Start()
	if err != nil {
		return 0, err
	}
	return p.Run(cfg)
}

// Run runs cfg's command through the session process that Start began,
// as the package's Run does. It may be called once.
func (p *Pending) Run(cfg Config) (int, error) {
	if p.run {
		return 0, errors.New("ptyproxy: Run of a run already run or closed")
	}
	p.run = true
	defer p.abandon() // Whatever the session has not taken over.
	defer startTrace()()
	sigc := make(chan os.Signal, 16)
	signal.Notify(sigc, append([]os.Signal{syscall.SIGWINCH, syscall.SIGCONT}, forwarded...)...)
	defer signal.Stop(sigc)

	s, err := open(cfg, p)
	if err != nil {
		return 0, err
	}
	defer s.closeMaster()
	defer s.closeTerminal() // After giveBack, which writes through it.
	active.Store(s)
	defer active.Store(nil)
	if err := p.awaitSpawn(); err != nil {
		return 0, fmt.Errorf("start %s: %w", cfg.Path, err)
	}
	s.shim = p.pid
	// Raw mode before the command starts: a key typed at once (Ctrl-Z)
	// is the command's, not a signal to pbwrap from the cooked terminal.
	defer s.giveBack()
	s.takeOver(nil)
	pid, err := p.sendCommand(s.cfg, setProcs)
	p.closePTY() // pbwrap's own copy of the slave side: the command has it.
	if err != nil {
		return 0, err
	}
	s.child.Store(int64(pid))
	p.handed = true // The session waits for the session process.
	ignoreTTIN()
	return s.run(sigc), nil
}

// setProcs makes GOMAXPROCS at least minProcs. It stops the world, which
// takes a while when the machine is loaded (the other P's thread must get
// a CPU to stop): Run calls it while the session process starts the
// command.
func setProcs() {
	if runtime.GOMAXPROCS(0) < minProcs {
		runtime.GOMAXPROCS(minProcs) // See relay's "Hot waits".
	}
}

// minProcs is the fewest Ps a session runs with: one for each direction
// of the relay waiting in a system call, one for the rest, and one that
// the runtime's monitor sees idle (see relay, "Hot waits"). The relay
// uses little CPU whatever the number; a P is not a thread.
const minProcs = 4

// startTrace starts tracing the run, and returns what stops it. It does
// nothing unless the build tag pbwrap_trace is set (see trace_unix.go).
var startTrace = func() func() { return func() {} }

// ignoreTTIN makes a read of the terminal from the background fail with
// EIO instead of stopping pbwrap with SIGTTIN, on Linux and the BSDs
// alike: the kernel refuses such a read with EIO when the reader ignores
// SIGTTIN (Linux's tty_check_change; the BSD ttread that XNU keeps, and
// FreeBSD's tty_wait_background). So pbwrap never stops for input, and a signal sent to it
// in the background (kill %1) is always forwarded (see pumpInput). It
// runs once the session process has started, which so keeps, like the
// command, SIGTTIN's default action. The disposition stays for the rest
// of the process: the input reader cannot be cancelled and may still be
// reading when Run returns.
func ignoreTTIN() { signal.Ignore(syscall.SIGTTIN) }

// open saves the terminal's state, opens the terminal's ports and sets
// up the PTY that Start opened. It must run before raw mode.
func open(cfg Config, p *Pending) (*session, error) {
	s := &session{cfg: cfg, inputWake: make(chan struct{}, 1)}
	if s.cfg.Logf == nil {
		s.cfg.Logf = func(string, ...any) {}
	}
	saved, err := term.GetState(0)
	if err != nil {
		return nil, fmt.Errorf("read terminal state: %w", err)
	}
	s.saved = saved
	s.in = newPump("input", cfg.Input, nil, s.cfg.Logf)
	s.in.src = &source{queued: inputQueued}
	s.out = newPump("output", cfg.Output, nil, s.cfg.Logf)
	if err := s.openTerminal(); err != nil {
		return nil, err
	}
	if err := s.openPTY(p); err != nil {
		s.closeTerminal()
		return nil, err
	}
	s.in.w, s.out.w = s.pty, s.tout
	if t, ok := cfg.Input.(Teller); ok {
		t.SetTell(s.out.writeFrom)
	}
	return s, nil
}

// openTerminal opens the ports of the terminal: one on a file description
// of pbwrap's own (see ownTerminal), non-blocking, so that a wait to
// write to it can end when the session closes it, and making it so
// changes nothing for the shell that shares standard input and output;
// or, where there is none, one each on standard input and output as they
// are, blocking or not as the shell left them.
func (s *session) openTerminal() error {
	if fd, ok := ownTerminal(); ok {
		p, err := newPort(fd, terminalPath, true, &s.in.src.taken)
		if err == nil {
			s.tin, s.tout = p, p
			return nil
		}
		_ = unix.Close(fd) // It cannot be made non-blocking: use standard input and output.
		s.cfg.Logf("terminal: %v; using standard input and output", err)
	}
	in, err := dupPort(0, "standard input", &s.in.src.taken)
	if err != nil {
		return err
	}
	out, err := dupPort(1, "standard output", nil)
	if err != nil {
		in.close()
		return err
	}
	s.tin, s.tout = in, out
	return nil
}

// dupPort returns a port on a duplicate of descriptor fd, as it is.
func dupPort(fd int, name string, held *atomic.Bool) (*port, error) {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: name, Err: err}
	}
	p, err := newPort(dup, name, false, held)
	if err != nil {
		_ = unix.Close(dup)
	}
	return p, err
}

// ownTerminal opens the terminal on standard input and output anew (see
// terminalPath): a file description of pbwrap's own, close-on-exec. It
// reports false when the terminal cannot be opened so, or standard input
// and output are not the same terminal, or standard input is a PTY's
// master side (see isPTYMaster).
func ownTerminal() (int, bool) {
	if isPTYMaster(0) {
		return -1, false
	}
	fd, err := unix.Open(terminalPath, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, false
	}
	if !sameTerminal(fd, 0) || !sameTerminal(fd, 1) {
		_ = unix.Close(fd) // Best effort.
		return -1, false
	}
	return fd, true
}

// sameTerminal reports whether fd is the device open on descriptor other.
func sameTerminal(fd, other int) bool {
	var a, b unix.Stat_t
	return unix.Fstat(fd, &a) == nil && unix.Fstat(other, &b) == nil && a.Rdev == b.Rdev && a.Rdev != 0 && a.Mode&unix.S_IFMT == unix.S_IFCHR
}

// closeTerminal closes the terminal's ports, which ends the input pump's
// read (see pumpInput).
func (s *session) closeTerminal() {
	if s.tin != nil {
		s.tin.close()
		s.tout.close()
	}
}

// closeMaster closes the PTY's master side, which hangs up the command
// and ends the output pump's read.
func (s *session) closeMaster() {
	s.pty.close()
}

// openPTY gives the PTY that Start opened the terminal's line settings
// and size, and a port on its master side.
func (s *session) openPTY(p *Pending) error {
	fd, name := p.takeMaster()
	port, err := newPort(fd, name, true, &s.outFlight)
	if err != nil {
		_ = unix.Close(fd)
		return err
	}
	s.pty = port
	// The command sees the user's own line settings (erase character,
	// IUTF8, ...) and size, as it would without pbwrap.
	if tio, err := ptyio.GetTermios(os.Stdin); err == nil {
		if err := ptyio.SetTermios(p.slave, tio); err != nil {
			s.cfg.Logf("copy termios to pty: %v", err)
		}
	}
	s.syncSize(false)
	return nil
}

// readPid reads the command's pid as the session process reports it, or
// returns 0 when it closes the pipe without a word: the command could not
// start.
func readPid(report io.Reader) int {
	line, _ := bufio.NewReader(report).ReadString('\n')
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

// run copies both ways and handles signals and job control until the
// command has exited, and returns its status.
func (s *session) run(sigc <-chan os.Signal) int {
	outDone := make(chan struct{})
	go s.pumpOutput(outDone) // Ends at EOF or EIO from the master; see drain.
	go s.pumpInput()         // Ends with the input, at the latest when Run closes the terminal's port.
	waits := make(chan ptyio.WaitState)
	go s.wait(waits) // Ends when the session process has ended.
	return s.loop(sigc, waits, outDone)
}
