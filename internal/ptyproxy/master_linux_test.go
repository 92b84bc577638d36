package ptyproxy

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// Standard input and output may be the master side of a PTY (a program
// that runs pbwrap in a PTY of its own and hands it the master). Reopening
// that would open a new PTY: what the command wrote went there, and
// nothing reached the other side. pbwrap uses the descriptors it was given.
func TestStdinIsPTYMaster(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	if !isPTYMaster(int(master.Fd())) || isPTYMaster(int(slave.Fd())) {
		t.Fatal("isPTYMaster tells the master from the slave wrongly")
	}
	// The other side, read in Go's poller so that a deadline bounds it.
	fd, err := unix.Dup(int(slave.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	other := os.NewFile(uintptr(fd), "slave")
	defer other.Close()

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, wrapArg, "sh", "-c", "echo OUT-FROM-CHILD; sleep 0.2")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = master, master, master
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var got []byte
	buf := make([]byte, 4096)
	_ = other.SetReadDeadline(time.Now().Add(ptytest.Watchdog))
	for !bytes.Contains(got, []byte("OUT-FROM-CHILD")) {
		n, err := other.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("the other side of the PTY got %q, then %v", got, err)
		}
	}
}
