//go:build darwin || freebsd || linux

package ptyproxy

import (
	"os"
	"runtime"
	"strings"
	"syscall"
)

// spawn starts the program at path with argv and env (nil: this
// process's), files as its descriptors 0, 1, 2, ..., and sys, and returns
// its pid. The proxy and the session process wait for their children by
// pid (see ptyio.WaitExit), so spawn is syscall.ForkExec and not
// os.StartProcess: on Linux that first checks, once per process, that
// pidfds work, by starting and waiting for a child of its own, a cost
// paid on the start path twice, in pbwrap and in the session process
// (doc/performance.md). Like exec.Cmd, it keeps the last of two values
// of one variable.
func spawn(path string, argv, env []string, files []*os.File, sys *syscall.SysProcAttr) (int, error) {
	if env == nil {
		env = os.Environ()
	}
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: lastWins(env), Files: fds, Sys: sys})
	runtime.KeepAlive(files) // Their descriptors stay open until the child has them.
	if err != nil {
		return 0, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return pid, nil
}

// lastWins returns env with only the last entry of each name, where it
// was, as exec.Cmd passes it; env itself when no name repeats.
func lastWins(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	if len(last) == len(env) {
		return env
	}
	out := make([]string, 0, len(last))
	for i, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); last[name] == i {
			out = append(out, kv)
		}
	}
	return out
}
