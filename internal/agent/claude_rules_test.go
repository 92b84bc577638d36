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
// a matcher backtrack takes no longer than any other (Go's regular
// expressions run in linear time).
func TestClaudeRuleIsLinear(t *testing.T) {
	spec := "//" + strings.Repeat("**/a/", 40) + "b"
	if p := "/" + strings.Repeat("a/", 200) + "c"; denies(spec, p, "/", "/home", []string{"/x", "/"}) {
		t.Fatal("matched")
	}
	// Deeper than any project: denied, not judged.
	if p := "/" + strings.Repeat("a/", 2000) + "c"; !denies("//x", p, "/", "/home", []string{"/x", "/"}) {
		t.Fatal("a path 2000 directories deep was judged")
	}
}

// Issue 37: Claude Code matches its Read rules without case and takes
// "[!...]" for negation; the hook matched them byte for byte with
// path.Match, so these three rules, which keep .env from Claude Code,
// let the hook expand it. Each row is a rule in the project's settings,
// a file, and whether Claude Code denies it (from its documentation and
// the measurements of 2.1.332: its matcher is compiled into its
// binary, where no oracle can run it).
func TestClaudeRuleForms(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	home := filepath.Join(dir, "home")
	bases := []string{filepath.Join(proj, ".claude"), proj}
	cases := []struct {
		spec, path string
		denied     bool
	}{
		{"./.ENV", ".env", true},
		{".E*", ".env", true},
		{"./.[!.]*", ".env", true},
		{"./.[!.]*", "..x", false},
		{"./.[!e]*", ".env", false},
		{".env", "sub/.env", true},        // a name at any depth
		{"./.env", "sub/deep/.env", true}, // the same, "./" or not
		{"*.pem", "a/b/key.PEM", true},
		{"secrets/**", "secrets/a/b", true},
		{"secrets/", "secrets/x", true},
		{"secrets", "secrets/x", true}, // a directory: everything below
		{"/build/*.key", "build/a.key", true},
		{"/build/*.key", "build/x/a.key", false},
		{"/build/*.key", "sub/build/a.key", false},
		{"src/**/*.ts", "src/a/b/c.TS", true},
		{"docs/*.md", "docs/a/b.md", false},
		{"?.txt", "a.txt", true},
		{"[a-c].txt", "B.txt", true},
		{"[a-c].txt", "d.txt", false},
		{"main.go", "main.go.bak", false},
		{"Read", "anything", false}, // "Read" as a path is a name like any other
		{"*", "a/b", true},
		{"**", "a/b", true},
		{"~/.aws/**", "~/.aws/credentials", true},
		{"~/.AWS", "~/.aws/credentials", true},
		{"//etc/shadow", "//etc/shadow", true},
		{"//ETC/SHADOW", "//etc/shadow", true},
		{"//etc/*", "//etc/x/y", true},
		{"//etc/*", "//tmp/x", false},
	}
	denied := 0
	for _, c := range cases {
		p := filepath.Join(proj, c.path)
		switch {
		case strings.HasPrefix(c.path, "~/"):
			p = filepath.Join(home, c.path[2:])
		case strings.HasPrefix(c.path, "//"):
			p = c.path[1:]
		}
		if got := denies(c.spec, p, proj, home, bases); got != c.denied {
			t.Errorf("Read(%s), %s: denied %v, want %v", c.spec, c.path, got, c.denied)
		}
		if c.denied {
			denied++
		}
	}
	t.Logf("%d Claude Code rule cases, %d denied", len(cases), denied)
}
