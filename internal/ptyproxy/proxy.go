// Package ptyproxy runs a command inside a pseudo-terminal so that the user
// cannot tell anything sits between the terminal and the command.
//
// Run puts the user's terminal in raw mode, starts the command on a new PTY
// sized like the terminal, copies bytes both ways through optional filters,
// keeps the size in step (SIGWINCH), forwards SIGTERM, SIGHUP, SIGINT and
// SIGQUIT to the command's process group, mirrors job control (the command
// stopping stops pbwrap; fg continues both) and, on every way out, drains
// the command's last output and restores the terminal exactly as it was.
//
// Between pbwrap and the command sits a small session process (see RunShim):
// it leads the PTY's session and starts the command in a process group of its
// own, as a shell does. Without it the command's process group would be
// orphaned and the kernel would silently discard the stop signal Ctrl-Z
// sends, so Ctrl-Z could never suspend a program that relies on the default
// action.
//
// Each direction is one goroutine that waits for its source in the kernel
// (poll or select) on its own thread, then reads, filters and writes, with
// no hand-off: the same code on Linux, macOS and FreeBSD (see relay).
// It cannot hold up the garbage collector: a relay goroutine is always
// either running Go code, which the runtime can preempt, or in a system
// call made through the runtime's system call path (the wait, the read,
// the write), and a stop-the-world takes the P of a goroutine in a system
// call without waiting for it to return. It cannot deadlock: a direction
// that cannot write (a command that does not read, a terminal that stops
// reading) waits in that write holding its own lock only, and the other
// direction goes on; the output direction never waits for the input; the
// locks are taken in one order; and the session ends every wait at the
// end by closing the relay's descriptors, whose waits also watch a pipe
// that the close shuts.
//
// Exec runs a command in place of the current process, for the cases where
// wrapping is off. Nothing in this package knows what a paste is.
//
// The proxy works on Linux, macOS and FreeBSD. The package also compiles
// elsewhere, where Run, Exec, LookPath and RunShim fail with an error that
// wraps errors.ErrUnsupported.
package ptyproxy

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// A Filter rewrites one direction of the byte stream between the terminal
// and the command. The proxy serializes all calls on one Filter.
//
// Filter receives each chunk as it is read and writes what should pass on
// to w. It returns a deadline: if nothing more is read by then, the proxy
// calls Flush, so that a filter holding back an incomplete sequence can let
// it go. The zero time means no deadline. Close is called once at the end
// of the stream, for the filter to write what it still holds.
//
// An error from a Filter is logged (Config.Logf) and the stream goes on:
// later chunks are still passed to the filter.
//
// Time passes for the input filter only while the proxy waits for input:
// a deadline counts from when the Filter call that set it returned, so the
// time the filter spends in the call (writing to a command that does not
// read) is not silence from the terminal; and when it comes, Flush is
// called only if the terminal has sent nothing since: no input waits to
// be read, and none has been read that the filter has not had. Otherwise
// the input goes to Filter first, which sets the next deadline. So a
// deadline never passes because the proxy itself stalled (stopped, busy,
// blocked in a write).
type Filter interface {
	Filter(w io.Writer, p []byte, now time.Time) (deadline time.Time, err error)
	Flush(w io.Writer, now time.Time) (deadline time.Time, err error)
	Close(w io.Writer) error
}

// An Unfinished input Filter can be in the middle of something that the
// terminal has not finished sending when the command ends: bytes that must
// reach nothing that reads the terminal after the proxy (the user's
// shell).
//
// When the command has ended, the proxy calls CommandEnded, once; from
// then on what the filter writes goes nowhere. As long as Pending reports
// true, or the terminal has sent input that the filter has not yet had,
// the proxy goes on reading the terminal and passing what it reads to the
// filter, calling Flush at its deadlines as before. It stops when Pending
// reports false with no input on its way, when the input ends, or when
// the proxy gets a signal that it forwards (SIGTERM, SIGHUP, ...); then
// it calls Close, and Run returns. The filter bounds the wait: Pending
// must report false once a deadline it returned has passed and Flush has
// been called.
type Unfinished interface {
	Filter
	CommandEnded()
	Pending() bool
}

// A Teller is an input Filter that at times has something to write to
// the terminal itself, in answer to what the terminal sent (a request the
// user's own gesture calls for). Before the first call to the filter, the
// proxy gives it tell: tell(f) writes what f returns to the terminal
// with the output stream held, as TerminalSetup's are, so that f can make
// sure the output stands between two sequences (nil writes nothing). tell
// may be called from Filter and Flush, and from nowhere else; it waits
// for an output write under way.
type Teller interface {
	Filter
	SetTell(tell func(f func() []byte))
}

// Config describes one wrapped run.
type Config struct {
	// Path is the resolved executable (see LookPath) and Args its argv,
	// Args[0] included. Env is the command's environment.
	Path string
	Args []string
	Env  []string

	// Input filters the user's keystrokes on their way to the command and
	// Output the command's output on its way to the terminal. Nil passes
	// bytes through unchanged, at no cost.
	Input  Filter
	Output Filter

	// TerminalSetup, if set, returns what to write to the terminal each
	// time the proxy takes it over: at start, and on fg before the command
	// is continued (then the terminal goes into raw mode, and the command
	// gets its size). TerminalReset, if set, returns what to write each
	// time the proxy gives the terminal back, before the termios are
	// restored: on every way out (the command's exit, a signal, a panic of
	// the proxy) once the command's last output is through, and at Ctrl-Z
	// once what the command wrote before it stopped is through. Each is
	// called at that moment, with the output stream held: no Output
	// filter call runs meanwhile, so what they return can depend on what
	// the filter has seen. A panic in either is logged and taken as
	// nothing to write.
	TerminalSetup func() []byte
	TerminalReset func() []byte

	// TerminalQuestion, if set, returns what to write to the terminal
	// each time it has taken it over and put it in raw mode: a question
	// whose answer must reach the Input filter at once, neither echoed nor
	// held for a newline as in the terminal's cooked mode. It is called as
	// TerminalSetup is.
	TerminalQuestion func() []byte

	// Logf, when set, receives diagnostics. It must not write to the
	// terminal.
	Logf func(format string, args ...any)
}

// DrainTimeout bounds how long output is still read after the command has
// exited. Output the command wrote before it exited is already buffered in
// the PTY and is read at once; the bound only matters when a background
// grandchild keeps the PTY open, which must not keep pbwrap alive.
const DrainTimeout = 500 * time.Millisecond

// An ExecError reports that the command could not be started. Code is the
// exit status a shell gives for the same failure: 127 when the command is
// not found, 126 when it is found but cannot be executed.
type ExecError struct {
	Name string
	Code int
	Err  error
}

func (e *ExecError) Error() string {
	switch {
	case errors.Is(e.Err, exec.ErrNotFound):
		return fmt.Sprintf("%s: command not found", e.Name)
	case e.Code == 127:
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	default:
		return fmt.Sprintf("%s: cannot execute: %v", e.Name, e.Err)
	}
}

func (e *ExecError) Unwrap() error { return e.Err }

// ShimArg, as the first argument, makes the program act as the session
// process of a wrapped run instead of parsing its command line: main must
// call RunShim before anything else, since Start starts the session
// process by running the program's own executable again with ShimArg.
const ShimArg = "__pbwrap-session"

// ErrNotTerminal is returned by Run when standard input or output is not a
// terminal; the caller should use Exec instead.
var ErrNotTerminal = errors.New("standard input and output must be a terminal")
