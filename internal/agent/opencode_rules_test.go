package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 37: opencode 1.18.33's read permissions, its default "ask" for
// .env files among them, were not read: a .env that opencode asks about
// expanded without a question. Each row is a configuration, a file, and
// whether opencode's read tool would read it without asking (the rules as
// its bundle evaluates them: the last matching rule, "*" across "/",
// defaults first).
func TestOpencodeReadRules(t *testing.T) {
	dir := realDir(t)
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n")
	for _, tt := range []struct {
		name    string
		global  string // ~/.config/opencode/opencode.json
		project string // proj/opencode.jsonc
		content string // OPENCODE_CONFIG_CONTENT
		path    string // relative to proj
		refused bool
	}{
		{"a plain file", "", "", "", "main.go", false},
		{"the default ask for .env", "", "", "", ".env", true},
		{"and below", "", "", "", "sub/dir/.env", true},
		{"the default ask for .env.*", "", "", "", ".env.local", true},
		{"the default allow for .env.example", "", "", "", ".env.example", false},
		{"not case-insensitive", "", "", "", ".ENV", false},
		{"a deny in the project", "", `{"permission": {"read": {"secrets/*": "deny"}}}`, "", "secrets/a/b.txt", true},
		{"an ask for all reads", `{"permission": {"read": "ask"}}`, "", "", "main.go", true},
		{"a later allow takes .env back", `{"permission": {"read": {"*.env": "allow"}}}`, "", "", ".env", false},
		{"every permission asked", `{"permission": "ask"}`, "", "", "main.go", true},
		{"a wildcard permission", `{"permission": {"*": {"*.key": "deny"}}}`, "", "", "a.key", true},
		{"an agent's own rule", `{"agent": {"build": {"permission": {"read": {"*.txt": "deny"}}}}}`, "", "", "x.txt", true},
		{"the legacy tools switch", `{"tools": {"read": false}}`, "", "", "main.go", true},
		{"OPENCODE_CONFIG_CONTENT", "", "", `{"permission": {"read": {"main.go": "deny"}}}`, "main.go", true},
		{"~ in a pattern", `{"permission": {"read": {"~/proj/x.txt": "deny"}}}`, "", "", "x.txt", false}, // the pattern is absolute, the resource relative
		{"comments in the project's jsonc", "", "// mine\n{\"permission\": {\"read\": {\"a?c\": \"deny\"}}}", "", "abc", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for p, s := range map[string]string{
				filepath.Join(home, ".config", "opencode", "opencode.json"): tt.global,
				filepath.Join(proj, "opencode.jsonc"):                       tt.project,
			} {
				_ = os.Remove(p)
				if s != "" {
					write(p, s)
				}
			}
			env := Env{Getenv: func(k string) string {
				return map[string]string{"HOME": home, "OPENCODE_CONFIG_CONTENT": tt.content}[k]
			}}
			rule, denied := opencodeReadRules(env)(proj, filepath.Join(proj, tt.path))
			if denied != tt.refused {
				t.Errorf("%s: denied %v (%s), want %v", tt.path, denied, rule, tt.refused)
			}
			if denied && !strings.Contains(rule, "permission.") {
				t.Errorf("the reason names no rule: %s", rule)
			}
		})
	}
	// A configuration that cannot be read denies.
	write(filepath.Join(proj, "opencode.json"), `{"permission": `)
	if rule, denied := opencodeReadRules(Env{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }})(proj, filepath.Join(proj, "main.go")); !denied {
		t.Errorf("a broken configuration: %s", rule)
	}
}
