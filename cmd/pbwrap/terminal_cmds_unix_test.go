//go:build darwin || freebsd || linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/store"
)

// runWithTerminalStdin runs the built pbwrap with args, its standard input
// a terminal on which input is typed at once (the line discipline keeps
// it until pbwrap reads), its output and errors captured. It fails the
// test at the watchdog instead of hanging.
func runWithTerminalStdin(t *testing.T, input string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	master, slave, err := ptyio.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	var out, errOut bytes.Buffer
	cmd := exec.Command(pbwrapBin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &out, &errOut
	// Typed before pbwrap starts: the line discipline keeps it.
	if err := master.SetWriteDeadline(time.Now().Add(ptytest.Watchdog)); err != nil {
		t.Fatal(err)
	}
	if _, err := master.WriteString(input); err != nil {
		t.Fatalf("type %q: %v", input, err)
	}
	err = runWithin(t, cmd)
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestExpandSaysItReadsTerminal: bare pbwrap expand on a terminal says on
// stderr that it reads standard input, and how to end it; then it
// expands what was typed as it would a file. (Off a terminal it says
// nothing: expand.txtar.)
func TestExpandSaysItReadsTerminal(t *testing.T) {
	for _, args := range [][]string{{"expand"}, {"expand", "-"}} {
		stdout, stderr, code := runWithTerminalStdin(t, "typed text\n\x04", args...)
		if code != 0 || stdout != "typed text\n" || stderr != readingStdin+"\n" {
			t.Errorf("pbwrap %s on a terminal: exit %d, stdout %q, stderr %q; want 0, the text typed, and %q",
				strings.Join(args, " "), code, stdout, stderr, readingStdin)
		}
	}
}

// TestCleanAllAsks: clean --all on a terminal lists the sessions it
// would remove and removes them only when the answer is yes; --yes does
// not ask. (Off a terminal, --all needs --yes: clean.txtar.)
func TestCleanAllAsks(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		yes, removed bool
	}{
		{name: "yes", answer: "y\n", removed: true},
		{name: "YES", answer: "YES\n", removed: true},
		{name: "no", answer: "n\n"},
		{name: "empty line", answer: "\n"},
		{name: "end of input", answer: "\x04"},
		{name: "--yes", yes: true, removed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := realDir(t)
			dir := makeEndedSession(t, root)
			args := []string{"--root", root, "clean", "--all"}
			if tc.yes {
				args = append(args, "--yes")
			}
			stdout, stderr, code := runWithTerminalStdin(t, tc.answer, args...)
			_, statErr := os.Stat(dir)
			if gone := errors.Is(statErr, os.ErrNotExist); code != 0 || gone != tc.removed {
				t.Fatalf("exit %d, session removed %v, want 0 and %v; stdout %q, stderr %q", code, gone, tc.removed, stdout, stderr)
			}
			asked := strings.Contains(stderr, "remove 1 session (")
			if asked == tc.yes || (!tc.yes && !strings.Contains(stderr, "session "+filepath.Base(dir)+": 1 paste")) {
				t.Errorf("stderr %q: want the session listed and the question asked only without --yes", stderr)
			}
			if !tc.removed && (!strings.Contains(stderr, "nothing removed\n") || stdout != "") {
				t.Errorf("stdout %q, stderr %q: want \"nothing removed\" and no cleanup", stdout, stderr)
			}
			if tc.removed && !strings.Contains(stdout, "removed session "+filepath.Base(dir)) {
				t.Errorf("stdout %q: want the session's removal", stdout)
			}
		})
	}
}

// TestCleanAllRemovesOnlyWhatWasListed: clean --all removes the sessions
// it listed when it asked, and no other. A session that was running when
// the list was made, and ended while the question was open, is kept:
// the user was not asked about it. (Review finding 1: it was removed.)
func TestCleanAllRemovesOnlyWhatWasListed(t *testing.T) {
	root := realDir(t)
	ended := makeEndedSession(t, root)
	running := makeSession(t, root)
	defer running.Close() // Best effort: closed below, unless the test failed before.
	term := ptytest.Start(t, ptytest.Job{
		Wrapper: []string{pbwrapBin, "--root", root, "clean", "--all"},
		Command: []string{},
	})
	term.WaitOutput("remove 1 session (")
	term.WaitOutput("[y/N] ")
	if err := running.Close(); err != nil { // Its pbwrap ends: no longer running.
		t.Fatal(err)
	}
	term.Type([]byte("y\r"), 1)
	term.WaitOutput("freed ")
	term.WantExit("exit 0")
	out := string(term.Output())
	if _, err := os.Stat(ended); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the listed session %s was kept (%v); output %q", ended, err, out)
	}
	if _, err := os.Stat(running.Dir); err != nil {
		t.Errorf("the session that ended after the question was removed without being listed (%v); output %q", err, out)
	}
	if strings.Contains(out, filepath.Base(running.Dir)) {
		t.Errorf("output %q names the session that was not listed", out)
	}
}

// makeEndedSession makes, under root, a session with one saved paste
// whose pbwrap has ended, and returns its directory.
func makeEndedSession(t *testing.T, root string) string {
	t.Helper()
	sess := makeSession(t, root)
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	return sess.Dir
}

// makeSession makes, under root, a session with one saved paste, and
// returns it open: running, until it is closed.
func makeSession(t *testing.T, root string) *store.Session {
	t.Helper()
	r, err := store.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	id, err := store.NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := r.NewSession(id, store.Meta{PID: 4242, Argv0: "claude", Start: time.Now(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	text := []byte("pasted\n")
	tmp, err := sess.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write(text); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(text)
	n, path, _, err := sess.CommitPaste(tmp, hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	rec := store.PasteRecord{N: n, Path: path, Bytes: int64(len(text)), Lines: 1, SHA256: hex.EncodeToString(sum[:]),
		Time: time.Now(), Outcome: store.OutcomeSaved, Reference: "[paste saved: " + path + "]"}
	if err := sess.Record(rec); err != nil {
		t.Fatal(err)
	}
	return sess
}
