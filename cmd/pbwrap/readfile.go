package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// errTooLarge is readRegular's error for a file over its size.
var errTooLarge = errors.New("too large")

// A notRegularError is readRegular's error for a file that is not a
// regular file; Mode is its type.
type notRegularError struct{ Mode fs.FileMode }

func (e *notRegularError) Error() string { return "not a regular file" }

// readRegular reads the file at path, which must be a regular file of at
// most max bytes: the user's config file, an agent's settings. It is
// checked before it is opened (opening a device can do things) and again
// once open (it may have changed), and opened without waiting (see
// readOpenFlags). It returns the text (empty, not nil, for an empty file)
// and the file's permissions; an error wrapping fs.ErrNotExist when there
// is no file, a *notRegularError, errTooLarge, or the error of package os
// (which names the path), a read's as "read PATH: ERROR".
func readRegular(path string, max int) ([]byte, fs.FileMode, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, &notRegularError{fi.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|readOpenFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close() // Best effort: only read.
	if fi, err = f.Stat(); err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, &notRegularError{fi.Mode()}
	}
	text, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // The path is in the message already.
		}
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if len(text) > max {
		return nil, 0, errTooLarge
	}
	if text == nil {
		text = []byte{}
	}
	return text, fi.Mode().Perm(), nil
}
