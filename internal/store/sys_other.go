//go:build !darwin && !freebsd && !linux

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// errNotUnix is what the store's system calls return where there is no
// Unix to make them (Windows; AIX, which has no flock): pbwrap stores
// pastes only on Unix systems, and elsewhere refuses to run ("pbwrap needs
// a Unix terminal"). This file only lets the package build.
var errNotUnix = fmt.Errorf("store needs a Unix system, not %s: %w", runtime.GOOS, errors.ErrUnsupported)

const (
	lockExclusive = iota
	lockSharedProbe
	lockUnlock
)

func openNoFollow(path string, _ int, _ fs.FileMode) (*os.File, error) {
	return nil, &fs.PathError{Op: "open", Path: path, Err: errNotUnix}
}

func openDirNoFollow(path string) (*os.File, error) { return openNoFollow(path, 0, 0) }
func openExisting(path string) (*os.File, error)    { return openNoFollow(path, 0, 0) }
func dupFile(f *os.File) (*os.File, error)          { return openNoFollow(f.Name(), 0, 0) }

func flock(f *os.File, _ int) error {
	return &fs.PathError{Op: "flock", Path: f.Name(), Err: errNotUnix}
}

func touch(path string) error           { return &fs.PathError{Op: "touch", Path: path, Err: errNotUnix} }
func unlink(string) error               { return errNotUnix }
func rmdir(string) error                { return errNotUnix }
func canCreateIn(string) error          { return errNotUnix }
func isWouldBlock(error) bool           { return false }
func isNotEmpty(error) bool             { return false }
func ownerUID(fs.FileInfo) (int, error) { return 0, errNotUnix }
