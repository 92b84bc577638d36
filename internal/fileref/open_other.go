//go:build !darwin && !freebsd && !linux

package fileref

// openFlags adds nothing where named pipes do not block an open.
const openFlags = 0
