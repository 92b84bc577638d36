package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pbwrapBin is the pbwrap binary under test, built once by TestMain with
// the pbwrap_testhooks tag (see testhooks.go), and with the race detector
// when the tests run with it.
var pbwrapBin string

// TestMain builds pbwrap for the end-to-end tests. The test binary also
// plays the programs those tests need, chosen by environment variable: the
// wrapped child that records what it sees (PBWRAP_TEST_CHILD) and the
// job-control shell that runs pbwrap (PBWRAP_TEST_LEADER).
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("PBWRAP_TEST_LEADER") != "":
		os.Exit(leaderMain(os.Args[1:]))
	case os.Getenv("PBWRAP_TEST_CHILD") != "":
		os.Exit(childMain(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "pbwrap-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pbwrapBin = filepath.Join(dir, "pbwrap")
	args := []string{"build", "-tags", "pbwrap_testhooks", "-o", pbwrapBin}
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
