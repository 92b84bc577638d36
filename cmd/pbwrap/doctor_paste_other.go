//go:build !darwin && !freebsd && !linux

package main

import "github.com/pbwrap/pbwrap/capture"

func pasteAtTerminal(capture.BurstMode) (*pasteSample, error) { return nil, errNoTerminalSupport }
