//go:build darwin || freebsd || linux

package ptytest

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Stopped follows a process through a stop and a continue, on this
// system, by its own call (/proc or sysctl).
func TestStopped(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	want := func(what string, stopped bool) {
		t.Helper()
		deadline := time.Now().Add(Watchdog)
		for {
			got, err := Stopped(pid)
			if errors.Is(err, errors.ErrUnsupported) {
				t.Skipf("process state: %v", err)
			}
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got == stopped {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("watchdog: %s: Stopped = %v, want %v", what, got, stopped)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	want("running", false)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	want("after SIGSTOP", true)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	want("after SIGCONT", false)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := Stopped(pid); err == nil {
		t.Errorf("Stopped of a process that is gone: no error")
	}
}
