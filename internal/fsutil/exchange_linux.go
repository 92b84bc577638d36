package fsutil

import "golang.org/x/sys/unix"

// exchange swaps the files at a and b in one step: renameat2 with
// RENAME_EXCHANGE. errNoExchange when the file system cannot.
func exchange(a, b string) error {
	err := ignoringEINTR(func() error { return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) })
	return exchangeError(a, b, err)
}
