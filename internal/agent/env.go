package agent

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// An Env is what the package reads of the system: the environment, the
// programs on PATH and this pbwrap's own path. OS returns the real one;
// tests build their own.
type Env struct {
	// Getenv returns the value of an environment variable, "" when unset.
	Getenv func(key string) string
	// LookPath finds a program on PATH, as exec.LookPath does.
	LookPath func(file string) (string, error)
	// self returns this pbwrap's path, symbolic links resolved.
	self func() (string, error)
}

// OS is the Env of this process.
func OS() Env {
	return Env{Getenv: os.Getenv, LookPath: exec.LookPath, self: self}
}

// self is this program's path with symbolic links resolved.
func self() (string, error) {
	p, err := os.Executable()
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	return p, err
}

// errNoHome: the agents' files are found from the home directory.
var errNoHome = errors.New("$HOME is not set")

// Home is the user's home directory, $HOME, as the agents find it.
func (e Env) Home() (string, error) {
	if h := e.Getenv("HOME"); h != "" {
		return h, nil
	}
	return "", errNoHome
}

// file is name in the directory the environment variable dirVar names,
// else in inHome below the home directory: where the agents keep their
// user settings (CLAUDE_CONFIG_DIR, else ~/.claude).
func (e Env) file(dirVar, inHome, name string) (string, error) {
	if dir := e.Getenv(dirVar); dir != "" {
		return filepath.Join(dir, name), nil
	}
	home, err := e.Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, inHome, name), nil
}
