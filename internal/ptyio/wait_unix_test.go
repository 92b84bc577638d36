//go:build darwin || freebsd || linux

package ptyio

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
)

// WaitExit sees this system's own stops, by the signal that stops no
// matter what (SIGSTOP) and by the one Ctrl-Z sends (SIGTSTP), and the
// death that follows. sleep runs in a process group of its own, which is
// not orphaned: its parent, the test, is in another group of the same
// session. The kernel discards SIGTSTP sent to an orphaned group, which
// the test's own may be (go test started by a CI runner, or under
// setsid), and sleep would then run its whole minute and exit 0.
func TestWaitExitStops(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGSTOP, syscall.SIGTSTP} {
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		if err := syscall.Kill(pid, sig); err != nil {
			t.Fatal(err)
		}
		var stops []int
		st, err := WaitExit(pid, func(n int) {
			stops = append(stops, n)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{int(sig)}; !slices.Equal(stops, want) {
			t.Errorf("%v: stops %v, want %v", sig, stops, want)
		}
		if want := (WaitState{Kind: Killed, N: int(syscall.SIGKILL)}); st != want {
			t.Errorf("%v: ended %+v, want %+v", sig, st, want)
		}
	}
}

func TestWaitExitCode(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st, err := WaitExit(cmd.Process.Pid, func(int) { t.Error("a stop") })
	if want := (WaitState{Kind: Exited, N: 3}); err != nil || st != want {
		t.Errorf("got %+v, %v; want %+v", st, err, want)
	}
}
