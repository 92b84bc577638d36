//go:build !darwin && !linux

package fsutil

// exchange: FreeBSD and the others have no call that swaps two names, so
// WriteFileAtomic compares before a plain rename there.
func exchange(a, b string) error { return errNoExchange }
