//go:build darwin || freebsd || linux

package agent

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// geminiTree lays out a project as the rule cases below need it: a git
// repository with ignore files at several levels, and a directory that
// is no repository.
func geminiTree(t *testing.T) (repo, plain, home string) {
	dir := realDir(t)
	home = filepath.Join(dir, "home")
	repo = filepath.Join(dir, "repo")
	plain = filepath.Join(dir, "plain")
	for name, content := range map[string]string{
		"repo/.git/HEAD":             "ref: refs/heads/main\n",
		"repo/.git/info/exclude":     "local-notes.txt\n",
		"repo/.gitignore":            ".env\n*.pem\n/build/\nlogs/\n!keep.pem\n",
		"repo/sub/.gitignore":        "secret.txt\n/only-here.txt\n",
		"repo/.geminiignore":         "private/\n!build/public.txt\n.ENV.LOCAL\n",
		"repo/extra.ignore":          "custom.txt\n",
		"plain/.geminiignore":        ".env\n",
		"plain/.gitignore":           "notes.txt\n",
		"home/.gemini/settings.json": `{"context": {"fileFiltering": {"customIgnoreFilePaths": ["extra.ignore"]}}}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return repo, plain, home
}

// geminiCases are rule cases of Gemini CLI 0.61's read_file, each
// confirmed by its own FileDiscoveryService (TestGeminiRulesOracle):
// root and path relative to the tree of geminiTree, and whether it
// refuses the file.
var geminiCases = []struct {
	root, path string
	refused    bool
}{
	{"repo", "main.go", false},
	{"repo", ".env", true},                 // .gitignore, respected by default (the case)
	{"repo", "sub/.env", true},             // a name at any depth
	{"repo", ".ENV", true},                 // without case
	{"repo", "x.pem", true},                // a glob
	{"repo", "keep.pem", false},            // "!" takes it back
	{"repo", "build/app", true},            // an anchored directory
	{"repo", "sub/build/app", false},       // anchored: not below
	{"repo", "build/public.txt", true},     // no way back below an ignored directory
	{"repo", "logs/a/b.log", true},         // a directory at any depth
	{"repo", "sub/secret.txt", true},       // a nested .gitignore
	{"repo", "secret.txt", false},          // which holds only below itself
	{"repo", "sub/only-here.txt", true},    // anchored to its own directory
	{"repo", "sub/x/only-here.txt", false}, // and not deeper
	{"repo", "local-notes.txt", true},      // .git/info/exclude
	{"repo", ".git/config", true},          // .git itself
	{"repo", "private/key", true},          // .geminiignore
	{"repo", ".env.local", true},           // .geminiignore, without case
	{"repo", "custom.txt", true},           // a custom ignore file from the settings
	{"repo/sub", "secret.txt", true},       // working in sub: its .gitignore is the root's
	{"plain", ".env", true},                // no repository: .geminiignore alone
	{"plain", "notes.txt", false},          // and no .gitignore
}

// The Gemini CLI case and its neighbours: what read_file refuses,
// the hook does not expand, and nothing more.
func TestGeminiReadRules(t *testing.T) {
	repo, plain, home := geminiTree(t)
	env := Env{Getenv: func(k string) string {
		return map[string]string{"HOME": home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}[k]
	}}
	rules := geminiReadRules(env)
	dir := filepath.Dir(repo)
	refused := 0
	for _, c := range geminiCases {
		root := filepath.Join(dir, c.root)
		rule, denied := rules(root, filepath.Join(root, c.path))
		if denied != c.refused {
			t.Errorf("in %s, %s: denied %v (%s), want %v", c.root, c.path, denied, rule, c.refused)
		}
		if denied {
			refused++
		}
	}
	t.Logf("%d Gemini CLI rule cases, %d refused", len(geminiCases), refused)

	// Outside the root: Gemini CLI ignores nothing there.
	if rule, denied := rules(repo, filepath.Join(plain, ".env")); denied {
		t.Errorf("a file outside the root: denied by %s", rule)
	}
	// respectGitIgnore off in the user's settings: .gitignore no longer
	// counts, .geminiignore still does; off in the workspace's (which the
	// agent can write): it still counts.
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, ".gemini", "settings.json"), `{"context": {"fileFiltering": {"respectGitIgnore": false, "respectGeminiIgnore": false}}}`)
	if _, denied := geminiReadRules(env)(repo, filepath.Join(repo, ".env")); !denied {
		t.Error("the workspace's settings turned .gitignore off")
	}
	write(filepath.Join(home, ".gemini", "settings.json"), `// comments are allowed
{"context": {"fileFiltering": {"respectGitIgnore": false}}}`)
	rules = geminiReadRules(env)
	if _, denied := rules(repo, filepath.Join(repo, ".env")); denied {
		t.Error("respectGitIgnore false: .gitignore still denies")
	}
	if _, denied := rules(repo, filepath.Join(repo, "private", "key")); !denied {
		t.Error("respectGitIgnore false: .geminiignore no longer denies")
	}
	// An ignore file that is not a regular file denies, rather than hang.
	if err := os.Remove(filepath.Join(plain, ".geminiignore")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(plain, ".geminiignore"), 0o600); err != nil {
		t.Fatal(err)
	}
	var rule string
	var denied bool
	returns(t, "the rules of a folder whose .geminiignore is a named pipe", func() { rule, denied = geminiReadRules(env)(plain, filepath.Join(plain, "a.txt")) })
	if !denied || !strings.Contains(rule, "cannot read") {
		t.Errorf("a .geminiignore that is a pipe: %v %s", denied, rule)
	}
}

// geminiOracleJS asks Gemini CLI's own FileDiscoveryService, from the
// @google/gemini-cli-core package installed in the directory of its
// first argument, about the cases on its standard input.
const geminiOracleJS = `
const path = require("path");
(async () => {
  const core = path.join(process.argv[2], "@google/gemini-cli-core/dist/src/services/fileDiscoveryService.js");
  const { FileDiscoveryService } = await import(core);
  const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const out = cases.map((c) => {
    const opts = { respectGitIgnore: true, respectGeminiIgnore: true, customIgnoreFilePaths: c.custom };
    const s = new FileDiscoveryService(c.root, opts);
    return s.shouldIgnoreFile(c.path, opts);
  });
  console.log(JSON.stringify(out));
})();
`

// TestGeminiRulesOracle asks Gemini CLI itself: its FileDiscoveryService
// from @google/gemini-cli-core, in PBWRAP_GEMINI_CORE (scripts/e2e-agents
// installs it; 380 MB with its dependencies, so not in scripts/test),
// about geminiCases, which TestGeminiReadRules holds the hook to.
func TestGeminiRulesOracle(t *testing.T) {
	modules := os.Getenv("PBWRAP_GEMINI_CORE")
	if modules == "" {
		t.Skip("PBWRAP_GEMINI_CORE is not set (scripts/e2e-agents sets it)")
	}
	repo, _, _ := geminiTree(t)
	dir := filepath.Dir(repo)
	type oc struct {
		Root   string   `json:"root"`
		Path   string   `json:"path"`
		Custom []string `json:"custom"`
	}
	var cases []oc
	for _, c := range geminiCases {
		root := filepath.Join(dir, c.root)
		cases = append(cases, oc{root, filepath.Join(root, c.path), []string{"extra.ignore"}})
	}
	in, _ := json.Marshal(cases)
	script := filepath.Join(t.TempDir(), "oracle.cjs")
	if err := os.WriteFile(script, []byte(geminiOracleJS), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, modules)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got []bool
	lines := strings.Split(strings.TrimSpace(string(out)), "\n") // Gemini CLI's debug log comes first.
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || len(got) != len(cases) {
		t.Fatalf("the oracle said %s (%v)", out, err)
	}
	for i, c := range geminiCases {
		if got[i] != c.refused {
			t.Errorf("in %s, %s: Gemini CLI refuses it: %v; the case says %v", c.root, c.path, got[i], c.refused)
		}
	}
	t.Logf("Gemini CLI's FileDiscoveryService agrees on %d cases", len(cases))
}
