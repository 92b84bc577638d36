//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

// A Pending run is what Start began ahead of the command: the run's PTY,
// and its session process, starting meanwhile (its exec and its Go
// runtime's start, the larger part of a wrapped command's start-up, see
// doc/performance.md), then waiting for the command. Run runs it; Close
// gives it up. A Pending is used by one goroutine.
type Pending struct {
	master  int      // the PTY's master side, until open hands it to a port
	name    string   // the master's name, for errors
	slave   *os.File // the PTY's slave side, until the command has started
	cmd     *os.File // the write end of the session process's command pipe
	report  *os.File // the read end of its report pipe
	spawned chan error
	pid     int  // the session process, once spawned has said so
	waited  bool // spawned has been read
	run     bool // Run has been called
	handed  bool // a session waits for the session process: Close leaves it
}

// Start opens the PTY of a wrapped run and starts its session process,
// which waits for Run to give it the command: the program's own
// executable run again with ShimArg as its first argument. The program's
// main must therefore dispatch ShimArg to RunShim before anything else,
// flags included. Standard input and output must be a terminal
// (ErrNotTerminal otherwise). The caller calls Run, or Close if it does
// not run the command after all; Close after Run does nothing.
func Start() (*Pending, error) {
	if !term.IsTerminal(0) || !term.IsTerminal(1) {
		return nil, ErrNotTerminal
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start session process: find own executable: %w", err)
	}
	master, name, slave, err := ptyio.OpenPTYFd()
	if err != nil {
		return nil, err
	}
	p := &Pending{master: master, name: name, slave: slave, spawned: make(chan error, 1)}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		p.closePTY()
		return nil, fmt.Errorf("start session process: %w", err)
	}
	report, reportW, err := os.Pipe()
	if err != nil {
		p.closePTY()
		cmdR.Close()
		cmdW.Close()
		return nil, fmt.Errorf("start session process: %w", err)
	}
	p.cmd, p.report = cmdW, report
	// The exec waits for the new process to have exec'd (a vfork), so it
	// runs beside the caller's own set-up too.
	go func() { // Ends once the session process has started, or failed to.
		// This program again, with ShimArg, leading a new session whose
		// controlling terminal is the PTY; "pbwrap" as argv[0] for ps, and
		// for test binaries that dispatch on it. cmdR and reportW are its
		// shimCommandFd and shimReportFd.
		pid, err := spawn(self, []string{"pbwrap", ShimArg}, nil, []*os.File{slave, slave, slave, cmdR, reportW},
			&syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0})
		cmdR.Close()
		reportW.Close()
		p.pid = pid
		if err != nil {
			err = fmt.Errorf("start session process: %w", err)
		}
		p.spawned <- err
	}()
	return p, nil
}

// awaitSpawn waits until the session process has started and returns
// why it could not. It must come before pbwrap ignores a signal: an
// ignored signal stays ignored across exec, and the session process and
// the command must have every signal's default action (see ignoreTTIN,
// withoutTTOU).
func (p *Pending) awaitSpawn() error {
	if p.waited {
		if p.pid == 0 {
			return errors.New("start session process: failed")
		}
		return nil
	}
	p.waited = true
	return <-p.spawned
}

// takeMaster hands the PTY's master side to the caller, once.
func (p *Pending) takeMaster() (int, string) {
	fd := p.master
	p.master = -1
	return fd, p.name
}

// Close gives up a run that Start began and Run did not take over: the
// session process is told there is no command, and ends; the PTY is
// closed. It does nothing after Run.
func (p *Pending) Close() {
	if p.run {
		return
	}
	p.run = true
	p.abandon()
}

// abandon ends the session process, if no session waits for it, and
// closes what Start opened that is still open.
func (p *Pending) abandon() {
	_ = p.cmd.Close() // The session process reads no command, and ends.
	_ = p.report.Close()
	if p.awaitSpawn() == nil && !p.handed {
		_ = unix.Kill(p.pid, unix.SIGKILL) // It has nothing to do; do not wait for it to see.
		_, _ = ptyio.WaitExit(p.pid, func(int) {})
	}
	p.closePTY()
}

func (p *Pending) closePTY() {
	if p.master >= 0 {
		_ = unix.Close(p.master)
		p.master = -1
	}
	if p.slave != nil {
		_ = p.slave.Close()
		p.slave = nil
	}
}

// sendCommand gives the session process the command, calls meanwhile,
// then returns the command's pid as the session process reports it once
// the command has started, or 0 when it could not start.
func (p *Pending) sendCommand(cfg Config, meanwhile func()) (int, error) {
	b, err := encodeCommand(cfg.Path, cfg.Args, cfg.Env)
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", cfg.Path, err)
	}
	_, werr := p.cmd.Write(b)
	_ = p.cmd.Close() // The end of the command.
	meanwhile()
	pid := readPid(p.report)
	if pid == 0 && werr != nil {
		return 0, fmt.Errorf("start %s: give the session process the command: %w", cfg.Path, werr)
	}
	return pid, nil
}
