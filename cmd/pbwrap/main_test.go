package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// pbwrapBin is the pbwrap binary under test, built once by TestMain, with
// the race detector when the tests run with it.
var pbwrapBin string

// TestMain builds pbwrap for the end-to-end tests and gives them a store
// root of their own (PBWRAP_ROOT). The test binary also plays the
// programs those tests need (see ptytest.Dispatch): the job-control shell
// that runs pbwrap and the wrapped child that records what it sees.
func TestMain(m *testing.M) {
	ptytest.Dispatch()
	dir, err := os.MkdirTemp("", "pbwrap-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pbwrapBin = filepath.Join(dir, "pbwrap")
	// The pbwrap the tests run saves in a root of their own, never in the
	// user's (on macOS ~/Library/Caches/pbwrap); tests that look at the
	// root set their own.
	if err := os.Setenv("PBWRAP_ROOT", filepath.Join(dir, "root")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Nor does the user's config file change what the tests see.
	if err := os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args := []string{"build", "-o", pbwrapBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build pbwrap:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Every error pbwrap prints is one line with nothing a terminal would act
// on: what the user typed (a flag's name, a command's word) and paths are
// escaped (review, minor: $'--fo\no' printed two lines).
func TestExitCodeOneLine(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct {
		err  error
		want string
	}{
		{run(osStreams(), []string{"--fo\no", "true"}), "pbwrap: unknown flag --fo\\no; see pbwrap --help\n"},
		{run(osStreams(), []string{"list", "--x\x1b[2Jy"}), "pbwrap: unknown flag --x\\x1b[2Jy; see pbwrap list --help\n"},
		{run(osStreams(), []string{"--min-bytes", "1\x9b2", "true"}), "pbwrap: --min-bytes=\"1\\x9b2\": want a whole number of bytes, at least 1\n"},
		{usagef("bad \xff byte\r"), "pbwrap: bad \\xff byte\\r\n"},
		{errors.New("open /tmp/a\nb\x1b]0;t\a: no"), "pbwrap: open /tmp/a\\nb\\x1b]0;t\\a: no\n"},
		{errors.New("keeps «this» and a \\ as they are"), "pbwrap: keeps «this» and a \\ as they are\n"},
	} {
		var b strings.Builder
		exitCode(tc.err, &b)
		if got := b.String(); got != tc.want {
			t.Errorf("exitCode(%q) wrote %q, want %q", tc.err, got, tc.want)
		}
	}
}
