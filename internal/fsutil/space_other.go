//go:build !darwin && !freebsd && !linux

package fsutil

import (
	"errors"
	"os"
)

func freeSpace(path string) (uint64, error) {
	return 0, &os.PathError{Op: "statfs", Path: path, Err: errors.ErrUnsupported}
}

func freeFiles(path string) (uint64, bool, error) {
	return 0, false, &os.PathError{Op: "statfs", Path: path, Err: errors.ErrUnsupported}
}
