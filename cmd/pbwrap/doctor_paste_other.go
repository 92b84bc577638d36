//go:build !darwin && !freebsd && !linux

package main

import (
	"errors"

	"github.com/pbwrap/pbwrap/capture"
)

// errNoTerminalSupport says why doctor cannot check pastes here.
var errNoTerminalSupport = errors.New("not supported on this system")

func pasteAtTerminal(capture.BurstMode) (*pasteSample, error) { return nil, errNoTerminalSupport }
