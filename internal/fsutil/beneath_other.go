//go:build !darwin && !freebsd && !linux

package fsutil

import (
	"errors"
	"os"
)

func openBeneath(dir *os.File, name string) (*os.File, error) {
	return nil, pathError(name, errors.ErrUnsupported)
}

func walkBeneath(dir *os.File, name string) (*os.File, error) {
	return nil, pathError(name, errors.ErrUnsupported)
}
