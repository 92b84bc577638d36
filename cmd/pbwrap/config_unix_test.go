//go:build darwin || freebsd || linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// A named pipe or a device at the config file's path is refused at once:
// a named pipe hung every command (review finding 4), /dev/zero would be
// read without end.
func TestReadConfigFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: "config file: " + fifo + " is a named pipe, not a regular file",
		zero: "config file: " + zero + " is a device, not a regular file",
	} {
		done := make(chan error, 1)
		go func() { // Ends when readConfigFile returns, at once with the fix.
			_, _, err := readConfigFile(path, nil)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != want {
				t.Errorf("readConfigFile(%s): error %v, want %q", path, err, want)
			}
		case <-time.After(ptytest.Watchdog):
			t.Fatalf("readConfigFile(%s) still waits after %v", path, ptytest.Watchdog)
		}
	}
}

// A bad line of the config file, wrapping a command on a terminal: one
// line on the terminal, before the command starts (it owns the terminal
// after), the same in the log, and the command runs with the rest of the
// file (issue 39: the line stopped it, exit 2).
func TestConfigWarningBeforeCommand(t *testing.T) {
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "pbwrap"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(xdg, "pbwrap", "config")
	if err := os.WriteFile(file, []byte("PBWRAP_MINBYTES=100\nPBWRAP_MIN_LINES=3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "log")
	term := startPbwrap(t, ptytest.Job{Steps: []string{"env:PBWRAP_MIN_LINES", "ready", "exit:0"},
		Env: []string{"XDG_CONFIG_HOME=" + xdg, "PBWRAP_LOG=" + logFile}})
	term.WantExit("exit 0")
	term.WaitReport("env PBWRAP_MIN_LINES=3")
	want := "pbwrap: " + file + ":1: unknown setting PBWRAP_MINBYTES (did you mean PBWRAP_MIN_BYTES?); the line is ignored\r\n"
	out := string(term.Output())
	if !strings.HasPrefix(out, want) || strings.Count(out, "PBWRAP_MINBYTES") != 1 || strings.Index(out, want) > strings.Index(out, "READY") {
		t.Errorf("the terminal showed %q, want once, before the command's READY: %q", out, want)
	}
	if log, _ := os.ReadFile(logFile); !strings.Contains(string(log), "config: "+file+":1: unknown setting PBWRAP_MINBYTES") {
		t.Errorf("the log does not say it:\n%s", log)
	}
}
