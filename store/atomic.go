package store

import (
	"os"
	"path/filepath"
)

// writeFileAtomic replaces the file at path with data, mode 0600, so that
// a reader finds the old file or the new one, never a mix, also after a
// crash: a temp file in the same directory (O_EXCL, 0600), written,
// synced, closed and renamed over path, then the directory synced. Its
// errors are those of package os, which name the paths. Without durable
// neither the file nor the directory is synced: a reader still never
// sees a mix, but a crash may lose the file.
func writeFileAtomic(path string, data []byte, durable bool) (err error) {
	dir := filepath.Dir(path)
	// os.CreateTemp opens with O_CREATE|O_EXCL and mode 0600.
	f, err := os.CreateTemp(dir, tempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = f.Close()           // Best effort: it may be closed already.
			_ = os.Remove(f.Name()) // Best effort.
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if durable {
		if err := syncFile(f); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	renamed = true
	if !durable {
		return nil
	}
	return syncDir(dir)
}
