package fileref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A read tool's call is allowed only for a file a hook could expand from
// the directories it is given: not one in the working directory alone,
// not through a symbolic link, not a hard link, not a directory, not a
// relative path.
func TestHookReads(t *testing.T) {
	root, work, outside := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(root, "paste-1.txt"), filepath.Join(work, "a.txt"), filepath.Join(outside, "secret")} {
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(root, "hard")); err != nil {
		t.Fatal(err)
	}
	view := func(path string) string {
		in := `{"event":"PreToolUse","cwd":` + string(appendString(nil, []byte(work))) +
			`,"tool_name":"view","tool_input":{"file_path":` + string(appendString(nil, []byte(path))) + `}}`
		out, err := readHook([]byte(in), []string{root})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return string(out)
	}
	if out := view(filepath.Join(root, "paste-1.txt")); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("a paste in the root: %q, want it allowed", out)
	}
	for _, path := range []string{
		filepath.Join(work, "a.txt"), filepath.Join(outside, "secret"), filepath.Join(root, "link"),
		filepath.Join(root, "hard"), root, filepath.Join(root, "..", filepath.Base(outside), "secret"), "paste-1.txt",
	} {
		if out := view(path); out != "" {
			t.Errorf("%s: %q, want no answer", path, out)
		}
	}
	// Only for the replies that carry a permission decision.
	p := Protocol{Event: "BeforeTool", Reply: ToolInput, Reads: readProto.Reads}
	in := `{"tool_name":"view","tool_input":{"file_path":` + string(appendString(nil, []byte(filepath.Join(root, "paste-1.txt")))) + `}}`
	if out, err := answerIn(&p, []byte(in), []string{root}); out != nil || err != nil {
		t.Errorf("a read with the ToolInput reply: %q, %v; want no answer", out, err)
	}
}
