package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
