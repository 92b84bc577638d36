//go:build !darwin && !freebsd && !linux

package ptyproxy

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// errUnsupported is what the proxy's functions return here.
var errUnsupported = fmt.Errorf("ptyproxy: %w on %s: it needs a Unix terminal (Linux, macOS, FreeBSD)", errors.ErrUnsupported, runtime.GOOS)

// Run fails on this system with an error that wraps errors.ErrUnsupported.
func Run(cfg Config) (int, error) { return 0, errUnsupported }

// A Pending run cannot be had on this system (see Start).
type Pending struct{}

// Start fails on this system with an error that wraps
// errors.ErrUnsupported.
func Start() (*Pending, error) { return nil, errUnsupported }

// Run fails on this system with an error that wraps errors.ErrUnsupported.
func (p *Pending) Run(cfg Config) (int, error) { return 0, errUnsupported }

// Close does nothing on this system.
func (p *Pending) Close() {}

// Exec fails on this system with an error that wraps errors.ErrUnsupported.
func Exec(path string, args, env []string) error { return errUnsupported }

// LookPath fails on this system with an error that wraps
// errors.ErrUnsupported.
func LookPath(name string) (string, error) { return "", errUnsupported }

// RunShim says on this system that the proxy is not supported, and returns
// status 1.
func RunShim() int {
	fmt.Fprintln(os.Stderr, "pbwrap:", errUnsupported)
	return 1
}
