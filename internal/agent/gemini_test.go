package agent

import (
	"os"
	"path/filepath"
	"testing"
)

// geminiTrusts decides as Gemini CLI's isPathTrusted does: among the rules
// whose folder (a TRUST_PARENT rule's parent) holds the directory, the
// longest path wins, the first of equals; symbolic links are resolved on
// both sides.
func TestGeminiTrusts(t *testing.T) {
	dir := realDir(t)
	root := filepath.Join(dir, "a", "root")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "a"), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		rules []geminiRule
		want  string // the deciding rule's level, "" for none
	}{
		{"none", nil, ""},
		{"the root", []geminiRule{{root, geminiTrustFolder}}, geminiTrustFolder},
		{"a parent", []geminiRule{{dir, geminiTrustFolder}}, geminiTrustFolder},
		{"a sibling", []geminiRule{{filepath.Join(dir, "a", "roots"), geminiTrustFolder}}, ""},
		{"a child", []geminiRule{{filepath.Join(root, "x"), geminiTrustFolder}}, ""},
		{"parent of a sibling", []geminiRule{{filepath.Join(dir, "a", "other"), geminiTrustParent}}, geminiTrustParent},
		{"longest wins", []geminiRule{{root, geminiDoNotTrust}, {dir, geminiTrustFolder}}, geminiDoNotTrust},
		{"longest wins, either order", []geminiRule{{dir, geminiDoNotTrust}, {root, geminiTrustFolder}}, geminiTrustFolder},
		{"through a link", []geminiRule{{link, geminiDoNotTrust}}, geminiDoNotTrust},
	} {
		rule, ok := geminiTrusts(tc.rules, root)
		if got := rule.level; !ok && got != "" || got != tc.want {
			t.Errorf("%s: geminiTrusts = %+v, %v; want %q", tc.name, rule, ok, tc.want)
		}
	}
}

// The trusted-folders file: comments allowed, paths normalized, a
// repeated path keeping its first place and its last level, a bad level
// an error (Gemini CLI stops at start), no file no rules.
func TestReadGeminiTrust(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "trustedFolders.json")
	if rules, err := readGeminiTrust(file); err != nil || rules != nil {
		t.Errorf("no file: %v, %v; want no rules", rules, err)
	}
	text := "{\n  // mine\n  \"/a/b/\": \"TRUST_FOLDER\",\n  \"/c\": \"TRUST_PARENT\", /* x */\n  \"/a/b\": \"DO_NOT_TRUST\"\n}\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	rules, err := readGeminiTrust(file)
	want := []geminiRule{{geminiNormalize("/a/b"), geminiDoNotTrust}, {geminiNormalize("/c"), geminiTrustParent}}
	if err != nil || len(rules) != len(want) || rules[0] != want[0] || rules[1] != want[1] {
		t.Errorf("rules = %v, %v; want %v", rules, err, want)
	}
	for _, bad := range []string{`{"/a": "TRUSTED"}`, `["/a"]`, `{"/a": "TRUST_FOLDER",}`} {
		if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if rules, err := readGeminiTrust(file); err == nil {
			t.Errorf("%s: rules %v, want an error", bad, rules)
		}
	}
}

// realDir returns a new temporary directory with symlinks resolved: on
// macOS t.TempDir is under /var, a symlink to /private/var.
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
