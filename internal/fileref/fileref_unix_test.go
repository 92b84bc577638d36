//go:build darwin || freebsd || linux

package fileref

import (
	"errors"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Rule 4: files that are not regular are refused, without blocking on a
// named pipe that has no writer.
func TestNotRegularUnix(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s") // short: socket paths are limited to about 100 bytes
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		rule, path string
		is         error
		msg        string
	}{
		{"4: a named pipe", fifo, errNotRegular, "open " + fifo + ": not a regular file (a named pipe)"},
		{"4: a device", "/dev/null", errNotRegular, "open /dev/null: not a regular file (a device)"},
		{"4: a socket", sock, nil, ""}, // ENXIO on Linux, EOPNOTSUPP on macOS
		{"4: a file used as a directory", "/dev/null/x", syscall.ENOTDIR, "open /dev/null/x: not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			in := "{{file:" + tt.path + ":1:1}}"
			done := make(chan error, 1)
			go func() { // Ends when Expand returns; the test fails first if it hangs.
				out, err := Expand([]byte(in))
				if out != nil {
					err = errors.New("output is not nil")
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("Expand(%q) still blocked after 10s", in)
			}
			var e *Error
			if !errors.As(err, &e) || tt.is != nil && !errors.Is(err, tt.is) || e.Ref != in || e.Offset != 0 {
				t.Fatalf("Expand(%q) = %v, want an *Error for it wrapping %v", in, err, tt.is)
			}
			if tt.msg != "" && e.Err.Error() != tt.msg {
				t.Errorf("reason = %q, want %q", e.Err.Error(), tt.msg)
			}
		})
	}
}
