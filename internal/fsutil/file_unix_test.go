//go:build darwin || freebsd || linux

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ReadRegular reads a regular file whole, and refuses, without reading or
// waiting, anything else and a file over its size; ReadRegularNoFollow
// also refuses a symbolic link.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, perm fs.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), perm); err != nil {
			t.Fatal(err)
		}
		return path
	}
	text := write("text", "hello\n", 0o640)
	empty := write("empty", "", 0o600)
	big := write("big", strings.Repeat("x", 11), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(text, link); err != nil {
		t.Fatal(err)
	}
	var notRegular *NotRegularError
	var tooLarge *TooLargeError
	for _, tc := range []struct {
		name, path string
		noFollow   bool
		want       string
		perm       fs.FileMode
		err        func(error) bool
		msg        string
	}{
		{name: "a file", path: text, want: "hello\n", perm: 0o640},
		{name: "empty", path: empty, want: "", perm: 0o600},
		{name: "through a link", path: link, want: "hello\n", perm: 0o640},
		{name: "a link, not followed", path: link, noFollow: true,
			err: func(err error) bool { return errors.As(err, &notRegular) }, msg: "read " + link + ": a symbolic link, not a regular file"},
		{name: "a file, not followed", path: text, noFollow: true, want: "hello\n", perm: 0o640},
		{name: "missing", path: filepath.Join(dir, "none"),
			err: func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{name: "a directory", path: dir,
			err: func(err error) bool { return errors.As(err, &notRegular) }, msg: "read " + dir + ": a directory, not a regular file"},
		{name: "a named pipe", path: fifo,
			err: func(err error) bool { return errors.As(err, &notRegular) }, msg: "read " + fifo + ": a named pipe, not a regular file"},
		{name: "a device", path: "/dev/null",
			err: func(err error) bool { return errors.As(err, &notRegular) }, msg: "read /dev/null: a device, not a regular file"},
		{name: "too large", path: big,
			err: func(err error) bool { return errors.As(err, &tooLarge) && tooLarge.Size == 11 }, msg: "read " + big + ": 11 bytes, more than 10"},
	} {
		done := make(chan struct{})
		go func() { // Ends when the read does; waited for below, or the test fails.
			defer close(done)
			read := ReadRegular
			if tc.noFollow {
				read = ReadRegularNoFollow
			}
			got, perm, err := read(tc.path, 10)
			switch {
			case tc.err == nil && (err != nil || string(got) != tc.want || got == nil || perm != tc.perm):
				t.Errorf("%s: %q, %v, %v; want %q, %v", tc.name, got, perm, err, tc.want, tc.perm)
			case tc.err != nil && !tc.err(err):
				t.Errorf("%s: %q, %v; want the error", tc.name, got, err)
			case tc.msg != "" && (err == nil || err.Error() != tc.msg):
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.msg)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the read blocked", tc.name)
		}
	}
}

// WriteFileAtomic replaces the file with the permissions asked for, and
// leaves no temp file behind; its temp file is named by the pattern.
func TestWriteFileAtomic(t *testing.T) {
	for _, durable := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(path, []byte("new"), WriteOptions{Perm: 0o640, TempPattern: ".x-*", Durable: durable}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		fi, serr := os.Stat(path)
		if err != nil || serr != nil || string(got) != "new" || fi.Mode().Perm() != 0o640 {
			t.Errorf("durable %v: the file holds %q (%v), mode %v (%v); want \"new\", 0640", durable, got, err, fi.Mode(), serr)
		}
		if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
			t.Errorf("durable %v: the directory holds %q, want the file alone", durable, names)
		}
	}
	// A directory that is not there: the error names it.
	missing := filepath.Join(t.TempDir(), "missing")
	err := WriteFileAtomic(filepath.Join(missing, "f"), []byte("new"), WriteOptions{Perm: 0o600})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("a file in a missing directory: %v, want fs.ErrNotExist naming %s", err, missing)
	}
	// A rename that fails (over a directory that is not empty) leaves what
	// was there, and no temp file.
	dir := t.TempDir()
	path := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(path, "in"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("new"), WriteOptions{Perm: 0o600}); err == nil {
		t.Error("a rename over a directory: no error")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) != 0 {
		t.Errorf("a failed write left %q", names)
	}
}

func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	if err := SyncDir(dir); err != nil {
		t.Errorf("SyncDir(%s): %v", dir, err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(link); err != nil {
		t.Errorf("SyncDir through a link: %v", err)
	}
	if err := SyncDir(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncDir of nothing: %v, want fs.ErrNotExist", err)
	}
}

// BeforeRename runs once the new file is whole, and its error leaves the
// old file in place and no temp file behind; Owner gives the new file
// its owner (as root only).
func TestWriteFileAtomicBeforeRenameAndOwner(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	errNo := errors.New("changed meanwhile")
	var sawTemp bool
	err := WriteFileAtomic(path, []byte("new"), WriteOptions{Perm: 0o600, BeforeRename: func() error {
		tmp, _ := filepath.Glob(filepath.Join(dir, ".f.tmp-*"))
		sawTemp = len(tmp) == 1
		return errNo
	}})
	if !errors.Is(err, errNo) || !sawTemp {
		t.Fatalf("WriteFileAtomic: %v (temp file written first: %v), want %v", err, sawTemp, errNo)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("the file holds %q, want the old text", b)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".f.tmp-*")); len(tmp) != 0 {
		t.Fatalf("temp files left: %v", tmp)
	}
	if os.Geteuid() != 0 {
		return
	}
	if err := WriteFileAtomic(path, []byte("new"), WriteOptions{Perm: 0o640, Owner: &FileID{UID: 65534, GID: 65534}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := Identity(fi); id.UID != 65534 || id.GID != 65534 || fi.Mode().Perm() != 0o640 {
		t.Fatalf("owner %d:%d mode %v, want 65534:65534 0640", id.UID, id.GID, fi.Mode())
	}
}

// Issue 37: pbwrap setup lost about one write in 700 of an agent that
// changed its settings file meanwhile: the compare came before the rename,
// and a write between them was replaced. With Displaced, the new file and
// the old swap names first and the old one is compared after: a write at
// that moment (the test writes there, where a concurrent writer would) is
// found, swapped back, and kept. Where names cannot be swapped (FreeBSD),
// BeforeRename's compare is all there is: the test says so and stops.
func TestWriteFileAtomicKeepsAConcurrentWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() { beforeReplace = func() {} }()
	beforeReplace = func() {
		// The agent writes its settings as Node.js does: a temp file of its
		// own renamed over the path.
		tmp := path + ".agent"
		if err := os.WriteFile(tmp, []byte("the agent's"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	unchanged := func(read func() ([]byte, error)) error {
		now, err := read()
		if err != nil {
			return err
		}
		if string(now) != "old" {
			return errors.New("changed")
		}
		return nil
	}
	err := WriteFileAtomic(path, []byte("setup's"), WriteOptions{
		Perm:         0o600,
		BeforeRename: func() error { return unchanged(func() ([]byte, error) { return os.ReadFile(path) }) },
		Displaced: func(name string) error {
			return unchanged(func() ([]byte, error) { return os.ReadFile(name) })
		},
	})
	got, _ := os.ReadFile(path)
	if errors.Is(exchange(path, path), errNoExchange) {
		t.Skipf("no exchange here: the compare before the rename is all (err %v, file %q)", err, got)
	}
	if err == nil || string(got) != "the agent's" {
		t.Fatalf("WriteFileAtomic: %v, the file holds %q: the agent's write was lost", err, got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
