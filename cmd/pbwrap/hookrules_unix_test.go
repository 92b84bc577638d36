//go:build darwin || freebsd || linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/agent"
)

// Issue 37, the hostile scenario, through pbwrap hook AGENT as each agent
// runs it: a prompt-injected model writes a {{file:}} reference to a file
// its own read tool refuses into a new file of the project, to read it
// there. Each row is a rule of the agent's (in the place the agent reads
// it) and the file it keeps from the agent; the secret must never come
// out. Before issue 37, 11 of the 30 such cases did. Beside each
// agent's rows, a file its rules let it read expands, so that nothing here
// passes by refusing everything.
func TestHookHonoursAgentReadRules(t *testing.T) {
	type rule struct {
		name  string
		files map[string]string // relative to the project ("~/" to HOME)
		env   []string
		path  string // the secret's, relative to the project
	}
	rules := map[string][]rule{
		"claude": {
			{"Read(./.env)", map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read(./.env)"]}}`}, nil, ".env"},
			{"Read(./.ENV), without case", map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read(./.ENV)"]}}`}, nil, ".env"},
			{"Read(.E*)", map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read(.E*)"]}}`}, nil, ".env"},
			{"Read(./.[!.]*)", map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read(./.[!.]*)"]}}`}, nil, ".env"},
			{"Read(*.pem) at any depth", map[string]string{".claude/settings.local.json": `{"permissions":{"deny":["Read(*.pem)"]}}`}, nil, "a/b/key.pem"},
			{"Read(secrets/**)", map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read(secrets/**)"]}}`}, nil, "secrets/db.txt"},
			{"Read(/build/*.key), relative to the settings", map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read(/build/*.key)"]}}`}, nil, "build/r.key"},
			{"Read(~/...) in the user's settings", map[string]string{"~/.claude/settings.json": `{"permissions":{"deny":["Read(~/proj/token)"]}}`}, nil, "token"},
			{"Read(//abs)", map[string]string{"~/.claude/settings.json": `{"permissions":{"deny":["Read(//@PROJ@/abs.txt)"]}}`}, nil, "abs.txt"},
			{"Read alone", map[string]string{".claude/settings.json": `{"permissions":{"deny":["Read"]}}`}, nil, "any.txt"},
			{"an ask rule (Claude Code would ask)", map[string]string{".claude/settings.json": `{"permissions":{"ask":["Read(./ask.txt)"],"allow":["Read(./ask.txt)"]}}`}, nil, "ask.txt"},
			{"CLAUDE_CONFIG_DIR", map[string]string{"~/cfg/settings.json": `{"permissions":{"deny":["Read(./.env)"]}}`}, []string{"CLAUDE_CONFIG_DIR=@HOME@/cfg"}, ".env"},
		},
		"gemini": {
			{".gitignore (respectGitIgnore, on by default)", map[string]string{".gitignore": ".env\n"}, nil, ".env"},
			{".gitignore without case", map[string]string{".gitignore": ".ENV\n"}, nil, ".env"},
			{".gitignore in a subdirectory", map[string]string{"sub/.gitignore": "creds.json\n"}, nil, "sub/creds.json"},
			{".git/info/exclude", map[string]string{".git/info/exclude": "local.key\n"}, nil, "local.key"},
			{".git itself", nil, nil, ".git/config"},
			{".geminiignore", map[string]string{".geminiignore": "private/\n"}, nil, "private/a.txt"},
			{"customIgnoreFilePaths", map[string]string{"~/.gemini/settings.json": `{"context":{"fileFiltering":{"customIgnoreFilePaths":["mine.ignore"]}}}`, "mine.ignore": "*.secret\n"}, nil, "x.secret"},
			{"a deny policy for read_file", map[string]string{"~/.gemini/policies/mine.toml": "[[rule]]\ntoolName = \"read_file\"\nargsPattern = '\"file_path\":\".*\\.key\"'\ndecision = \"deny\"\npriority = 500\n"}, nil, "api.key"},
			{"an ask_user policy in the workspace", map[string]string{".gemini/policies/ask.toml": "[[rule]]\ntoolName = [\"read_file\", \"glob\"]\ndecision = \"ask_user\"\npriority = 100\n"}, nil, "any.txt"},
			{"tools.exclude", map[string]string{"~/.gemini/settings.json": `{"tools":{"exclude":["read_file"]}}`}, nil, "other.txt"},
			{"GEMINI_CLI_HOME", map[string]string{"~/gh/.gemini/settings.json": `{"context":{"fileFiltering":{"customIgnoreFilePaths":["mine.ignore"]}}}`, "mine.ignore": "*.secret\n"}, []string{"GEMINI_CLI_HOME=@HOME@/gh"}, "y.secret"},
		},
		"opencode": {
			{"the default ask for *.env", nil, nil, ".env"},
			{"the default ask for *.env.*", nil, nil, "sub/.env.production"},
			{"permission.read deny", map[string]string{"opencode.json": `{"permission":{"read":{"secrets/*":"deny"}}}`}, nil, "secrets/x"},
			{"permission.read ask, globally", map[string]string{"~/.config/opencode/opencode.json": `{"permission":{"read":"ask"}}`}, nil, "main.txt"},
			{"OPENCODE_CONFIG_CONTENT", nil, []string{`OPENCODE_CONFIG_CONTENT={"permission":{"read":{"*.key":"deny"}}}`}, "a.key"},
			{"an agent's own permission", map[string]string{"opencode.jsonc": `{"agent":{"build":{"permission":{"read":{"*.txt":"deny"}}}}}`}, nil, "notes.txt"},
		},
		"qwen": {
			// Qwen Code's hook expands no reference (its rewrite would approve
			// the edit): its permissions.deny Read rules, the three
			// cases, hold with everything else.
			{"permissions.deny Read(./.env)", map[string]string{".qwen/settings.json": `{"permissions":{"deny":["Read(./.env)"]}}`}, nil, ".env"},
			{"permissions.deny Read(**/*.pem)", map[string]string{"~/.qwen/settings.json": `{"permissions":{"deny":["Read(**/*.pem)"]}}`}, nil, "k.pem"},
			{"permissions.deny Read(//abs)", map[string]string{"~/.qwen/settings.json": `{"permissions":{"deny":["Read(//@PROJ@/s.txt)"]}}`}, nil, "s.txt"},
			{".qwenignore", map[string]string{".qwenignore": "*.secret\n"}, nil, "z.secret"},
		},
	}
	allowed := map[string]string{"claude": "main.go", "gemini": "main.go", "opencode": ".env.example"}

	covered, out := 0, 0
	for _, name := range []string{"claude", "gemini", "opencode", "qwen"} {
		a := agent.Find(name)
		agentOut := 0
		for _, r := range append(rules[name], rule{name: "allowed", path: allowed[name]}) {
			if r.path == "" {
				continue
			}
			dir := realDir(t)
			home := filepath.Join(dir, "home")
			proj := filepath.Join(home, "proj")
			put := func(rel, text string) {
				p := filepath.Join(proj, rel)
				if after, ok := strings.CutPrefix(rel, "~/"); ok {
					p = filepath.Join(home, after)
				}
				text = strings.ReplaceAll(strings.ReplaceAll(text, "@PROJ@", strings.TrimPrefix(proj, "/")), "@HOME@", home)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			put(".git/HEAD", "ref: refs/heads/main\n")
			put(".git/config", "[core]\nSECRET = 1\n")
			for rel, text := range r.files {
				put(rel, text)
			}
			secret := filepath.Join(proj, r.path)
			if _, err := os.Stat(secret); err != nil {
				put(r.path, "SECRET=hunter2\n")
			}
			tool := a.Hook.Protocol.Tools[0]
			in, _ := json.Marshal(map[string]any{"hook_event_name": a.Hook.Protocol.Event, "tool_name": tool.Name, "cwd": proj,
				"tool_input": map[string]any{tool.Target: filepath.Join(proj, "copy.txt"), tool.Fields[0]: "{{file:" + secret + ":1:1}}"}})
			cmd := exec.Command(pbwrapBin, "hook", name)
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "PBWRAP_ROOT=" + filepath.Join(dir, "root"),
				"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(dir, "none.json")}
			for _, e := range r.env {
				cmd.Env = append(cmd.Env, strings.ReplaceAll(e, "@HOME@", home))
			}
			cmd.Stdin = strings.NewReader(string(in))
			answer, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s, %s: %v", name, r.name, err)
			}
			leaked := strings.Contains(string(answer), "hunter2") || strings.Contains(string(answer), "SECRET = 1")
			switch {
			case r.name == "allowed":
				if !strings.Contains(string(answer), "hunter2") {
					t.Errorf("%s: a file its rules let it read did not expand: %s", name, answer)
				}
			case leaked:
				out++
				agentOut++
				t.Errorf("%s, %s: the secret came out: %s", name, r.name, answer)
			case !strings.Contains(string(answer), "deny"):
				t.Errorf("%s, %s: %s, want it denied", name, r.name, answer)
			default:
				covered++
			}
		}
		t.Logf("%s: %d rule cases, the secret out of %d", name, len(rules[name]), agentOut)
	}
	if out > 0 {
		t.Errorf("%d cases got the secret out", out)
	}
	t.Logf("%d rule cases refused, %d got the secret out", covered, out)
}
