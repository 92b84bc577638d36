//go:build darwin || freebsd || linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// pasteUnsaved types mark, pastes body, then types mark again, and wants
// the child to get in between the paste exactly as pasted (bracketed when
// the child has bracketed paste on, bp), then the note that it was not
// saved, for why: nothing lost, and the user told at once, in the
// agent's input.
func (term *terminal) pasteUnsaved(mark string, bp bool, body, why string) {
	term.t.Helper()
	got := term.pasteBetween(mark, body)
	want := bracket(bp, body) + unsavedNote(bp, why)
	if !bp {
		// The note waits capture.NoteGap, after the mark typed at once.
		want = body
		term.waitInputHas(mark + capture.UnsavedNote(why))
	}
	if got != want {
		term.t.Errorf("between %q and %q the child got %d bytes, want the %d pasted and the note; first difference at %d, its end: %q",
			mark, mark, len(got), len(want), diffAt(got, want), ptytest.Tail([]byte(got), 200))
	}
}

// A root the user cannot write in (mode 0500): pbwrap says so at start,
// each large paste goes in whole with the note, and doctor finds it
// (issue 39: doctor said all was well). Root's processes write there
// anyway; unsaved_linux_test.go has the read-only file system, for root
// too.
func TestUnsavedRootNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes in a directory of mode 0500")
	}
	root := filepath.Join(realDir(t), "root")
	if err := os.Mkdir(root, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(root, 0o700) })
	term := startCapture(t, true, "PBWRAP_ROOT="+root)
	if out := string(term.Output()); !strings.Contains(out, "pbwrap: not saving pastes: ") || !strings.Contains(out, "permission denied") {
		t.Errorf("before the child started the terminal showed %q, want pbwrap's line saying permission denied", ptytest.Tail([]byte(out), 300))
	}
	term.pasteUnsaved("#1#", true, ptytest.Lines(300, "kept"), "permission denied")
	wantDoctorFinds(t, root, "(permission denied)")
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// A root open to others (mode 0777), at start or made so in the middle
// of a session, is no reason not to save: pbwrap makes it 0700, as the
// root's rules say, and saves; the user sees references, no note.
func TestRootOpenToOthersTightened(t *testing.T) {
	root := filepath.Join(realDir(t), "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o777); err != nil { // Past the umask.
		t.Fatal(err)
	}
	term := startCapture(t, true, "PBWRAP_ROOT="+root)
	term.rootDir = root
	wantMode(t, root, 0o700)
	term.pasteSaved("#1#", ptytest.Lines(300, "first"))
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	term.pasteSaved("#2#", ptytest.Lines(300, "second"))
	wantMode(t, root, 0o700)
	if out := string(term.Output()); strings.Contains(out, "not saving") {
		t.Errorf("the terminal showed %q, want nothing from pbwrap", ptytest.Tail([]byte(out), 300))
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// wantDoctorFinds runs pbwrap doctor on root and wants it to find that
// saving fails there, and why: exit 1, and a problem that says want.
func wantDoctorFinds(t *testing.T, root, want string) {
	t.Helper()
	cmd := exec.Command(pbwrapBin, "--root", root, "doctor")
	cmd.Env = append(os.Environ(), "PBWRAP_SESSION=")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("pbwrap doctor on %s: %v, want exit status 1\n%s", root, err, out)
	}
	problems := string(out)
	if i := strings.Index(problems, "problem(s):"); i >= 0 {
		problems = problems[i:]
	}
	if !strings.Contains(problems, want) {
		t.Errorf("pbwrap doctor on %s does not say that saving fails (%s):\n%s", root, want, out)
	}
}
