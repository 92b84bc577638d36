//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// A read of the terminal that ends is a hang-up when the terminal can no
// longer be asked about, or when pbwrap owns it in raw mode (the terminal
// is not always torn down yet: macOS ends such reads at once and detaches
// the terminal later, Linux wakes its readers first); not when it is
// cooked (a Ctrl-D), in the background (EIO is the refusal), or when the
// read failed otherwise.
func TestHangUpSeen(t *testing.T) {
	gone := errors.New("ENOTTY")
	closedErr := &os.PathError{Op: "read", Path: "/dev/tty", Err: os.ErrClosed}
	for _, c := range []struct {
		err                   error
		pgrpErr               error
		foreground, canonical bool
		want                  bool
	}{
		{io.EOF, gone, false, true, true},
		{syscall.EIO, gone, false, true, true},
		{io.EOF, nil, true, false, true},                          // macOS: the other side closed; Linux, before vhangup.
		{&os.PathError{Err: syscall.EIO}, nil, true, false, true}, // Linux: the other side closed.
		{io.EOF, nil, true, true, false},                          // A Ctrl-D while the terminal is cooked.
		{io.EOF, nil, false, false, false},
		{syscall.EIO, nil, false, true, false}, // In the background.
		{closedErr, gone, true, false, false},  // pbwrap closed its own descriptor.
		{syscall.EINTR, gone, true, false, false},
	} {
		if got := hangUpSeen(c.err, c.pgrpErr, c.foreground, c.canonical); got != c.want {
			t.Errorf("hangUpSeen(%v, %v, foreground %v, canonical %v) = %v, want %v",
				c.err, c.pgrpErr, c.foreground, c.canonical, got, c.want)
		}
	}
}
