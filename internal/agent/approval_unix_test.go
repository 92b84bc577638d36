//go:build darwin || freebsd || linux

package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// Issue 37: a reference never changes who approves an edit. For every
// hooked agent and each of its editing tools, an edit with a reference
// into a file that decides what runs (an agent's settings and hooks,
// git's hooks and config, the user's startup files, a link in the project
// to one of them) is refused, as is every expansion for Qwen Code, whose
// rewrite would approve the edit for the user; an edit of a plain project
// file expands, with no decision of the hook's own, so that the agent asks
// as it would have.
func TestHookNeverApproves(t *testing.T) {
	dir := realDir(t)
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	for _, d := range []string{proj, filepath.Join(proj, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(proj, "src.txt")
	if err := os.WriteFile(src, []byte("rm -rf ~\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".zshrc"), filepath.Join(proj, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	ref := "{{file:" + src + ":1:1}}"
	guardedTargets := []string{
		filepath.Join(home, ".bashrc"), filepath.Join(home, ".zshrc"), filepath.Join(home, ".profile"),
		filepath.Join(home, ".ssh", "authorized_keys"), filepath.Join(home, ".config", "fish", "config.fish"),
		filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".qwen", "settings.json"),
		filepath.Join(home, ".codex", "hooks.json"), filepath.Join(home, ".config", "opencode", "plugin", "x.js"),
		filepath.Join(proj, ".git", "hooks", "pre-commit"), filepath.Join(proj, ".git", "config"),
		filepath.Join(proj, ".claude", "settings.json"), filepath.Join(proj, ".qwen", "settings.json"),
		filepath.Join(proj, ".gemini", "settings.json"), filepath.Join(proj, ".vscode", "tasks.json"),
		filepath.Join(proj, ".github", "hooks", "pbwrap.json"), filepath.Join(proj, "crush.json"),
		filepath.Join(proj, "opencode.json"), filepath.Join(proj, ".mcp.json"), filepath.Join(proj, ".envrc"),
		filepath.Join(proj, ".husky", "pre-push"), filepath.Join(proj, ".Claude", "settings.json"),
		filepath.Join(proj, "notes.txt"), // a link to ~/.zshrc
		".git/hooks/post-checkout",       // relative to the working directory
	}
	sc := fileref.Scope{Home: home}
	calls, refused := 0, 0
	for _, a := range Hooked() {
		p := a.Hook.Protocol
		for _, tool := range p.Tools {
			call := func(target string) []byte {
				input := map[string]any{}
				switch {
				case tool.Patch:
					input[tool.Fields[0]] = "*** Begin Patch\n*** Add File: " + target + "\n+" + ref + "\n*** End Patch\n"
				case tool.List != "" && len(tool.Fields) == 0:
					input[tool.List] = []any{map[string]any{tool.Item: ref}}
				default:
					input[tool.Fields[0]] = ref
				}
				if tool.Target != "" {
					input[tool.Target] = target
				}
				in, _ := json.Marshal(map[string]any{"hook_event_name": p.Event, "tool_name": tool.Name, "tool_input": input, "cwd": proj})
				switch p.Reply {
				case fileref.ModifiedArgs:
					in, _ = json.Marshal(map[string]any{"toolName": tool.Name, "toolArgs": input, "cwd": proj})
				case fileref.OverrideInput:
					in, _ = json.Marshal(map[string]any{"hookName": "tool_call", "workspaceRoots": []string{proj},
						"tool_call": map[string]any{"name": tool.Name, "input": input}})
				}
				out, err := p.Answer(in, sc)
				var denial *fileref.Denial
				if errors.As(err, &denial) {
					// Letta Code's: exit status 2, the reason on stderr.
					return []byte(exitDenial + denial.Reason)
				}
				if err != nil {
					t.Fatalf("%s %s: %v", a.Name, tool.Name, err)
				}
				return out
			}
			if tool.Target == "" && !tool.Patch {
				t.Errorf("%s %s: no Target: the hook cannot judge what it writes", a.Name, tool.Name)
			}
			for _, target := range guardedTargets {
				calls++
				out := string(call(target))
				switch {
				case strings.Contains(out, "rm -rf"):
					t.Errorf("%s %s into %s: expanded: %s", a.Name, tool.Name, target, out)
				case !refusal(p, out):
					t.Errorf("%s %s into %s: %s, want it refused", a.Name, tool.Name, target, out)
				default:
					refused++
				}
			}
			out := string(call(filepath.Join(proj, "out.txt")))
			switch {
			case p.Approves:
				if !refusal(p, out) || !strings.Contains(out, "skip asking") {
					t.Errorf("%s %s: %s, want it refused: its rewrite is an approval", a.Name, tool.Name, out)
				}
			case !strings.Contains(out, "rm -rf") || refusal(p, out) ||
				p.Reply != fileref.AllowedInput && strings.Contains(out, `"allow"`):
				t.Errorf("%s %s into a project file: %s, want it expanded, with no decision", a.Name, tool.Name, out)
			}
		}
	}
	t.Logf("%d calls into guarded files, %d refused", calls, refused)
}

// exitDenial marks, in the tests' record of an answer, a denial by exit
// status (fileref.Denial).
const exitDenial = "exit status 2: "

// refusal reports whether out, the hook's answer, refuses the call in
// the form the agent takes: a denial by exit status for Letta Code (which
// reads nothing else of a hook's answer), Cline's cancel, or a denial.
func refusal(p fileref.Protocol, out string) bool {
	switch {
	case p.DenyByExit:
		return strings.HasPrefix(out, exitDenial)
	case p.Reply == fileref.OverrideInput:
		return strings.Contains(out, `"cancel":true`)
	}
	return strings.Contains(out, "deny")
}
