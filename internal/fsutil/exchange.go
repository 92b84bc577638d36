package fsutil

import (
	"errors"
	"io/fs"
	"syscall"
)

// errNoExchange: the system, or the file system, cannot swap two names.
var errNoExchange = errors.New("names cannot be exchanged here")

// exchangeError is the error of an exchange: errNoExchange where the
// call or the file system does not do it (ENOSYS, EINVAL, ENOTSUP), a
// *fs.PathError otherwise.
func exchangeError(a, b string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOTSUP),
		errors.Is(err, syscall.EOPNOTSUPP):
		return errNoExchange
	}
	return &fs.PathError{Op: "exchange " + a + " and", Path: b, Err: err}
}
