//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/ptyproxy"
	"golang.org/x/sys/unix"
)

// watchdog bounds every wait of the end-to-end tests, so that a hang fails
// the test instead of blocking it. It is generous: these machines are
// shared and the race detector slows pbwrap down.
const watchdog = 20 * time.Second

// terminal is the test playing the user's terminal: it holds the master
// side of a PTY, on whose slave side a job-control shell (leaderMain) runs
// pbwrap, which runs the test binary as the recording child (childMain).
type terminal struct {
	t       *testing.T
	master  *os.File
	slave   *os.File
	dir     string
	rootDir string // pbwrap's store root, for capture tests
	before  *unix.Termios

	leader *exec.Cmd
	out    lockedBuffer
	outEnd chan struct{}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// session describes one run of pbwrap in a terminal.
type session struct {
	rows, cols uint16
	env        []string // extra environment for pbwrap and the child
	flags      []string // pbwrap's flags, before "--"
	steps      []string // the child's steps
	command    []string // what pbwrap wraps, when not the recording child
}

// childArgv is the command line pbwrap wraps: the test binary as the
// recording child.
func childArgv(t *testing.T, steps ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{self}, steps...)
}

// startTerminal opens a PTY and runs pbwrap on it, as a job of the leader.
func startTerminal(t *testing.T, s session) *terminal {
	t.Helper()
	if s.rows == 0 {
		s.rows, s.cols = 24, 80
	}
	master, slave, err := ptyproxy.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	if err := ptyproxy.SetSize(master, s.rows, s.cols); err != nil {
		t.Fatalf("set size: %v", err)
	}
	term := &terminal{t: t, master: master, slave: slave, dir: t.TempDir(), outEnd: make(chan struct{})}
	if term.before, err = unix.IoctlGetTermios(int(slave.Fd()), ioctlReadTermios); err != nil {
		t.Fatalf("get termios: %v", err)
	}
	go func() { // Ends when the master is closed or every slave holder is gone.
		defer close(term.outEnd)
		buf := make([]byte, 64<<10)
		for {
			n, err := master.Read(buf)
			term.out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{pbwrapBin}, s.flags...)
	args = append(args, "--")
	if s.command != nil {
		args = append(args, s.command...)
	} else {
		args = append(args, childArgv(t, s.steps...)...)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(),
		"PBWRAP_TEST_LEADER="+term.path("leader"),
		"PBWRAP_TEST_CHILD=1",
		"PBWRAP_TEST_REPORT="+term.path("report"),
		"PBWRAP_TEST_INPUT="+term.path("input"),
	)
	cmd.Env = append(cmd.Env, s.env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start leader: %v", err)
	}
	term.leader = cmd
	t.Cleanup(term.cleanup)
	return term
}

func (term *terminal) path(name string) string { return filepath.Join(term.dir, name) }

func (term *terminal) cleanup() {
	if pid := term.pbwrapPid(); pid > 0 {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	_ = term.leader.Process.Kill()
	_ = term.leader.Wait()
	term.master.Close()
	term.slave.Close()
	if term.t.Failed() {
		term.t.Logf("terminal output (last 2000 bytes): %q", tail(term.out.Bytes(), 2000))
		for _, name := range []string{"leader", "report", "report.grandchild"} {
			b, _ := os.ReadFile(term.path(name))
			term.t.Logf("%s:\n%s", name, b)
		}
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// pbwrapPid is pbwrap's pid as the leader reported it, or 0.
func (term *terminal) pbwrapPid() int {
	b, _ := os.ReadFile(term.path("leader"))
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "pid "); ok {
			pid, _ := strconv.Atoi(rest)
			return pid
		}
	}
	return 0
}

// waitFor polls until cond is true, failing the test at the watchdog.
func (term *terminal) waitFor(what string, cond func() bool) {
	term.t.Helper()
	deadline := time.Now().Add(watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			term.t.Fatalf("watchdog: gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (term *terminal) fileHas(name, want string) bool {
	b, _ := os.ReadFile(term.path(name))
	return strings.Contains(string(b), want)
}

// waitReport waits until the child has reported a line containing want.
func (term *terminal) waitReport(want string) {
	term.t.Helper()
	term.waitFor(fmt.Sprintf("child report %q", want), func() bool { return term.fileHas("report", want) })
}

// waitLeader waits until the leader has reported a line containing want.
func (term *terminal) waitLeader(want string) {
	term.t.Helper()
	term.waitFor(fmt.Sprintf("leader report %q", want), func() bool { return term.fileHas("leader", want) })
}

// waitOutput waits until the terminal has shown want.
func (term *terminal) waitOutput(want string) {
	term.t.Helper()
	term.waitFor(fmt.Sprintf("output %q", want), func() bool { return bytes.Contains(term.out.Bytes(), []byte(want)) })
}

// waitInput waits until the child has recorded n bytes of input and
// returns them.
func (term *terminal) waitInput(n int) []byte {
	term.t.Helper()
	var got []byte
	term.waitFor(fmt.Sprintf("%d bytes of input", n), func() bool {
		got, _ = os.ReadFile(term.path("input"))
		return len(got) >= n
	})
	return got
}

// type_ writes p to the terminal as if typed or pasted, in chunks of at
// most chunk bytes (all at once when chunk is 0).
func (term *terminal) type_(p []byte, chunk int) {
	term.t.Helper()
	if chunk <= 0 {
		chunk = len(p)
	}
	for len(p) > 0 {
		n := min(chunk, len(p))
		if _, err := term.master.Write(p[:n]); err != nil {
			term.t.Fatalf("write to terminal: %v", err)
		}
		p = p[n:]
	}
}

// exit waits for pbwrap to end and returns how, as the leader saw it:
// "exit N" or "signal N".
func (term *terminal) exit() string {
	term.t.Helper()
	var how string
	term.waitFor("pbwrap to exit", func() bool {
		b, _ := os.ReadFile(term.path("leader"))
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "exit ") || strings.HasPrefix(line, "signal ") {
				how = line
				return true
			}
		}
		return false
	})
	return how
}

// wantExit waits for pbwrap to end and checks how it ended and that the
// terminal's termios are exactly as before pbwrap started.
func (term *terminal) wantExit(want string) {
	term.t.Helper()
	if got := term.exit(); got != want {
		term.t.Errorf("pbwrap ended with %q, want %q", got, want)
	}
	term.wantTermiosRestored()
}

func (term *terminal) wantTermiosRestored() {
	term.t.Helper()
	after, err := unix.IoctlGetTermios(int(term.slave.Fd()), ioctlReadTermios)
	if err != nil {
		term.t.Fatalf("get termios: %v", err)
	}
	if *after != *term.before {
		term.t.Errorf("termios not restored:\n got %+v\nwant %+v", *after, *term.before)
	}
}

// reportLines returns the child's report lines that start with prefix.
func (term *terminal) reportLines(name, prefix string) []string {
	b, _ := os.ReadFile(term.path(name))
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, prefix) {
			lines = append(lines, line)
		}
	}
	return lines
}

// signalPbwrap sends sig to pbwrap, as another process would.
func (term *terminal) signalPbwrap(sig syscall.Signal) {
	term.t.Helper()
	var pid int
	// The leader writes the pid after starting pbwrap, which may already
	// be running the child.
	term.waitFor("pbwrap's pid", func() bool { pid = term.pbwrapPid(); return pid > 0 })
	if err := unix.Kill(pid, sig); err != nil {
		term.t.Fatalf("signal pbwrap: %v", err)
	}
}

// continuePbwrap sends SIGCONT to pbwrap as a shell's kill does after its
// signal; pbwrap may have ended by then.
func (term *terminal) continuePbwrap() {
	term.t.Helper()
	if err := unix.Kill(term.pbwrapPid(), syscall.SIGCONT); err != nil && err != unix.ESRCH {
		term.t.Fatalf("continue pbwrap: %v", err)
	}
}
