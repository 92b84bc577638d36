package fileref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// hookSource is the file the tests' hook calls refer to.
const hookSource = "line 1 <&>\nline 2\nline 3\nline 4, last\n"

// realDir returns a new temporary directory with symlinks resolved.
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The answers carry exactly what their Reply says: UpdatedInput no
// permission decision beside a rewrite (the agent's permission flow
// decides), AllowedInput "allow", which carries the rewrite.
func TestHookDecisions(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte(hookSource), 0o600); err != nil {
		t.Fatal(err)
	}
	decision := func(out []byte) (string, bool) {
		var v struct {
			HookSpecificOutput map[string]any `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("answer %s: %v", out, err)
		}
		d, _ := v.HookSpecificOutput["permissionDecision"].(string)
		_, updated := v.HookSpecificOutput["updatedInput"]
		return d, updated
	}
	out, err := writeHook([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/x","content":"{{file:`+src+`:1:2}}"}}`), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if d, updated := decision(out); d != "" || !updated {
		t.Errorf("UpdatedInput rewrite: decision %q, updatedInput %v; want none and true", d, updated)
	}
	out, err = patchHook([]byte(`{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: /x\n+{{file:`+src+`:1:2}}\n*** End Patch\n"}}`), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if d, updated := decision(out); d != "allow" || !updated {
		t.Errorf("AllowedInput rewrite: decision %q, updatedInput %v; want allow and true", d, updated)
	}
}

func TestHookBadInput(t *testing.T) {
	for _, in := range []string{``, `not json`, `{"tool_name":"Write","tool_input":"a string"}`, `{"tool_name":"Write","tool_input":{"content":7}}`} {
		if out, err := writeHook([]byte(in), nil); err == nil {
			t.Errorf("writeHook(%q) = %q, want an error (the call must be blocked)", in, out)
		}
	}
	if _, err := patchHook([]byte(`{"tool_name":"apply_patch","tool_input":{"command":1}}`), nil); err == nil {
		t.Error("patchHook with a non-string command: want an error")
	}
}

func TestExpandPatch(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("a\n\nc"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, want string
		err      error
	}{
		{"+x\n+{{file:" + src + ":1:3}}\n+y\n", "+x\n+a\n+\n+c\n+y\n", nil},
		{"+{{file:" + src + ":1:1}}", "+a\n", nil},
		{"+{{file:" + src + ":2:3}}\r\n", "+\n+c\n", nil},
		{"@@\n-old\n+new \\{{file:x\n", "@@\n-old\n+new {{file:x\n", nil},
		{"+see {{file:" + src + ":1:1}}\n", "", errPatchPlacement},
		{" {{file:" + src + ":1:1}}\n", "", errPatchPlacement},
		{"+{{file:" + src + ":1:1}} \n", "", errPatchPlacement},
		{"+{{file:" + src + ":1:9}}\n", "", errPastEnd},
		{"+{{file:" + src + ":1:1}}\n+{{file:rel:1:1}}\n", "", errRelativePath},
	} {
		got, err := ExpandPatch([]byte(tc.in))
		switch {
		case tc.err != nil:
			var perr *Error
			if !errors.As(err, &perr) || !errors.Is(err, tc.err) || got != nil {
				t.Errorf("ExpandPatch(%q) = %q, %v; want nil and %v", tc.in, got, err, tc.err)
			}
		case err != nil || string(got) != tc.want:
			t.Errorf("ExpandPatch(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// A hook expands only files under the call's cwd and the given
// directories, through no symbolic link, and only UTF-8 text.
func TestHookScope(t *testing.T) {
	work, root, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(work, "a.txt"), "in the work tree\n")
	write(filepath.Join(root, "paste-1.txt"), "a paste\n")
	write(filepath.Join(outside, "secret"), "private key\n")
	write(filepath.Join(work, "latin1.txt"), "caf\xe9\n")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	call := func(path string) []byte {
		in := fmt.Sprintf(`{"hook_event_name":"PreToolUse","cwd":%q,"tool_name":"Write","tool_input":{"file_path":"/x","content":"{{file:%s:1:1}}"}}`, work, path)
		out, err := writeHook([]byte(in), []string{root})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, ok := range []string{filepath.Join(work, "a.txt"), filepath.Join(root, "paste-1.txt")} {
		if out := call(ok); !bytes.Contains(out, []byte("updatedInput")) {
			t.Errorf("%s: %s, want it expanded", ok, out)
		}
	}
	for _, tc := range []struct{ path, why string }{
		{filepath.Join(outside, "secret"), "outside the working directory"},
		{filepath.Join(work, "link"), "symbolic link"},
		{filepath.Join(work, "..", filepath.Base(outside), "secret"), "outside the working directory"},
		{filepath.Join(work, "latin1.txt"), "not valid UTF-8"},
	} {
		out := call(tc.path)
		if !bytes.Contains(out, []byte(`"permissionDecision":"deny"`)) || !bytes.Contains(out, []byte(tc.why)) || bytes.Contains(out, []byte("private key")) {
			t.Errorf("%s: %s, want it denied saying %q", tc.path, out, tc.why)
		}
	}
}
