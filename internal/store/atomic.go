package store

import (
	"path/filepath"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// writeFileAtomic replaces the file at path with data, mode 0600, so that
// a reader finds the old file or the new one, never a mix, also after a
// crash (fsutil.WriteFileAtomic), its temp file named tempPrefix + the
// file's name + "-" and digits, so that listing and cleanup know it. Its
// errors are those of package os, which name the paths. Without durable
// neither the file nor the directory is synced: a reader still never
// sees a mix, but a crash may lose the file.
func writeFileAtomic(path string, data []byte, durable bool) error {
	return fsutil.WriteFileAtomic(path, data, fsutil.WriteOptions{
		Perm:        0o600,
		TempPattern: tempPrefix + filepath.Base(path) + "-*",
		Durable:     durable,
	})
}
