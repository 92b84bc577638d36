//go:build darwin || freebsd || linux

package ptyio

import (
	"bytes"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// watchdog bounds every wait of these tests, as ptytest.Watchdog does
// elsewhere (ptytest imports this package, so tests here cannot import it),
// so that a hang fails the test instead of blocking it.
const watchdog = 20 * time.Second

// Answers as terminals write them.
const (
	da1XTerm = "\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c" // the longest in common use
	da1VTE   = "\x1b[?65;1;9c"
	da1Old   = "\x1b[?1;2c" // a VT100
	focusIn  = "\x1b[I"
	focusOut = "\x1b[O"
)

func decrpm(ps string) string { return "\x1b[?2004;" + ps + "$y" }

// sentinel is what the user types once the query is over: the first
// thing the shell reads after it must be what followed the answers, then
// this.
const sentinel = "Z\n"

// TestQueryTerminal plays the terminal on the master side of a PTY while
// the query runs on its slave side, opened as QueryTerminal opens
// /dev/tty (OpenTTY): a blocking descriptor that Go cannot give a
// deadline, as /dev/tty on macOS. Whether the terminal answers at once,
// in pieces, late, never, or only DA1, the query returns what came in
// time, nothing of the answers is left for the shell to read, and the
// terminal's settings are exactly as before. Regression test for issue 9, point 2: on macOS doctor
// reported "did not answer" and left the answers in the shell's input.
func TestQueryTerminal(t *testing.T) {
	answers := decrpm("2") + da1VTE
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		grace   time.Duration
		answer  []string // written once the question is in, piece by piece
		late    string   // written when the deadline has passed without DA1
		want    string
		next    string // what the shell reads next, before the sentinel
	}{
		// Answers that end with DA1 end the wait: a timeout beyond the
		// watchdog shows it.
		{name: "at once", timeout: time.Hour, answer: []string{answers}, want: "2"},
		{name: "split", timeout: time.Hour, answer: []string{"\x1b", "[?20", "04;1", "$", "y\x1b[?6", "4;1;2", "c"}, want: "1"},
		{name: "around a focus event", timeout: time.Hour, answer: []string{focusIn + decrpm("3"), focusOut, da1XTerm}, want: "3"},
		{name: "not supported", timeout: time.Hour, answer: []string{decrpm("0") + da1Old}, want: "0"},
		{name: "only DA1", timeout: time.Hour, answer: []string{da1VTE}, want: ""},
		{name: "typing after the answers", timeout: time.Hour, answer: []string{answers + "ls\n"}, want: "2", next: "ls\n"},
		// The rest wait for the deadline. Late answers are written when it
		// has passed, by the query itself, so that no clock decides whether
		// they are late.
		{name: "never", timeout: 50 * time.Millisecond, grace: lateGrace, want: ""},
		{name: "late", timeout: 50 * time.Millisecond, grace: lateGrace, late: answers, want: ""},
		{name: "late, without DA1", timeout: 50 * time.Millisecond, grace: lateGrace, late: decrpm("1"), want: ""},
		{name: "late, after the grace", timeout: 50 * time.Millisecond, grace: 0, late: answers, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openTestPTY(t)
			before, err := GetTermios(slave)
			if err != nil {
				t.Fatal(err)
			}
			played := playTerminal(master, tc.answer)
			q := terminalQuery{timeout: tc.timeout, grace: tc.grace}
			if tc.late != "" {
				q.late = func() { _, _ = master.WriteString(tc.late) }
			}
			got, err := runQuery(t, q, slave.Name())
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
			if err := <-played; err != nil {
				t.Errorf("terminal: %v", err)
			}
			if after, err := GetTermios(slave); err != nil || *after != *before {
				t.Errorf("termios after the query:\n%+v, %v\nwant\n%+v", after, err, before)
			}
			if read := shellReads(t, master, slave.Name()); read != tc.next+sentinel {
				t.Errorf("the shell then reads %q, want %q", read, tc.next+sentinel)
			}
		})
	}
}

// TestQueryTerminalMode: during the question a Ctrl-C is a byte, not a
// signal, and reads wait for the terminal at most one VTIME tick, so that
// the deadline can be kept; the rest of the settings stay.
func TestQueryTerminalMode(t *testing.T) {
	_, slave := openTestPTY(t)
	saved, err := GetTermios(slave)
	if err != nil {
		t.Fatal(err)
	}
	got := QuestionMode(saved)
	want := *saved
	want.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG
	want.Cc[unix.VMIN], want.Cc[unix.VTIME] = 0, 1
	if *got != want {
		t.Errorf("question mode\n%+v\nwant\n%+v", *got, want)
	}
	if saved.Lflag&unix.ISIG == 0 || got.Lflag&unix.ISIG != 0 {
		t.Errorf("ISIG: saved %v, question %v; want on, then off", saved.Lflag&unix.ISIG != 0, got.Lflag&unix.ISIG != 0)
	}
}

// openTestPTY opens a PTY whose slave is cooked, with echo, and has VMIN
// and VTIME of its own, so that the query must restore them.
func openTestPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, slave, err := OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	tios, err := GetTermios(slave)
	if err != nil {
		t.Fatal(err)
	}
	tios.Lflag |= unix.ECHO | unix.ICANON | unix.ISIG
	tios.Cc[unix.VMIN], tios.Cc[unix.VTIME] = 3, 7
	if err := SetTermios(slave, tios); err != nil {
		t.Fatal(err)
	}
	return master, slave
}

// playTerminal reads the question on master and answers it with answer,
// piece by piece. It sends the outcome on the channel it returns.
func playTerminal(master *os.File, answer []string) <-chan error {
	done := make(chan error, 1)
	go func() { // Ends once the answer is written, or at the watchdog.
		done <- answerQuestion(master, answer)
	}()
	return done
}

func answerQuestion(master *os.File, answer []string) error {
	if err := master.SetReadDeadline(time.Now().Add(watchdog)); err != nil {
		return err
	}
	var got []byte
	buf := make([]byte, 64)
	for len(got) < len(termproto.PasteQuestion) {
		n, err := master.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return err
		}
	}
	if string(got) != termproto.PasteQuestion {
		return errors.New("asked " + string(got))
	}
	for i, piece := range answer {
		if i > 0 {
			time.Sleep(10 * time.Millisecond) // Not a timing assertion: a pause that lets the query read the piece before.
		}
		if _, err := master.WriteString(piece); err != nil {
			return err
		}
	}
	return nil
}

// runQuery runs q on the terminal at path, opened as
// QueryTerminal opens /dev/tty, failing the test at the watchdog, or, for
// a query whose deadline comes before it, at ten times what the query may
// take by its deadline: its timeout, its grace, and a read's VTIME tick
// (QuestionMode) beyond them.
func runQuery(t *testing.T, q terminalQuery, path string) (string, error) {
	t.Helper()
	const vtimeTick = 100 * time.Millisecond
	bound := watchdog
	if q.timeout < watchdog {
		bound = min(watchdog, 10*(q.timeout+q.grace+vtimeTick))
	}
	tty, err := OpenTTY(path)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		state string
		err   error
	}
	done := make(chan result, 1)
	go func() { // Ends when the query does, or is left behind at the watchdog.
		defer tty.Close()
		state, _, err := q.askModes(tty)
		done <- result{state, err}
	}()
	select {
	case r := <-done:
		return r.state, r.err
	case <-time.After(bound):
		t.Fatalf("watchdog: the query did not return within %v", bound)
		return "", nil
	}
}

// shellReads types the sentinel on master and returns what the shell
// reads from the terminal at path up to it: anything the query left
// unread comes first.
func shellReads(t *testing.T, master *os.File, path string) string {
	t.Helper()
	shell, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer shell.Close()
	if err := shell.SetReadDeadline(time.Now().Add(watchdog)); err != nil {
		t.Fatalf("read %s with a deadline: %v", path, err)
	}
	if _, err := master.WriteString(sentinel); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 256)
	for !bytes.HasSuffix(got, []byte(sentinel)) {
		n, err := shell.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("read %s after %q: %v", path, got, err)
		}
	}
	return string(got)
}
