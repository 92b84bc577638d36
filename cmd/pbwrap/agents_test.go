package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestAgentArgs(t *testing.T) {
	const root = "/tmp/pbwrap-1000"
	outside := "/var/pbwrap-root"
	for _, tc := range []struct {
		argv []string
		root string
		want []string
	}{
		// Claude Code: the = form right after the name, only interactively.
		{[]string{"claude"}, root, []string{"claude", "--add-dir=" + root}},
		{[]string{"/usr/local/bin/claude", "--resume"}, root, []string{"/usr/local/bin/claude", "--add-dir=" + root, "--resume"}},
		{[]string{"claude", "fix the bug"}, root, []string{"claude", "--add-dir=" + root, "fix the bug"}},
		{[]string{"claude", "mcp", "list"}, root, []string{"claude", "mcp", "list"}},
		{[]string{"claude", "doctor"}, root, []string{"claude", "doctor"}},
		{[]string{"claude", "-p", "hello"}, root, []string{"claude", "-p", "hello"}},
		{[]string{"claude", "--print", "hello"}, root, []string{"claude", "--print", "hello"}},
		{[]string{"claude", "--version"}, root, []string{"claude", "--version"}},
		{[]string{"claude", "--model", "opus", "mcp"}, root, []string{"claude", "--add-dir=" + root, "--model", "opus", "mcp"}},
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
		got := agentArgs(slices.Clone(tc.argv), tc.root)
		if !slices.Equal(got, tc.want) {
			t.Errorf("agentArgs(%q, %s) = %q, want %q", tc.argv, tc.root, got, tc.want)
		}
	}
}
