package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 28: a project's .env that the user's settings deny Claude Code
// was expanded into a Write by the hook, and the agent could read the
// copy. The hook honours every settings file's Read deny rules, in each
// spelling Claude Code documents; where it leaves a choice, the one that
// denies more.
func TestClaudeReadRules(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	config := filepath.Join(home, ".claude")
	proj := filepath.Join(home, "proj")
	sub := filepath.Join(proj, "sub")
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(config, "settings.json"), `{"permissions": {"deny": ["Read(~/.aws/**)", "Read(//etc/shadow)", "Bash(curl *)", 7]}}`)
	write(filepath.Join(proj, ".claude", "settings.json"), `{"permissions": {"deny": ["Read(./.env)", "Read(./.env.*)", "Read(secrets/**)", "Read(/build/*.key)", "Edit(./src/**)"]}}`)
	write(filepath.Join(proj, ".claude", "settings.local.json"), `{"permissions": {"deny": ["Read(*.pem)", "Read(./private)"]}}`)
	env := Env{Getenv: func(k string) string {
		return map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": config}[k]
	}}
	rules := claudeReadRules(env)

	for _, tt := range []struct {
		cwd, path string
		rule      string // "" when allowed, else the rule that denies
	}{
		{proj, filepath.Join(proj, "main.go"), ""},
		{proj, filepath.Join(proj, ".env"), "Read(./.env) in " + filepath.Join(proj, ".claude", "settings.json")},
		{proj, filepath.Join(proj, ".env.local"), "Read(./.env.*)"},
		{proj, filepath.Join(proj, ".envrc"), ""},
		{proj, filepath.Join(proj, "secrets", "a", "b.txt"), "Read(secrets/**)"},
		{proj, filepath.Join(proj, "build", "release.key"), "Read(/build/*.key)"},
		{proj, filepath.Join(proj, "build", "x", "release.key"), ""},
		{proj, filepath.Join(proj, "src", "main.go"), ""}, // An Edit rule denies no read.
		{proj, filepath.Join(proj, "deep", "er", "cert.pem"), "Read(*.pem) in " + filepath.Join(proj, ".claude", "settings.local.json")},
		{proj, filepath.Join(proj, "private", "notes.txt"), "Read(./private)"},
		{proj, filepath.Join(home, ".aws", "credentials"), "Read(~/.aws/**) in " + filepath.Join(config, "settings.json")},
		{proj, "/etc/shadow", "Read(//etc/shadow)"},
		// Started in a directory below the project: its settings still hold.
		{sub, filepath.Join(proj, ".env"), "Read(./.env)"},
		{sub, filepath.Join(sub, "key.pem"), "Read(*.pem)"},
		// Elsewhere, the project's rules do not reach.
		{filepath.Join(dir, "other"), filepath.Join(dir, "other", ".env"), ""},
	} {
		rule, denied := rules(tt.cwd, tt.path)
		if denied != (tt.rule != "") || !strings.Contains(rule, tt.rule) {
			t.Errorf("in %s, %s: denied %v by %q, want %q", tt.cwd, tt.path, denied, rule, tt.rule)
		}
	}

	// "Read" alone denies every file; a settings file that cannot be
	// parsed denies too, since its rules cannot be honoured.
	write(filepath.Join(dir, "all", ".claude", "settings.json"), `{"permissions": {"deny": ["Read"]}}`)
	write(filepath.Join(dir, "bad", ".claude", "settings.json"), `{"permissions": {"deny": ["Read(x)",]}}`)
	for _, tt := range []struct{ cwd, want string }{{"all", "Read in "}, {"bad", "cannot read them"}} {
		cwd := filepath.Join(dir, tt.cwd)
		if rule, denied := rules(cwd, filepath.Join(cwd, "a.txt")); !denied || !strings.Contains(rule, tt.want) {
			t.Errorf("in %s: denied %v by %q, want %q", tt.cwd, denied, rule, tt.want)
		}
	}
}

// A project's settings are the agent's to write: a pattern built to make
// the matcher backtrack takes no longer than any other.
func TestMatchPrefixIsLinear(t *testing.T) {
	pat := split("/" + strings.Repeat("**/a/", 40) + "b")
	p := split("/" + strings.Repeat("a/", 2000) + "c")
	if matchPrefix(pat, p) {
		t.Fatal("matched")
	}
	for _, tt := range []struct {
		pat, path string
		want      bool
	}{
		{"/a/**/b", "/a/b", true},
		{"/a/**/b", "/a/x/y/b/c", true},
		{"/a/**", "/a", true},
		{"/a/*/c", "/a/b/c", true},
		{"/a/*/c", "/a/b/d/c", false},
		{"/a/[", "/a/[", true},
		{"/x", "/a", false},
	} {
		if got := matchPrefix(split(tt.pat), split(tt.path)); got != tt.want {
			t.Errorf("matchPrefix(%q, %q) = %v", tt.pat, tt.path, got)
		}
	}
}
