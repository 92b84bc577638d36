//go:build darwin || freebsd || linux

package ptyproxy

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// LookPath resolves name as a shell would before running it: a name with a
// slash is used as it is, any other is searched for in PATH. The error is
// an *ExecError whose Code is 127 when nothing is found and 126 when what
// is found cannot be executed (a directory, a file without execute
// permission).
func LookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil || errors.Is(err, exec.ErrDot) {
		return path, nil
	}
	if strings.Contains(name, "/") {
		if _, statErr := os.Stat(name); statErr != nil {
			return "", &ExecError{Name: name, Code: 127, Err: unwrapPath(statErr)}
		}
		return "", &ExecError{Name: name, Code: 126, Err: unwrapExec(err)}
	}
	// A shell reports a match in PATH that is not executable as such,
	// rather than as missing.
	if inPath(name) {
		return "", &ExecError{Name: name, Code: 126, Err: fs.ErrPermission}
	}
	return "", &ExecError{Name: name, Code: 127, Err: exec.ErrNotFound}
}

// inPath reports whether a directory in PATH holds a file called name,
// executable or not.
func inPath(name string) bool {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// Exec replaces the current process with the command: same process, same
// file descriptors, nothing wrapped. It returns only on failure, with an
// *ExecError of Code 126.
func Exec(path string, args, env []string) error {
	err := syscall.Exec(path, args, env)
	return &ExecError{Name: args[0], Code: 126, Err: err}
}
