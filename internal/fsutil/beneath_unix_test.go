//go:build darwin || freebsd || linux

package fsutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// beneathTree makes a directory with files, a subdirectory, symbolic links
// and a named pipe, and a file beside it that is outside it.
func beneathTree(t *testing.T) (dir *os.File, path string) {
	t.Helper()
	top := t.TempDir()
	path = filepath.Join(top, "d")
	for _, d := range []string{path, filepath.Join(path, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"d/f": "f\n", "d/sub/g": "g\n", "outside": "secret\n"} {
		if err := os.WriteFile(filepath.Join(top, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"d/link":     "f",                             // to a file inside
		"d/dirlink":  "sub",                           // to a directory inside
		"d/out":      filepath.Join(top, "outside"),   // to a file outside
		"d/sub/up":   "..",                            // to the parent, inside
		"d/dangling": filepath.Join(top, "d", "gone"), // to nothing
	} {
		if err := os.Symlink(target, filepath.Join(top, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(path, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return dir, path
}

var beneathTests = []struct {
	name string
	want string // the content, "dir" for a directory, "fifo" for the pipe
	err  error  // errors.Is
}{
	{name: "f", want: "f\n"},
	{name: "sub/g", want: "g\n"},
	{name: "./sub//./g", want: "g\n"},
	{name: "sub/../f", want: "f\n"},
	{name: "sub/../sub/g", want: "g\n"},
	{name: ".", want: "dir"},
	{name: "", want: "dir"},
	{name: "sub/", want: "dir"},
	{name: "sub/..", want: "dir"},
	{name: "fifo", want: "fifo"},
	{name: "missing", err: syscall.ENOENT},
	{name: "sub/missing/g", err: syscall.ENOENT},
	{name: "f/", err: syscall.ENOTDIR},
	{name: "f/x", err: syscall.ENOTDIR},
	{name: "..", err: ErrOutside},
	{name: "../outside", err: ErrOutside},
	{name: "sub/../../outside", err: ErrOutside},
	{name: "/etc/passwd", err: ErrOutside},
	{name: "link", err: ErrSymlink},
	{name: "out", err: ErrSymlink},
	{name: "dangling", err: ErrSymlink},
	{name: "dirlink/g", err: ErrSymlink},
	{name: "sub/up/f", err: ErrSymlink},
	{name: "dirlink/", err: ErrSymlink},
}

// Both ways of opening beneath a directory agree, case by case: on Linux
// this runs the openat2 path and the fallback walk.
func TestOpenBeneath(t *testing.T) {
	dir, path := beneathTree(t)
	for _, open := range []struct {
		name string
		fn   func(*os.File, string) (*os.File, error)
	}{{"OpenBeneath", OpenBeneath}, {"WalkBeneath", WalkBeneath}} {
		for _, tt := range beneathTests {
			f, err := openWithin(t, open.fn, dir, tt.name)
			if tt.err != nil {
				var pe *os.PathError
				if f != nil || !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Path != tt.name {
					t.Errorf("%s(%q) = %v, %v; want an *os.PathError for the name wrapping %v", open.name, tt.name, f, err, tt.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s(%q): %v", open.name, tt.name, err)
				continue
			}
			if got := describe(t, f); got != tt.want {
				t.Errorf("%s(%q) opened %q, want %q", open.name, tt.name, got, tt.want)
			}
			f.Close()
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// openWithin runs open with a watchdog: a named pipe must not block it.
func openWithin(t *testing.T, open func(*os.File, string) (*os.File, error), dir *os.File, name string) (*os.File, error) {
	t.Helper()
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() { // Ends when open returns; the test fails first if it hangs.
		f, err := open(dir, name)
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("opening %q still blocked after 10s", name)
		return nil, nil
	}
}

// describe says what f is: its content, "dir" or "fifo".
func describe(t *testing.T, f *os.File) string {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case fi.IsDir():
		return "dir"
	case fi.Mode()&os.ModeNamedPipe != 0:
		return "fifo"
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The directory stays open and usable after any number of opens below it.
func TestOpenBeneathKeepsDir(t *testing.T) {
	dir, _ := beneathTree(t)
	for range 3 {
		for _, name := range []string{"sub/../f", "..", "link"} {
			if f, err := WalkBeneath(dir, name); err == nil {
				f.Close()
			}
		}
	}
	if _, err := dir.Stat(); err != nil {
		t.Fatalf("dir after the walks: %v", err)
	}
	if names, err := dir.Readdirnames(-1); err != nil || len(names) == 0 {
		t.Fatalf("Readdirnames after the walks = %v, %v", names, err)
	}
}
