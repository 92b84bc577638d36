//go:build !darwin && !freebsd && !linux

package main

import (
	"errors"
	"time"
)

// errNoTerminalSupport says why doctor cannot look at the terminal or the
// file system here.
var errNoTerminalSupport = errors.New("not supported on this system")

func freeSpace(path string) (uint64, string, error) { return 0, path, errNoTerminalSupport }

func queryBracketedPaste(time.Duration) (string, error) { return "", errNoTerminalSupport }
