package fsutil

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A kernel without openat2 (ENOSYS), or a seccomp filter that refuses it
// (EPERM), sends OpenBeneath to the walk, for that call and every later one.
func TestOpenBeneathFallback(t *testing.T) {
	dir, _ := beneathTree(t)
	for _, errno := range []unix.Errno{unix.ENOSYS, unix.EPERM} {
		calls := 0
		saved := openat2
		openat2 = func(int, string, *unix.OpenHow) (int, error) { calls++; return -1, errno }
		t.Cleanup(func() { openat2 = saved; noOpenat2.Store(false) })
		noOpenat2.Store(false)
		for _, tt := range beneathTests {
			f, err := OpenBeneath(dir, tt.name)
			if (err == nil) != (tt.err == nil) {
				t.Errorf("with openat2 failing with %v: OpenBeneath(%q) = %v, want the walk's answer (error %v)", errno, tt.name, err, tt.err)
			}
			if f != nil {
				f.Close()
			}
		}
		if calls != 1 || !noOpenat2.Load() {
			t.Errorf("openat2 failing with %v was tried %d times, want once and then the walk", errno, calls)
		}
		openat2 = saved
		noOpenat2.Store(false)
	}
	if _, err := OpenBeneath(dir, "f"); err != nil {
		t.Fatal(err)
	}
	if noOpenat2.Load() {
		t.Error("openat2 marked missing after a working call")
	}
}
