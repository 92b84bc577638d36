//go:build darwin || freebsd || linux

package main

// The terminal comes back clean (issue 11): what the child turns on at the
// terminal is undone when pbwrap gives the terminal back (every way out,
// Ctrl-Z) and set again when it takes it back (fg); requests to read the
// clipboard are dropped; pbwrap reset-terminal cleans up after a program
// that could not.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"

	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// childModes are modes a child turns on: what it writes, what the terminal
// is shown of it (its bracketed paste is pbwrap's to hide), and what pbwrap
// writes to undo it and to set it again.
var childModes = []struct {
	name, set, shown, reset, restore string
}{
	{name: "alternate screen", set: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "alternate screen and bracketed paste", set: "\x1b[?1049;2004h", shown: "\x1b[?1049h", reset: "\x1b[?1049l", restore: "\x1b[?1049h"},
	{name: "mouse", set: "\x1b[?1002;1006h", reset: "\x1b[?1002l\x1b[?1006l", restore: "\x1b[?1002h\x1b[?1006h"},
	{name: "mouse motion", set: "\x1b[?1003h\x1b[?1015h", reset: "\x1b[?1003l\x1b[?1015l", restore: "\x1b[?1003h\x1b[?1015h"},
	{name: "focus events", set: "\x1b[?1004h", reset: "\x1b[?1004l", restore: "\x1b[?1004h"},
	{name: "hidden cursor", set: "\x1b[?25l", reset: "\x1b[?25h", restore: "\x1b[?25l"},
	{name: "cursor keys", set: "\x1b[?1h", reset: "\x1b[?1l", restore: "\x1b[?1h"},
	{name: "keypad", set: "\x1b=", reset: "\x1b>", restore: "\x1b="},
	{name: "kitty keyboard", set: "\x1b[>1u", reset: "\x1b[<1u", restore: "\x1b[>1u"},
	{name: "kitty keyboard stack", set: "\x1b[>1u\x1b[>11u\x1b[>15u\x1b[<u", reset: "\x1b[<2u", restore: "\x1b[>1u\x1b[>11u"},
	{name: "modifyOtherKeys", set: "\x1b[>4;2m", reset: "\x1b[>4m", restore: "\x1b[>4;2m"},
	// The test's terminal answers as xterm does that its cursor does not
	// blink: after DECSCUSR 0, a blinking block in xterm, that is put back.
	{name: "cursor style", set: "\x1b[6 q", reset: "\x1b[0 q\x1b[?12l", restore: "\x1b[6 q"},
	{name: "synchronized output", set: "\x1b[?2026h", reset: "\x1b[?2026l"},
	{name: "no autowrap", set: "\x1b[?7l", reset: "\x1b[?7h", restore: "\x1b[?7l"},
	{
		name:    "all at once",
		set:     allModesOn,
		reset:   "\x1b[<1u\x1b[?1049l\x1b[?1000l\x1b[?1006l\x1b[?1004l\x1b[?1l\x1b[?25h\x1b>\x1b[>4m\x1b[0 q\x1b[?12l\x1b[?2026l",
		restore: "\x1b[?1049h\x1b[>1u\x1b[?1000h\x1b[?1006h\x1b[?1004h\x1b[?1h\x1b[?25l\x1b=\x1b[>4;2m\x1b[6 q",
	},
	{name: "all, then cleaned up by the child", set: allModesOn + allModesOff},
}

// allModesOn turns on what an agent's full-screen interface does, and
// allModesOff is its own cleanup.
const (
	allModesOn  = "\x1b[?1049h\x1b[>1u\x1b[?1000;1006h\x1b[?1004h\x1b[?25l\x1b[?1h\x1b=\x1b[>4;2m\x1b[6 q\x1b[?2026h"
	allModesOff = "\x1b[?2026l\x1b[0 q\x1b[>4m\x1b>\x1b[?1l\x1b[?25h\x1b[?1004l\x1b[?1000;1006l\x1b[<u\x1b[?1049l"
)

// quickExit is for the environment of the processes a test runs: built
// with the race detector, each sleeps a second as it exits, unless told
// not to.
var quickExit = "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")

// writeStep is the child's step that writes s.
func writeStep(s string) string { return "write:" + strconv.Quote(s) }

// afterReady returns what the terminal has shown after the child's READY
// line, its last output: what pbwrap wrote after the child's last byte,
// once that ends with want (or the watchdog has passed: the test fails).
func afterReady(term *terminal, ready, want string) string {
	var tail []byte
	waitOutput(func(out []byte) bool {
		if i := bytes.Index(out, []byte(ready)); i >= 0 {
			tail = out[i+len(ready):]
		}
		return bytes.HasSuffix(tail, []byte(want))
	}, term)
	return string(tail)
}

// outputFrom returns what the terminal has shown from offset from on, once
// it is as long as want (or the watchdog has passed: the test fails).
func outputFrom(term *terminal, from int, want string) string {
	var got []byte
	waitOutput(func(out []byte) bool { got = out[from:]; return len(got) >= len(want) }, term)
	return string(got)
}

// waitOutput waits until done says yes to the terminal's output, or the
// watchdog has passed. The reader of the terminal may lag behind what
// pbwrap wrote, even once pbwrap has ended or stopped.
func waitOutput(done func([]byte) bool, term *terminal) {
	for deadline := time.Now().Add(ptytest.Watchdog); !done(term.Output()) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}

// The child exits, or dies of SIGKILL: the bytes pbwrap writes after the
// child's last byte are exactly the resets for what the child left on,
// then bracketed paste off; nothing extra for a child that cleaned up.
func TestModesResetAtExit(t *testing.T) {
	for _, m := range childModes {
		for _, how := range []string{"exit", "SIGKILL"} {
			t.Run(m.name+"/"+how, func(t *testing.T) {
				steps := []string{"raw", "pid", writeStep(m.set), "ready", "exit:0"}
				if how == "SIGKILL" {
					steps[len(steps)-1] = "block"
				}
				term := startPbwrap(t, ptytest.Job{Steps: steps, Env: []string{quickExit}})
				term.WaitReport("ready")
				want := "exit 0"
				if how == "SIGKILL" {
					if err := syscall.Kill(term.ChildPid(), syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					want = "exit 137"
				}
				term.WantExit(want)
				shown := m.shown
				if shown == "" {
					shown = m.set
				}
				wantTail := m.reset + termproto.PasteOff
				if tail := afterReady(term, "READY\r\n", wantTail); tail != wantTail {
					t.Errorf("after the child's last byte pbwrap wrote %q, want %q", tail, wantTail)
				}
				// Bracketed paste on, pbwrap's question (termproto.Question),
				// then the child's own.
				if head := termproto.PasteOn + termproto.Question + shown + "READY\r\n"; !bytes.HasPrefix(term.Output(), []byte(head)) {
					t.Errorf("terminal got %q, want it to start %q", term.Output(), head)
				}
			})
		}
	}
}

// Ctrl-Z: once the child is stopped, pbwrap writes exactly the resets for
// what it left on (after the terminal's echo of ^Z, if any), so that the
// shell's prompt is on the normal screen with a working keyboard; on fg
// exactly the child's modes back, with bracketed paste on, before the child
// runs, then the child gets the size.
func TestModesAtCtrlZAndFg(t *testing.T) {
	for _, m := range childModes {
		t.Run(m.name, func(t *testing.T) {
			term := startPbwrap(t, ptytest.Job{Steps: []string{writeStep(m.set), "watch", "ready", "block"}, Env: []string{quickExit}})
			term.WaitReport("ready")
			term.Type([]byte{0x1a}, 0) // Ctrl-Z
			term.WaitLeader("stopped SIGTSTP")
			wantTail := m.reset + termproto.PasteOff
			tail := afterReady(term, "READY\r\r\n", wantTail)
			if strings.TrimPrefix(tail, "^Z") != wantTail {
				t.Errorf("at Ctrl-Z, after the child's last byte pbwrap wrote %q, want %q", tail, wantTail)
			}
			stopped := len(term.Output())

			term.SignalLeader(syscall.SIGUSR1)
			term.WaitLeader("did SIGUSR1")
			term.Resize(30, 100)
			term.SignalLeader(syscall.SIGUSR2) // fg
			term.WaitReport("size 30 100")
			if got, want := outputFrom(term, stopped, termproto.PasteOn+m.restore), termproto.PasteOn+m.restore; got != want {
				t.Errorf("on fg pbwrap wrote %q, want %q", got, want)
			}
			term.Type([]byte{0x03}, 0) // Ctrl-C
			term.WantExit("exit 130")
			// At exit, after the set-up of fg and the echo of ^C, the resets.
			var since string
			waitOutput(func(out []byte) bool {
				since = string(out[stopped:])
				return len(since) > len(termproto.PasteOn+m.restore) && strings.HasSuffix(since, wantTail)
			}, term)
			if want := termproto.PasteOn + m.restore + "^C" + wantTail; since != want && since != strings.Replace(want, "^C", "", 1) {
				t.Errorf("after fg the terminal got %q, want %q", since, want)
			}
		})
	}
}

// A child's request to read the terminal's clipboard never reaches the
// terminal, and the log says so; with --allow-clipboard-read it does.
// Clipboard writes pass either way.
func TestClipboardReadDropped(t *testing.T) {
	const read, write = "\x1b]52;c;?\x07", "\x1b]52;c;aGk=\x1b\\"
	for _, allow := range []bool{false, true} {
		t.Run("allowed="+strconv.FormatBool(allow), func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "log")
			flags := []string{"--log", logFile}
			if allow {
				flags = append(flags, "--allow-clipboard-read")
			}
			term := startPbwrap(t, ptytest.Job{Steps: []string{"raw", writeStep("a" + read + "b" + write + "c"), "ready", "exit:0"}, Env: []string{quickExit}}, flags...)
			term.WantExit("exit 0")
			shown := "ab" + write + "c"
			if allow {
				shown = "a" + read + "b" + write + "c"
			}
			want := termproto.PasteOn + termproto.Question + shown + "READY\r\n" + termproto.PasteOff
			waitOutput(func(out []byte) bool { return bytes.HasSuffix(out, []byte(termproto.PasteOff)) }, term)
			if string(term.Output()) != want {
				t.Errorf("terminal got %q, want %q", term.Output(), want)
			}
			log, _ := os.ReadFile(logFile)
			if dropped := bytes.Contains(log, []byte("read the terminal's clipboard")); dropped == allow {
				t.Errorf("allowed %v: the log %q, want it to tell of the drop only when not allowed", allow, log)
			}
		})
	}
}

// pbwrap reset-terminal writes the full reset to standard output when it
// is a terminal, else to the controlling terminal, and exits 0; with no
// terminal at all it fails.
func TestResetTerminalCommand(t *testing.T) {
	want := string(fullReset())
	for _, tc := range []struct {
		name          string
		stdoutIsPipe  bool
		noTerminal    bool
		wantStatus    int
		wantTerminal  string
		wantStderrHas string
	}{
		{name: "stdout a terminal", wantTerminal: want},
		{name: "stdout a pipe", stdoutIsPipe: true, wantTerminal: want},
		{name: "no terminal", stdoutIsPipe: true, noTerminal: true, wantStatus: 1, wantStderrHas: "reset-terminal: no terminal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave, err := ptyio.OpenPTY()
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			defer slave.Close()
			got := make(chan string, 1)
			go func() { // Ends when the slave side is closed below.
				var b bytes.Buffer
				buf := make([]byte, 4096)
				for {
					n, err := master.Read(buf)
					b.Write(buf[:n])
					if err != nil {
						got <- b.String()
						return
					}
				}
			}()
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(pbwrapBin, "reset-terminal")
			cmd.Env = append(os.Environ(), quickExit)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, &stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: !tc.noTerminal}
			if tc.stdoutIsPipe {
				cmd.Stdout = &stdout
			}
			err = runWithin(t, cmd)
			if code := cmd.ProcessState.ExitCode(); code != tc.wantStatus {
				t.Errorf("pbwrap reset-terminal exited %d (%v), want %d; stderr %q", code, err, tc.wantStatus, stderr.String())
			}
			slave.Close()
			if terminal := <-got; terminal != tc.wantTerminal {
				t.Errorf("the terminal got %q, want %q", terminal, tc.wantTerminal)
			}
			if stdout.Len() > 0 || !strings.Contains(stderr.String(), tc.wantStderrHas) {
				t.Errorf("stdout %q, stderr %q; want nothing on stdout, and %q on stderr", stdout.String(), stderr.String(), tc.wantStderrHas)
			}
		})
	}
}
