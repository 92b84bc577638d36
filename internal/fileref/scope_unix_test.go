//go:build darwin || freebsd || linux

package fileref

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// openers runs a test with each way of opening beneath a directory: on
// Linux openat2, then the portable walk that is its fallback and the only
// way on macOS and FreeBSD.
func openers(t *testing.T, test func(t *testing.T)) {
	for _, o := range []struct {
		name string
		fn   func(*os.File, string) (*os.File, error)
	}{{"OpenBeneath", fsutil.OpenBeneath}, {"WalkBeneath", fsutil.WalkBeneath}} {
		t.Run(o.name, func(t *testing.T) {
			saved := beneath
			beneath = o.fn
			t.Cleanup(func() { beneath = saved })
			test(t)
		})
	}
}

// Issue 10, point 6: the scope check resolved the path and opened it
// later, so a symlink swapped in between leaked a file outside the scope
// (28 of 400 runs). A goroutine swaps the referenced name between a
// symlink to a secret outside the working directory and a regular file
// while the hook expands it: the secret never comes out.
func TestHookScopeRace(t *testing.T) {
	openers(t, func(t *testing.T) {
		work, outside := realDir(t), realDir(t)
		writeFile(t, filepath.Join(outside, "secret"), "SECRET\n")
		name := filepath.Join(work, "f")
		writeFile(t, name, "inside\n")
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // Ends when stop is closed, and is waited for.
			defer wg.Done()
			swap(t, stop, name, filepath.Join(outside, "secret"))
		}()
		in := claudeWrite(work, "{{file:"+name+":1:1}}")
		leaks, expanded := 0, 0
		const runs = 400
		for range runs {
			out, err := writeHook(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out, []byte("SECRET")) {
				leaks++
			}
			if bytes.Contains(out, []byte(`"content":"inside\n"`)) {
				expanded++
			}
		}
		close(stop)
		wg.Wait()
		if leaks > 0 {
			t.Errorf("the secret outside the working directory leaked in %d of %d runs", leaks, runs)
		}
		t.Logf("%d of %d runs expanded the regular file; the others were denied", expanded, runs)
	})
}

// swap replaces name, again and again until stop is closed, by a symlink
// to target and by a regular file, each renamed over it.
func swap(t *testing.T, stop <-chan struct{}, name, target string) {
	tmp := name + ".swap"
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		os.Remove(tmp)
		var err error
		if i%2 == 0 {
			err = os.Symlink(target, tmp)
		} else {
			err = os.WriteFile(tmp, []byte("inside\n"), 0o600)
		}
		if err == nil {
			err = os.Rename(tmp, name)
		}
		if err != nil {
			t.Error(err)
			return
		}
	}
}

// The rules for links, in the working directory and in pbwrap's root, where
// the agent can write too: a hard link there to ~/.ssh/id_rsa is refused as
// below the working directory (issue 28).
func TestHookLinks(t *testing.T) {
	openers(t, func(t *testing.T) {
		work, root, outside := realDir(t), realDir(t), realDir(t)
		secret := filepath.Join(outside, "secret")
		writeFile(t, secret, "SECRET\n")
		writeFile(t, filepath.Join(work, "sub", "a.txt"), "in the work tree\n")
		writeFile(t, filepath.Join(work, "b.txt"), "in the work tree too\n")
		writeFile(t, filepath.Join(outside, "kept"), "kept by the user\n")
		writeFile(t, filepath.Join(root, "paste-1.txt"), "a paste\n")
		for _, l := range []struct{ old, new string }{
			{secret, filepath.Join(work, "hard")},                         // a hard link to a file outside
			{filepath.Join(work, "b.txt"), filepath.Join(work, "hard2")},  // to one inside: the same to the hook
			{filepath.Join(outside, "kept"), filepath.Join(root, "hard")}, // in the root: the same (issue 28)
		} {
			if err := os.Link(l.old, l.new); err != nil {
				t.Skipf("hard links: %v", err)
			}
		}
		for _, l := range []struct{ target, name string }{
			{filepath.Join(work, "sub", "a.txt"), filepath.Join(work, "link")}, // to a file inside
			{filepath.Join(work, "sub"), filepath.Join(work, "dirlink")},       // to a directory inside
			{secret, filepath.Join(work, "out")},                               // to a file outside
			{filepath.Join(root, "paste-1.txt"), filepath.Join(root, "link")},  // inside the root
		} {
			if err := os.Symlink(l.target, l.name); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			path, why string // why "" expands
		}{
			{filepath.Join(work, "sub", "a.txt"), ""},
			{filepath.Join(work, "sub", "..", "sub", "a.txt"), ""},
			{filepath.Join(root, "paste-1.txt"), ""},
			{filepath.Join(root, "hard"), "more than one hard link, so it may be a file from outside the working directory or pbwrap's root"},
			{filepath.Join(work, "hard"), "more than one hard link, so it may be a file from outside the working directory"},
			{filepath.Join(work, "hard2"), "(it has 2)"},
			{filepath.Join(work, "b.txt"), "(it has 2)"},
			{filepath.Join(work, "link"), "symbolic link, which a hook does not follow (refer to the file by its real path)"},
			{filepath.Join(work, "dirlink", "a.txt"), "symbolic link"},
			{filepath.Join(work, "out"), "symbolic link"},
			{filepath.Join(root, "link"), "symbolic link"},
			{work + "/sub/../../" + filepath.Base(outside) + "/secret", "outside the working directory"},
			{secret, "outside the working directory"},
		}
		for _, tt := range tests {
			out, err := writeHook(claudeWrite(work, "{{file:"+tt.path+":1:1}}"), []string{root})
			switch {
			case err != nil:
				t.Errorf("%s: %v", tt.path, err)
			case bytes.Contains(out, []byte("SECRET")):
				t.Errorf("%s: %s, the secret came out", tt.path, out)
			case tt.why == "" && !bytes.Contains(out, []byte("updatedInput")):
				t.Errorf("%s: %s, want it expanded", tt.path, out)
			case tt.why != "" && !denied(out, tt.why):
				t.Errorf("%s: %s, want it denied saying %q", tt.path, out, tt.why)
			}
		}
	})
}

// The working directory "/" is not a scope: it would expose every file. A
// file in pbwrap's root still expands.
func TestHookCwdSlash(t *testing.T) {
	openers(t, func(t *testing.T) {
		root, other := realDir(t), realDir(t)
		writeFile(t, filepath.Join(root, "paste-1.txt"), "a paste\n")
		writeFile(t, filepath.Join(other, "f"), "f\n")
		for _, tt := range []struct{ cwd, path, why string }{
			{"/", filepath.Join(other, "f"), "the working directory is /, which a hook does not take as a scope"},
			{"//", "/etc/passwd", "the working directory is /"},
			{"/", filepath.Join(root, "paste-1.txt"), ""},
		} {
			out, err := writeHook(claudeWrite(tt.cwd, "{{file:"+tt.path+":1:1}}"), []string{root})
			if err != nil || tt.why == "" && !bytes.Contains(out, []byte("updatedInput")) || tt.why != "" && !denied(out, tt.why) {
				t.Errorf("cwd %q, %s: %s, %v; want denied saying %q (expanded if empty)", tt.cwd, tt.path, out, err, tt.why)
			}
		}
		link := filepath.Join(t.TempDir(), "slash")
		if err := os.Symlink("/", link); err != nil {
			t.Fatal(err)
		}
		out, _ := writeHook(claudeWrite(link, "{{file:"+link+"/etc/passwd:1:1}}"), nil)
		if !denied(out, "the working directory is /") {
			t.Errorf("cwd a link to /: %s, want it denied", out)
		}
	})
}

// A working directory reached through a symbolic link (/tmp on macOS):
// references may spell it as given or resolved, and a missing file is
// reported missing, not outside the working directory as it was.
func TestHookCwdThroughSymlink(t *testing.T) {
	openers(t, func(t *testing.T) {
		real := realDir(t)
		writeFile(t, filepath.Join(real, "a.txt"), "a\n")
		link := filepath.Join(t.TempDir(), "work")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		for _, cwd := range []string{link, real, link + "/"} {
			for _, dir := range []string{link, real} {
				out, err := writeHook(claudeWrite(cwd, "{{file:"+dir+"/a.txt:1:1}}"), nil)
				if err != nil || !bytes.Contains(out, []byte(`"content":"a\n"`)) {
					t.Errorf("cwd %s, file in %s: %s, %v; want it expanded", cwd, dir, out, err)
				}
				missing := dir + "/missing.txt"
				out, err = writeHook(claudeWrite(cwd, "{{file:"+missing+":1:1}}"), nil)
				if err != nil || !denied(out, "open "+missing+": no such file or directory") {
					t.Errorf("cwd %s, missing file in %s: %s, %v; want no such file", cwd, dir, out, err)
				}
			}
		}
		// Below the directory, a link is refused however it is reached.
		if err := os.Symlink(filepath.Join(real, "a.txt"), filepath.Join(real, "l")); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{link + "/l", real + "/l"} {
			out, _ := writeHook(claudeWrite(real, "{{file:"+path+":1:1}}"), nil)
			if !denied(out, "symbolic link") {
				t.Errorf("%s: %s, want it denied for the link", path, out)
			}
		}
		out, _ := writeHook(claudeWrite(filepath.Join(real, "gone"), "{{file:"+real+"/gone/a.txt:1:1}}"), nil)
		if !denied(out, "no such file or directory") {
			t.Errorf("a working directory that does not exist: %s, want no such file", out)
		}
	})
}

func TestBelow(t *testing.T) {
	tests := []struct {
		dir, path, rest string
		ok              bool
	}{
		{"/a/b", "/a/b/c", "c", true},
		{"/a/b", "/a/b", ".", true},
		{"/a/b", "/a/b/", ".", true},
		{"/a/b", "//a/./b//c/", "c/", true},
		{"/a/b", "/a/b/../c", "../c", true}, // the open refuses to climb out
		{"/a/b", "/a/b/c/../d", "c/../d", true},
		{"/a/b", "/a/bc", "", false},
		{"/a/b", "/a", "", false},
		{"/a/b", "/a/../a/b/c", "", false},
		{"/a/b", "/x/a/b", "", false},
		{"/a", "/a/.x", ".x", true},
	}
	for _, tt := range tests {
		rest, ok := below(tt.dir, tt.path)
		if rest != tt.rest || ok != tt.ok {
			t.Errorf("below(%q, %q) = %q, %v; want %q, %v", tt.dir, tt.path, rest, ok, tt.rest, tt.ok)
		}
	}
}
