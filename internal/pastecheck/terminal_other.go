//go:build !darwin && !freebsd && !linux

package pastecheck

import "errors"

// errNoTerminalSupport says why doctor cannot check pastes here.
var errNoTerminalSupport = errors.New("not supported on this system")

// AtTerminal cannot run the check here: pbwrap reads terminals on Linux,
// macOS and FreeBSD only.
func AtTerminal(Policy) (*Sample, error) { return nil, errNoTerminalSupport }
