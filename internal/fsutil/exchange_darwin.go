package fsutil

import "golang.org/x/sys/unix"

// exchange swaps the files at a and b in one step: renamex_np with
// RENAME_SWAP. errNoExchange when the file system cannot.
func exchange(a, b string) error {
	err := ignoringEINTR(func() error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) })
	return exchangeError(a, b, err)
}
