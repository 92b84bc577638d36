//go:build darwin || freebsd || linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 28, through pbwrap hook claude as Claude Code runs it: roots named
// by the environment pass the store's root checks or are not used, a root
// yields only its sessions' files, the home directory is no working
// directory, and the user's Claude Code deny rules hold. Each row is a
// hostile or careless set-up and the reference an agent would write; the
// key never comes out.
func TestHookScopeFromEnvironment(t *testing.T) {
	dir := realDir(t)
	home := filepath.Join(dir, "home")
	const sid = "0190b5a0-7c3e-7d2a-9f00-0123456789ab"
	put := func(path, content string) string {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	key := put(filepath.Join(home, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
	proj := filepath.Join(home, "proj")
	put(filepath.Join(proj, "main.go"), "package main\n")
	env := put(filepath.Join(proj, ".env"), "PRIVATE TOKEN\n")
	put(filepath.Join(proj, ".claude", "settings.json"), `{"permissions": {"deny": ["Read(./.env)"]}}`)
	notes := put(filepath.Join(home, "notes.txt"), "notes\n")
	root := filepath.Join(home, ".local", "state", "pbwrap")
	paste := put(filepath.Join(root, sid, "paste-1.txt"), "a paste\n")
	planted := put(filepath.Join(root, "planted.txt"), "PRIVATE PLANT\n")

	for _, tt := range []struct {
		name string
		env  []string
		cwd  string
		ref  string
		why  string // "" when it must expand
	}{
		{"a paste in the root", []string{"PBWRAP_ROOT=" + root}, proj, paste, ""},
		{"the session's root", []string{"PBWRAP_ROOT=/nonexistent/x", "PBWRAP_SESSION_DIR=" + filepath.Join(root, sid)}, proj, paste, ""},
		{"a project file", nil, proj, filepath.Join(proj, "main.go"), ""},
		{"PBWRAP_ROOT=$HOME", []string{"PBWRAP_ROOT=" + home}, proj, key, "outside the working directory"},
		{"PBWRAP_ROOT=$HOME/.ssh", []string{"PBWRAP_ROOT=" + filepath.Dir(key)}, proj, key, "only the files of a session directory"},
		{"PBWRAP_SESSION_DIR=$HOME/.ssh/x", []string{"PBWRAP_SESSION_DIR=" + filepath.Join(home, ".ssh", "x")}, proj, key, "outside the working directory"},
		{"a file planted in the root", []string{"PBWRAP_ROOT=" + root}, proj, planted, "session directory"},
		{"Claude Code denies it", nil, proj, env, "Read(./.env) in " + filepath.Join(proj, ".claude", "settings.json")},
		{"working in $HOME", nil, home, notes, "your home directory or above it"},
		{"working in $HOME, allowed", []string{"PBWRAP_HOOK_ALLOW=" + home}, home, notes, ""},
		{"working in $HOME, allowed, ~/.ssh", []string{"PBWRAP_HOOK_ALLOW=" + home}, home, key, "hidden directory of your home"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": tt.cwd,
				"tool_input": map[string]string{"file_path": filepath.Join(tt.cwd, "out.txt"), "content": "{{file:" + tt.ref + ":1:1}}"}})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(pbwrapBin, "hook", "claude")
			cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "PBWRAP_ROOT=" + filepath.Join(dir, "unused")}, tt.env...)
			cmd.Stdin = strings.NewReader(string(in))
			out, err := cmd.Output()
			switch {
			case err != nil:
				t.Fatalf("%v\n%s", err, out)
			case strings.Contains(string(out), "PRIVATE"):
				t.Fatalf("the secret came out: %s", out)
			case tt.why == "" && !strings.Contains(string(out), `"updatedInput"`):
				t.Fatalf("%s\nwant it expanded", out)
			case tt.why != "" && !(strings.Contains(string(out), `"deny"`) && strings.Contains(string(out), tt.why)):
				t.Fatalf("%s\nwant it denied saying %q", out, tt.why)
			}
		})
	}
}
