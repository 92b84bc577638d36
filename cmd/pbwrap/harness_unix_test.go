//go:build darwin || freebsd || linux

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// terminal is a test terminal (see ptytest) in which the built pbwrap
// runs.
type terminal struct {
	*ptytest.Terminal
	t       *testing.T
	rootDir string // pbwrap's store root, for capture tests
}

// startPbwrap runs pbwrap with flags on job in a test terminal.
func startPbwrap(t *testing.T, job ptytest.Job, flags ...string) *terminal {
	t.Helper()
	job.Wrapper = append(append([]string{pbwrapBin}, flags...), "--")
	return &terminal{Terminal: ptytest.Start(t, job), t: t}
}

// realDir returns a new temporary directory with symlinks resolved, for
// tests that compare a path they build with one pbwrap resolved (the
// root's, the references'): on macOS t.TempDir is under /var, a symlink
// to /private/var.
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitReady waits until the child has reported "ready" and the terminal
// shows its READY line. The line passes through pbwrap's output filter
// after everything the child wrote before it, so pbwrap has then seen the
// child turn bracketed paste on: a paste typed earlier may rightly reach
// the child without markers.
func (term *terminal) waitReady() {
	term.t.Helper()
	term.WaitReport("ready")
	term.WaitOutput("READY")
}

// runWithin runs cmd to its end, as cmd.Run does, but kills it and fails
// the test at the watchdog instead of hanging: what pbwrap does on a
// terminal may wait, and none of it should. It returns cmd.Wait's error.
func runWithin(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // Ends when the command does, or is killed below.
	select {
	case err := <-done:
		return err
	case <-time.After(ptytest.Watchdog):
		_ = cmd.Process.Kill() // Best effort: the test fails anyway.
		<-done
		t.Fatalf("watchdog: %s did not end within %v", strings.Join(cmd.Args, " "), ptytest.Watchdog)
		return nil
	}
}
