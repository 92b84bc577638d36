//go:build !darwin && !freebsd && !linux

package ptyio

import (
	"errors"
	"fmt"
	"os"
)

func openTTY(path string) (*os.File, error) {
	return nil, &os.PathError{Op: "open", Path: path, Err: errors.ErrUnsupported}
}

func controllingTTY() (*os.File, error) { return openTTY("/dev/tty") }

func (q terminalQuery) askModes(*os.File) (string, string, error) {
	return "", "", fmt.Errorf("ask the terminal: %w", errors.ErrUnsupported)
}

func control(*os.File, func(fd int) error) error { return errors.ErrUnsupported }

func flushInput(int) error { return errors.ErrUnsupported }
