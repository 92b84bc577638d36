//go:build darwin || freebsd || linux

package ptytest

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

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptyio"
)

// Watchdog bounds every wait of the end-to-end tests, so that a hang fails
// the test instead of blocking it. It is generous: these machines are
// shared and the race detector slows the wrapper down.
const Watchdog = 20 * time.Second

// A Job is what Start runs in a terminal: the wrapper's command line,
// followed by the command it wraps.
type Job struct {
	// Wrapper is the wrapper's command line up to the command it wraps
	// (for pbwrap: the binary, its flags, "--").
	Wrapper []string
	// Steps are the recording child's steps (see the package doc), and
	// Command what the wrapper runs instead of the recording child, when
	// set.
	Steps   []string
	Command []string
	// Env is added to the environment of the leader, the wrapper and the
	// child.
	Env []string
	// Rows and Cols are the terminal's size, 24x80 when zero.
	Rows, Cols uint16
	// Shell makes the leader read the terminal once the wrapper has
	// ended, as the shell that ran it would, and keep what it reads in
	// the file "shell" (see Terminal.Path).
	Shell bool
	// Answer is what the terminal answers, once, when it is asked whether
	// it marks pastes (termproto.Question): AnswerMarks (the zero value),
	// as xterm does, AnswerNoMarks, or AnswerNothing; AnswerAfter later,
	// as over a slow link.
	Answer      Answer
	AnswerAfter time.Duration
}

// An Answer is what a Terminal answers to termproto.Question.
type Answer string

const (
	// AnswerMarks is xterm's answer, bracketed paste on: DECRQM 1 (and 2,
	// a steady cursor, for mode 12), DA1.
	AnswerMarks Answer = ""
	// AnswerNoMarks is the answer of a terminal that does not know mode
	// 2004: DECRQM 0, DA1.
	AnswerNoMarks Answer = "\x1b[?2004;0$y\x1b[?62;22c"
	// AnswerNothing is a terminal that answers no question.
	AnswerNothing Answer = "none"
)

// question is termproto.Question, which a Terminal answers.
const question = "\x1b[?2004$p\x1b[?12$p\x1b[c"

// xtermAnswer is AnswerMarks's bytes.
const xtermAnswer = "\x1b[?2004;1$y\x1b[?12;2$y\x1b[?64;1;2;6;9;15;18;21;22c"

// A Terminal is the test playing the user's terminal: it holds the master
// side of a PTY, on whose slave side the leader runs the Job.
type Terminal struct {
	Master *os.File // the terminal: type by writing, hang up by closing
	Slave  *os.File // the terminal's device, which the leader and its jobs share

	t      *testing.T
	dir    string
	before *unix.Termios
	leader *exec.Cmd
	out    Buffer
	outEnd chan struct{}
	answer string // what to answer the question, once; "" for nothing
	after  time.Duration
}

// Start opens a PTY and runs job on it, as a job of the leader. The
// terminal and every process on it are gone when the test ends; if the
// test failed, what the terminal showed and what the helpers reported are
// logged.
func Start(t *testing.T, job Job) *Terminal {
	t.Helper()
	term := open(t, job.Rows, job.Cols)
	switch job.Answer {
	case AnswerMarks:
		term.answer = xtermAnswer
	case AnswerNothing:
	default:
		term.answer = string(job.Answer)
	}
	term.after = job.AnswerAfter
	go term.readOutput() // Ends when the master is closed or every slave holder is gone.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, job.argv(t)...)
	cmd.Env = append(os.Environ(),
		leaderEnv+"="+term.Path("leader"),
		childEnv+"=1",
		reportEnv+"="+term.Path("report"),
		inputEnv+"="+term.Path("input"),
	)
	if job.Shell {
		cmd.Env = append(cmd.Env, shellEnv+"="+term.Path("shell"))
	}
	cmd.Env = append(cmd.Env, job.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term.Slave, term.Slave, term.Slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start leader: %v", err)
	}
	term.leader = cmd
	t.Cleanup(term.cleanup)
	return term
}

// argv is the leader's command line: the wrapper's, with what it wraps.
func (job Job) argv(t *testing.T) []string {
	argv := append([]string(nil), job.Wrapper...)
	if job.Command != nil {
		return append(argv, job.Command...)
	}
	return append(argv, ChildArgv(t, job.Steps...)...)
}

// open opens the terminal's PTY, sized rows x cols (24x80 when zero), and
// saves its termios.
func open(t *testing.T, rows, cols uint16) *Terminal {
	t.Helper()
	if rows == 0 {
		rows, cols = 24, 80
	}
	master, slave, err := ptyio.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	term := &Terminal{Master: master, Slave: slave, t: t, dir: t.TempDir(), outEnd: make(chan struct{})}
	term.Resize(rows, cols)
	if term.before, err = ptyio.GetTermios(slave); err != nil {
		t.Fatalf("get termios: %v", err)
	}
	return term
}

// readOutput keeps what the terminal shows, and answers the question
// when it comes, as a terminal does: in its input, right away.
func (term *Terminal) readOutput() {
	defer close(term.outEnd)
	buf := make([]byte, 64<<10)
	var tail []byte // the end of what came before, for a question cut by a read
	for {
		n, err := term.Master.Read(buf)
		term.out.Write(buf[:n])
		if term.answer != "" {
			tail = append(tail, buf[:n]...)
			if bytes.Contains(tail, []byte(question)) {
				answer := term.answer
				time.AfterFunc(term.after, func() {
					_, _ = term.Master.WriteString(answer) // Best effort: the test sees what pbwrap made of it.
				})
				term.answer = ""
			}
			tail = tail[max(0, len(tail)-len(question)):]
		}
		if err != nil {
			return
		}
	}
}

func (term *Terminal) cleanup() {
	if pid := term.WrapperPid(); pid > 0 {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	_ = term.leader.Process.Kill()
	_ = term.leader.Wait()
	term.killGrandchildren()
	term.Master.Close()
	term.Slave.Close()
	if term.t.Failed() {
		term.t.Logf("terminal output (last 2000 bytes): %q", Tail(term.Output(), 2000))
		for _, name := range []string{"leader", "report", "report.grandchild"} {
			term.t.Logf("%s:\n%s", name, term.File(name))
		}
	}
}

// killGrandchildren kills the grandchildren the child started (its
// grandchild steps), which would otherwise outlive the test by up to a
// minute: one that ignores SIGHUP, in a session of its own, is not hung up
// with the terminal.
func (term *Terminal) killGrandchildren() {
	for _, line := range term.ReportLines("report", "grandchild ") {
		if pid, err := strconv.Atoi(strings.TrimPrefix(line, "grandchild ")); err == nil && pid > 0 {
			_ = unix.Kill(pid, unix.SIGKILL) // Best effort: it may be gone already.
		}
	}
}

// A Buffer is a bytes.Buffer that is safe for concurrent use: written by
// one goroutine, looked at by another.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes is a copy of what has been written so far.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// String is what has been written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Output is all the terminal has shown so far.
func (term *Terminal) Output() []byte { return term.out.Bytes() }

// Path is the name of the file name in the terminal's directory: "leader"
// (the leader's report), "report" (the child's), "report.grandchild",
// "input" (the child's recorded input), "shell" (what the leader read
// after the wrapper ended, with Job.Shell).
func (term *Terminal) Path(name string) string { return filepath.Join(term.dir, name) }

// File is the content of the file name in the terminal's directory, or ""
// if there is none yet.
func (term *Terminal) File(name string) string {
	b, _ := os.ReadFile(term.Path(name))
	return string(b)
}

// FileHas reports whether the file name holds want.
func (term *Terminal) FileHas(name, want string) bool {
	return strings.Contains(term.File(name), want)
}

// ReportLines returns the lines of the report file name that start with
// prefix.
func (term *Terminal) ReportLines(name, prefix string) []string {
	var lines []string
	for _, line := range strings.Split(term.File(name), "\n") {
		if strings.HasPrefix(line, prefix) {
			lines = append(lines, line)
		}
	}
	return lines
}

// WrapperPid is the wrapper's pid as the leader reported it, or 0.
func (term *Terminal) WrapperPid() int {
	lines := term.ReportLines("leader", "pid ")
	if len(lines) == 0 {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimPrefix(lines[0], "pid "))
	return pid
}

// ChildPid is the recording child's pid, from its "pid" report.
func (term *Terminal) ChildPid() int {
	term.t.Helper()
	for _, line := range term.ReportLines("report", "pid ") {
		var pid, ppid int
		if _, err := fmt.Sscanf(line, "pid %d %d", &pid, &ppid); err == nil {
			return pid
		}
	}
	term.t.Fatal("the child did not report its pid")
	return 0
}

// Termios returns the terminal's termios now.
func (term *Terminal) Termios() *unix.Termios {
	term.t.Helper()
	tio, err := ptyio.GetTermios(term.Slave)
	if err != nil {
		term.t.Fatalf("get termios: %v", err)
	}
	return tio
}

// Resize sets the terminal's size, as a user resizing the window does.
func (term *Terminal) Resize(rows, cols uint16) {
	term.t.Helper()
	if err := ptyio.SetSize(term.Master, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		term.t.Fatalf("set size: %v", err)
	}
}
