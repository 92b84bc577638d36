package fsutil

// FreeSpace returns the space available to the user, in bytes, on the
// file system that holds path, and where it looked: path's nearest part
// that exists (NearestExisting), since a path not yet made has no file
// system of its own. Its error is an *os.PathError naming where; on
// systems other than Linux, macOS and FreeBSD it wraps
// errors.ErrUnsupported.
func FreeSpace(path string) (free uint64, where string, err error) {
	where = NearestExisting(path)
	free, err = freeSpace(where)
	return free, where, err
}

// FreeFiles returns how many more files (inodes) can be made on the file
// system that holds path, looked up as FreeSpace does; ok is false when
// the file system sets no such limit (it reports no inodes at all, as
// btrfs does). Its error is FreeSpace's.
func FreeFiles(path string) (free uint64, ok bool, err error) {
	return freeFiles(NearestExisting(path))
}
