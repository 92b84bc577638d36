//go:build darwin || freebsd || linux

package ptytest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

// WaitFor polls until cond is true, failing the test at the Watchdog.
func (term *Terminal) WaitFor(what string, cond func() bool) {
	term.t.Helper()
	term.WaitWithin(what, Watchdog, cond)
}

// WaitWithin polls until cond is true, failing the test once bound has
// passed: for a wait that the wrapper ends within a bound of its own,
// bound is a small multiple of it (see ExitWithin).
func (term *Terminal) WaitWithin(what string, bound time.Duration, cond func() bool) {
	term.t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			term.t.Fatalf("watchdog: gave up waiting %v for %s", bound, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// WaitReport waits until the child has reported a line containing want.
func (term *Terminal) WaitReport(want string) {
	term.t.Helper()
	term.WaitFor(fmt.Sprintf("child report %q", want), func() bool { return term.FileHas("report", want) })
}

// WaitLeader waits until the leader has reported a line containing want.
func (term *Terminal) WaitLeader(want string) {
	term.t.Helper()
	term.WaitFor(fmt.Sprintf("leader report %q", want), func() bool { return term.FileHas("leader", want) })
}

// WaitOutput waits until the terminal has shown want.
func (term *Terminal) WaitOutput(want string) {
	term.t.Helper()
	term.WaitFor(fmt.Sprintf("output %q", want), func() bool { return bytes.Contains(term.Output(), []byte(want)) })
}

// WaitInput waits until the child has recorded n bytes of input and
// returns them.
func (term *Terminal) WaitInput(n int) []byte {
	term.t.Helper()
	var got []byte
	term.WaitFor(fmt.Sprintf("%d bytes of input", n), func() bool {
		got, _ = os.ReadFile(term.Path("input"))
		return len(got) >= n
	})
	return got
}

// Type writes p to the terminal as if typed or pasted, in chunks of at
// most chunk bytes (all at once when chunk is 0). A wrapper that stops
// reading fails the test at the Watchdog instead of hanging it.
func (term *Terminal) Type(p []byte, chunk int) {
	term.t.Helper()
	if chunk <= 0 {
		chunk = len(p)
	}
	for len(p) > 0 {
		n := min(chunk, len(p))
		if err := term.write(p[:n]); err != nil {
			term.t.Fatalf("write to terminal: %v", err)
		}
		p = p[n:]
	}
}

// TypeAsync writes p to the terminal in the background, as Type does,
// and returns a channel that gets the write's error (nil when all of p
// was written). The write gives up at the Watchdog when the wrapper stops
// reading, or when the terminal is closed, so a receive from the channel
// never hangs.
func (term *Terminal) TypeAsync(p []byte) <-chan error {
	done := make(chan error, 1)
	go func() { done <- term.write(p) }() // Ends when p is written or the write gives up.
	return done
}

// write writes p to the master in pieces, each given the Watchdog to be
// taken: the deadline measures a wrapper that stopped reading, not how
// long a large paste takes.
func (term *Terminal) write(p []byte) error {
	const piece = 64 << 10
	for len(p) > 0 {
		n := min(piece, len(p))
		if err := term.Master.SetWriteDeadline(time.Now().Add(Watchdog)); err != nil {
			return fmt.Errorf("set write deadline: %w", err)
		}
		if _, err := term.Master.Write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

// varied are the chunk sizes TypeVaried writes in, in turn: single keys,
// short bursts, and pastes larger than a read.
var varied = []int{1, 7, 3, 4096, 65537, 2, 31}

// TypeVaried writes p to the terminal in chunks of varied sizes, as typing
// and pasting mixed would.
func (term *Terminal) TypeVaried(p []byte) {
	term.t.Helper()
	for i := 0; len(p) > 0; i++ {
		n := min(varied[i%len(varied)], len(p))
		term.Type(p[:n], 0)
		p = p[n:]
	}
}

// WantInput types input in chunks of varied sizes (TypeVaried), waits
// for the child to record as many bytes, and checks that they are input,
// byte for byte.
func (term *Terminal) WantInput(input []byte) {
	term.t.Helper()
	term.TypeVaried(input)
	if diff := Diff(term.WaitInput(len(input)), input); diff != "" {
		term.t.Errorf("child's input: %s", diff)
	}
}

// Exit waits for the wrapper to end and returns how, as the leader saw
// it: "exit N" or "signal N".
func (term *Terminal) Exit() string {
	term.t.Helper()
	return term.ExitWithin(Watchdog)
}

// ExitWithin is Exit with a watchdog of bound instead of the Watchdog, for
// a test of a wrapper that must end within a bound of its own: bound is
// then a small multiple of it, so that a wrapper that does not end fails
// the test soon after it should have ended, and one slowed down by a
// loaded machine does not.
func (term *Terminal) ExitWithin(bound time.Duration) string {
	term.t.Helper()
	var how string
	term.WaitWithin("the wrapper to exit", bound, func() bool {
		for _, line := range strings.Split(term.File("leader"), "\n") {
			if strings.HasPrefix(line, "exit ") || strings.HasPrefix(line, "signal ") {
				how = line
				return true
			}
		}
		return false
	})
	return how
}

// WrapperPeakRSS waits for the wrapper to end and returns its peak
// resident set size in KiB, as the leader saw it (ru_maxrss): the
// wrapper's own, or that of a process it waited for (the session process,
// the child) if larger.
func (term *Terminal) WrapperPeakRSS() int {
	term.t.Helper()
	term.Exit()
	lines := term.ReportLines("leader", "maxrss ")
	var maxrss int64
	if len(lines) != 1 {
		term.t.Fatalf("the leader reported %q, want one maxrss", lines)
	}
	if _, err := fmt.Sscanf(lines[0], "maxrss %d", &maxrss); err != nil {
		term.t.Fatalf("leader's %q: %v", lines[0], err)
	}
	return ptyio.MaxRSSKiB(runtime.GOOS, maxrss)
}

// WantExit waits for the wrapper to end and checks how it ended and that
// the terminal's termios are exactly as before the wrapper started.
func (term *Terminal) WantExit(want string) {
	term.t.Helper()
	if got := term.Exit(); got != want {
		term.t.Errorf("the wrapper ended with %q, want %q", got, want)
	}
	term.WantTermiosRestored()
}

// WantTermiosRestored checks that the terminal's termios are exactly as
// before the wrapper started.
func (term *Terminal) WantTermiosRestored() {
	term.t.Helper()
	if after := term.Termios(); *after != *term.before {
		term.t.Errorf("termios not restored:\n got %+v\nwant %+v", *after, *term.before)
	}
}

// Stopped reports whether the process pid is stopped, failing the test
// when its state cannot be read (skipping it where this system's way is
// not known).
func (term *Terminal) Stopped(pid int) bool {
	term.t.Helper()
	stopped, err := Stopped(pid)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		term.t.Skipf("process state: %v", err)
	case err != nil:
		term.t.Fatalf("process state of %d: %v", pid, err)
	}
	return stopped
}

// SignalWrapper sends sig to the wrapper, as another process would.
func (term *Terminal) SignalWrapper(sig syscall.Signal) {
	term.t.Helper()
	var pid int
	// The leader writes the pid after starting the wrapper, which may
	// already be running the child.
	term.WaitFor("the wrapper's pid", func() bool { pid = term.WrapperPid(); return pid > 0 })
	if err := unix.Kill(pid, sig); err != nil {
		term.t.Fatalf("signal the wrapper: %v", err)
	}
}

// ContinueWrapper sends SIGCONT to the wrapper as a shell's kill does
// after its signal; the wrapper may have ended by then.
func (term *Terminal) ContinueWrapper() {
	term.t.Helper()
	pid := term.WrapperPid()
	if pid <= 0 {
		term.t.Fatal("continue the wrapper: no pid")
	}
	if err := unix.Kill(pid, syscall.SIGCONT); err != nil && err != unix.ESRCH {
		term.t.Fatalf("continue the wrapper: %v", err)
	}
}

// SignalLeader sends sig to the leader: SIGUSR1 to take the terminal back
// as a shell does, SIGUSR2 for fg (see leaderMain).
func (term *Terminal) SignalLeader(sig syscall.Signal) {
	term.t.Helper()
	if err := term.leader.Process.Signal(sig); err != nil {
		term.t.Fatalf("signal leader: %v", err)
	}
}

// ResumeChild lets a child held by its record-hold step read again.
func (term *Terminal) ResumeChild() {
	term.t.Helper()
	if err := os.WriteFile(term.Path("input.resume"), nil, 0o600); err != nil {
		term.t.Fatal(err)
	}
}

// unreadFor is how long typed input must stay unread for TypeUntilBlocked
// to conclude that the wrapper has stopped reading: far longer than a
// wrapper that reads takes to read a piece, even on a loaded machine.
const unreadFor = 300 * time.Millisecond

// TypeUntilBlocked types p in pieces of piece bytes, each once the
// wrapper has read the ones before, until a piece stays unread for
// unreadFor: the wrapper has stopped reading (blocked writing to a child
// that does not read, say). What it left unread is then discarded from
// the terminal's input queue, so that the wrapper, blocked, has nothing
// more to read. It returns how many bytes of p were typed: the wrapper
// read a prefix of those, and nothing after. It fails the test if the
// wrapper reads all of p.
func (term *Terminal) TypeUntilBlocked(p []byte, piece int) int {
	term.t.Helper()
	typed := 0
	for typed < len(p) {
		// A piece the terminal cannot take within unreadFor is as
		// good a sign as one left unread: the wrapper stopped reading
		// with the terminal's buffers full (on a loaded machine the
		// kernel may move typed bytes to the queue counted below
		// late), and the write would block for good.
		n, blocked := term.writeWithin(p[typed:typed+min(piece, len(p)-typed)], unreadFor)
		typed += n
		if blocked || !term.inputReadWithin(unreadFor) {
			term.flushInput()
			return typed
		}
	}
	term.t.Fatalf("the wrapper read all %d bytes typed: it never stopped reading", len(p))
	return typed
}

// writeWithin writes p to the terminal, giving up after d, and returns
// how much of p was written and whether it gave up.
func (term *Terminal) writeWithin(p []byte, d time.Duration) (int, bool) {
	term.t.Helper()
	if err := term.Master.SetWriteDeadline(time.Now().Add(d)); err != nil {
		term.t.Fatalf("set write deadline: %v", err)
	}
	n, err := term.Master.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return n, true
	}
	if err != nil {
		term.t.Fatalf("write to terminal: %v", err)
	}
	return n, false
}

// WaitInputRead waits until the wrapper has read everything typed so far
// (the terminal's input queue is empty), failing the test at the
// Watchdog: what is typed next comes in a read of its own, later.
func (term *Terminal) WaitInputRead() {
	term.t.Helper()
	if !term.inputReadWithin(Watchdog) {
		term.t.Fatalf("watchdog: the wrapper did not read what was typed")
	}
}

// inputReadWithin reports whether the terminal's input queue is empty
// within d, every byte typed so far read by the process on it.
func (term *Terminal) inputReadWithin(d time.Duration) bool {
	term.t.Helper()
	deadline := time.Now().Add(d)
	for term.inputQueued() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// inputQueued is how many bytes typed at the terminal are waiting to be
// read.
func (term *Terminal) inputQueued() int {
	term.t.Helper()
	var n int
	err := term.control(func(fd int) (err error) {
		n, err = unix.IoctlGetInt(fd, ioctlInputQueued)
		return err
	})
	if err != nil {
		term.t.Fatalf("bytes queued at the terminal: %v", err)
	}
	return n
}

// flushInput discards what was typed at the terminal and not yet read, as
// tcflush(TCIFLUSH) does.
func (term *Terminal) flushInput() {
	term.t.Helper()
	if err := term.control(flushInput); err != nil {
		term.t.Fatalf("flush the terminal's input: %v", err)
	}
}

// control runs f on the terminal's device descriptor, leaving Slave as it
// is (File.Fd would make it blocking).
func (term *Terminal) control(f func(fd int) error) error {
	rc, err := term.Slave.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
