//go:build !darwin && !freebsd && !linux

package pasteref

// openFlags adds nothing where named pipes do not block an open.
const openFlags = 0
