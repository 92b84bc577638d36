//go:build darwin || freebsd || linux

package fsutil

import (
	"path/filepath"
	"testing"
)

// FreeSpace looks where the path's nearest existing part is, and a file
// system with room to test in has some.
func TestFreeSpace(t *testing.T) {
	dir := t.TempDir()
	free, where, err := FreeSpace(filepath.Join(dir, "not", "yet"))
	if err != nil || where != dir || free == 0 {
		t.Errorf("FreeSpace(%s/not/yet) = %d, %s, %v; want some, %s, nil", dir, free, where, err, dir)
	}
	if files, ok, err := FreeFiles(filepath.Join(dir, "not", "yet")); err != nil || ok && files == 0 {
		t.Errorf("FreeFiles(%s/not/yet) = %d, %v, %v; want some, or no limit", dir, files, ok, err)
	}
}
