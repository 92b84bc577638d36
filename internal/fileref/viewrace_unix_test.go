//go:build darwin || freebsd || linux

package fileref

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// viewAnswer asks the hook about a view of path and returns the path the
// allow points Crush at ("" for no allow).
func viewAnswer(t *testing.T, sc Scope, path string) string {
	in, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "view", "cwd": "/",
		"tool_input": map[string]any{"file_path": path, "limit": 5}})
	out, err := readProto.Answer(in, sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		return ""
	}
	var a struct {
		HookSpecificOutput struct {
			PermissionDecision string            `json:"permissionDecision"`
			UpdatedInput       map[string]string `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &a); err != nil || a.HookSpecificOutput.PermissionDecision != "allow" {
		t.Fatalf("answer %s (%v)", out, err)
	}
	if p, ok := a.HookSpecificOutput.UpdatedInput["file_path"]; ok {
		return p
	}
	return path // An allow of the path as given.
}

// Issue 37: Crush's view of a file in pbwrap's root, which the hook
// allows without asking, could be raced by swapping a name on the path
// for a symbolic link (16 of 150). The hook judges the file it opened,
// following no link, against what the path leads to now (the same file,
// the real path resolving to itself), and points Crush at the real path:
// a link anywhere on it, or a spelling through a link above the root,
// gets no allow, or the allow names the real file.
func TestViewAllowJudgesTheFile(t *testing.T) {
	dir := realDir(t)
	root := filepath.Join(dir, "root")
	const sid = "0190b5a0-7c3e-7d2a-9f00-0123456789ab"
	paste := filepath.Join(root, sid, "paste-1.txt")
	writeFile(t, paste, "a paste\n")
	secretDir := filepath.Join(dir, "home", ".ssh")
	writeFile(t, filepath.Join(secretDir, "paste-1.txt"), "SECRET\n")
	writeFile(t, filepath.Join(secretDir, "id"), "SECRET\n")
	session := func(name string) bool { return name == sid || strings.HasPrefix(name, "0190b5a0") }
	sc := Scope{Roots: []string{root}, Session: session}

	if got := viewAnswer(t, sc, paste); got != paste {
		t.Errorf("a paste: allowed as %q, want %q", got, paste)
	}
	// Through a link above the root (the agent's own, in its project):
	// allowed, but Crush reads the real path.
	via := filepath.Join(dir, "proj-link")
	if err := os.Symlink(root, via); err != nil {
		t.Fatal(err)
	}
	if got := viewAnswer(t, sc, filepath.Join(via, sid, "paste-1.txt")); got != paste {
		t.Errorf("through a link above the root: allowed as %q, want the real path %q", got, paste)
	}
	// A session directory that is a link, a paste that is a link: no
	// allow.
	linkSession := "0190b5a0-7c3e-7d2a-9f00-00000000beef"
	if err := os.Symlink(secretDir, filepath.Join(root, linkSession)); err != nil {
		t.Fatal(err)
	}
	if got := viewAnswer(t, sc, filepath.Join(root, linkSession, "id")); got != "" {
		t.Errorf("a session that is a link: allowed as %q", got)
	}
	if err := os.Symlink(filepath.Join(secretDir, "id"), filepath.Join(root, sid, "paste-2.txt")); err != nil {
		t.Fatal(err)
	}
	if got := viewAnswer(t, sc, filepath.Join(root, sid, "paste-2.txt")); got != "" {
		t.Errorf("a paste that is a link: allowed as %q", got)
	}

	// The race: another process swaps the session directory for a link to
	// the secrets and back, as fast as it can, while Crush views the
	// paste 150 times, reading what the hook's allow names right after
	// the answer (Crush's own read). Every allow names the real path; a
	// read returns the secret only if the swap lands in the moment after
	// the answer, which no check of the hook's can close (Crush reads the
	// path itself): counted, and logged.
	var stop atomic.Bool
	done := make(chan struct{})
	real, moved := filepath.Join(root, sid), filepath.Join(root, sid+".away")
	go func() {
		defer close(done)
		for !stop.Load() {
			if os.Rename(real, moved) == nil {
				_ = os.Symlink(secretDir, real)
				_ = os.Remove(real)
				_ = os.Rename(moved, real)
			}
		}
	}()
	allowed, secrets, judgedWrong := 0, 0, 0
	for range 150 {
		got := viewAnswer(t, sc, paste)
		if got == "" {
			continue
		}
		allowed++
		if got != paste {
			judgedWrong++
		}
		if b, err := os.ReadFile(got); err == nil && strings.Contains(string(b), "SECRET") {
			secrets++
		}
	}
	stop.Store(true)
	<-done
	if judgedWrong > 0 {
		t.Errorf("%d allows named another path than the paste's", judgedWrong)
	}
	t.Logf("150 views under a swapping race: %d allowed, %d reads right after the allow got the secret", allowed, secrets)
}
