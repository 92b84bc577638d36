//go:build darwin || freebsd || linux

package main

import (
	"os"
	"path/filepath"
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
