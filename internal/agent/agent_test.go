package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAgentArgs(t *testing.T) {
	const root = "/tmp/pbwrap-1000"
	const claudeRoot = `--settings={"permissions":{"additionalDirectories":["/tmp/pbwrap-1000"]}}`
	outside := "/var/pbwrap-root"
	for _, tc := range []struct {
		argv []string
		root string
		want []string
	}{
		// Claude Code: the root in the settings it is started with, the =
		// form right after the name, only interactively.
		{[]string{"claude"}, root, []string{"claude", claudeRoot}},
		{[]string{"/usr/local/bin/claude", "--resume"}, root, []string{"/usr/local/bin/claude", claudeRoot, "--resume"}},
		{[]string{"claude", "fix the bug"}, root, []string{"claude", claudeRoot, "fix the bug"}},
		{[]string{"claude", "mcp", "list"}, root, []string{"claude", "mcp", "list"}},
		{[]string{"claude", "doctor"}, root, []string{"claude", "doctor"}},
		{[]string{"claude", "-p", "hello"}, root, []string{"claude", "-p", "hello"}},
		{[]string{"claude", "--print", "hello"}, root, []string{"claude", "--print", "hello"}},
		{[]string{"claude", "--version"}, root, []string{"claude", "--version"}},
		{[]string{"claude", "--model", "opus", "mcp"}, root, []string{"claude", claudeRoot, "--model", "opus", "mcp"}},
		// The user's own settings as JSON: the root joins them, in place.
		{[]string{"claude", "--settings", `{"model":"opus"}`, "hi"}, root,
			[]string{"claude", "--settings", `{"model":"opus","permissions":{"additionalDirectories":["/tmp/pbwrap-1000"]}}`, "hi"}},
		{[]string{"claude", `--settings={"permissions":{"allow":["Bash(ls)"],"additionalDirectories":["/src"]}}`}, root,
			[]string{"claude", `--settings={"permissions":{"allow":["Bash(ls)"],"additionalDirectories":["/src","/tmp/pbwrap-1000"]}}`}},
		// A file, or settings pbwrap cannot add to, stay; a read rule instead.
		{[]string{"claude", "--settings", "my.json"}, root, []string{"claude", "--allowedTools=Read(//tmp/pbwrap-1000/**)", "--settings", "my.json"}},
		{[]string{"claude", `--settings={"permissions":"x"}`}, root, []string{"claude", "--allowedTools=Read(//tmp/pbwrap-1000/**)", `--settings={"permissions":"x"}`}},
		// After "--", --settings is the user's text.
		{[]string{"claude", "--", "--settings", "x"}, root, []string{"claude", claudeRoot, "--", "--settings", "x"}},
		// Gemini CLI and Qwen Code: greedy list options go last, or before --.
		{[]string{"gemini"}, root, []string{"gemini", "--include-directories", root}},
		{[]string{"gemini", "-m", "pro", "--", "x"}, root, []string{"gemini", "-m", "pro", "--include-directories", root, "--", "x"}},
		{[]string{"gemini", "mcp", "list"}, root, []string{"gemini", "mcp", "list"}},
		{[]string{"gemini", "-p", "hi"}, root, []string{"gemini", "-p", "hi"}},
		{[]string{"qwen", "--yolo"}, root, []string{"qwen", "--yolo", "--include-directories", root}},
		{[]string{"qwen", "--bg"}, root, []string{"qwen", "--bg"}},
		// Copilot CLI: always, also for a root in the temporary directory,
		// which it reads by default but under another name on macOS.
		{[]string{"copilot"}, filepath.Join(os.TempDir(), "pbwrap-1000"), []string{"copilot", "--add-dir", filepath.Join(os.TempDir(), "pbwrap-1000")}},
		{[]string{"copilot"}, outside, []string{"copilot", "--add-dir", outside}},
		// Agents that read anywhere, and other programs, are untouched.
		{[]string{"codex"}, root, []string{"codex"}},
		{[]string{"pi"}, root, []string{"pi"}},
		{[]string{"bash"}, root, []string{"bash"}},
		{[]string{"claude-wrapper"}, root, []string{"claude-wrapper"}},
	} {
		got := AddArgs(slices.Clone(tc.argv), tc.root)
		if !slices.Equal(got, tc.want) {
			t.Errorf("AddArgs(%q, %s) = %q, want %q", tc.argv, tc.root, got, tc.want)
		}
	}
}

// opencode gets the root, and only it, as an allowed external directory,
// added to the user's own OPENCODE_CONFIG_CONTENT as its last rule, the
// user's rules kept in their order; a value pbwrap cannot add to is left
// alone, with the reason.
func TestOpencodeConfig(t *testing.T) {
	const root = "/tmp/pbwrap-1000"
	for _, tc := range []struct {
		old, want, err string
	}{
		{"", `{"permission":{"external_directory":{"/tmp/pbwrap-1000/**":"allow"}}}`, ""},
		{"  ", `{"permission":{"external_directory":{"/tmp/pbwrap-1000/**":"allow"}}}`, ""},
		{`{"model": "x/y", "lsp": true}`, `{"model":"x/y","lsp":true,"permission":{"external_directory":{"/tmp/pbwrap-1000/**":"allow"}}}`, ""},
		// Order is meaning: opencode takes the last rule that matches.
		{`{"permission": {"external_directory": {"~/z/**": "deny", "*": "ask", "/tmp/pbwrap-1000/**": "deny"}, "*": "ask"}, "share": "disabled"}`,
			`{"permission":{"external_directory":{"~/z/**":"deny","*":"ask","/tmp/pbwrap-1000/**":"allow"},"*":"ask"},"share":"disabled"}`, ""},
		// One action for all is written as opencode reads it.
		{`{"permission": "ask"}`, `{"permission":{"*":"ask","external_directory":{"/tmp/pbwrap-1000/**":"allow"}}}`, ""},
		{`{"permission": {"external_directory": "deny", "bash": "ask"}}`,
			`{"permission":{"external_directory":{"*":"deny","/tmp/pbwrap-1000/**":"allow"},"bash":"ask"}}`, ""},
		{`{"permission": null}`, `{"permission":{"external_directory":{"/tmp/pbwrap-1000/**":"allow"}}}`, ""},
		// Values are kept as they came, numbers and escapes too.
		{`{"n": 1.50, "s": "a\u00e9<b>"}`, `{"n":1.50,"s":"a\u00e9<b>","permission":{"external_directory":{"/tmp/pbwrap-1000/**":"allow"}}}`, ""},
		{`{"model": "x",}`, "", "its value is not a JSON object: invalid character '}'"},
		{`// comment` + "\n" + `{}`, "", "its value is not a JSON object: invalid character '/'"},
		{`["a"]`, "", "its value is not a JSON object: not a JSON object"},
		{`{} {}`, "", "its value is not a JSON object: invalid character '{' after top-level value"},
		{`{"permission": 3}`, "", "its permission is not an action or an object: not a JSON object"},
		{`{"permission": {"external_directory": []}}`, "", "its permission.external_directory is not an action or an object: not a JSON object"},
	} {
		got, err := opencodeConfig(tc.old, root)
		switch {
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("opencodeConfig(%q) = %q, %v; want error %q", tc.old, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("opencodeConfig(%q) =\n  %s, %v\nwant\n  %s", tc.old, got, err, tc.want)
		case err == nil && !json.Valid([]byte(got)):
			t.Errorf("opencodeConfig(%q) = %s: not JSON", tc.old, got)
		}
	}
}

// agentEnv sets opencode's variable for the interactive agent only, and
// leaves a value it cannot add to as it was, saying why.
func TestAgentEnv(t *testing.T) {
	const root = "/r"
	const added = `OPENCODE_CONFIG_CONTENT={"permission":{"external_directory":{"/r/**":"allow"}}}`
	base := []string{"HOME=/h", "PATH=/bin"}
	for _, tc := range []struct {
		argv, env, want []string
		err             string
	}{
		{[]string{"opencode"}, base, append(slices.Clone(base), added), ""},
		{[]string{"/opt/bin/opencode", "--continue", "/proj"}, base, append(slices.Clone(base), added), ""},
		{[]string{"opencode", "run", "hi"}, base, base, ""},
		{[]string{"opencode", "serve"}, base, base, ""},
		{[]string{"opencode", "--version"}, base, base, ""},
		{[]string{"claude"}, base, base, ""},
		{[]string{"bash"}, base, base, ""},
		// The user's value: merged, and set once.
		{[]string{"opencode"}, []string{"OPENCODE_CONFIG_CONTENT={}", "HOME=/h"},
			[]string{"HOME=/h", added}, ""},
		{[]string{"opencode"}, []string{"OPENCODE_CONFIG_CONTENT={bad", "HOME=/h"},
			[]string{"OPENCODE_CONFIG_CONTENT={bad", "HOME=/h"},
			"opencode: left OPENCODE_CONFIG_CONTENT as it was, so opencode may ask before reading the saved pastes: its value is not a JSON object"},
	} {
		got, err := AddEnv(tc.argv, slices.Clone(tc.env), root)
		if !slices.Equal(got, tc.want) {
			t.Errorf("AddEnv(%q, %q) = %q, want %q", tc.argv, tc.env, got, tc.want)
		}
		if (err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("AddEnv(%q, %q): error %v, want %q", tc.argv, tc.env, err, tc.err)
		}
	}
}
