package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/pbwrap/pbwrap/internal/jsonc"
	"github.com/pbwrap/pbwrap/internal/jsregexp"
)

// Gemini CLI's policy engine decides, besides its ignore files, whether
// read_file runs: rules in the TOML files of its policy directories (the
// system's, /etc/gemini-cli/policies or /Library/Application
// Support/GeminiCli/policies; the user's, ~/.gemini/policies; the
// workspace's, .gemini/policies), each with a tool name (a name, a list,
// "*"), a decision ("allow", "deny", "ask_user"), a priority, and an
// argsPattern, a JavaScript regular expression tested on the call's
// arguments as JSON with sorted keys ({"file_path": ...}). And the
// settings' tools.exclude can take read_file away.
//
// The hook honours a deny or ask_user rule for read_file (or "*") whose
// pattern matches the file, whatever rule of a higher priority might
// allow it: it cannot ask, and it denies more rather than less. A rule
// for an MCP server's tools (mcpName) is not read_file's.

// geminiPolicyRule is one [[rule]] of a policy file, as far as the hook
// reads it.
type geminiPolicyRule struct {
	ToolName    any    `toml:"toolName"`
	McpName     string `toml:"mcpName"`
	ArgsPattern string `toml:"argsPattern"`
	Decision    string `toml:"decision"`
}

// geminiPolicy is the read_file rules that keep files out, from files.
type geminiPolicy struct {
	rules []geminiReadRule
	all   string // a reason every read is kept out, "" for none
	err   error
}

// geminiReadRule is a deny or ask_user rule for read_file.
type geminiReadRule struct {
	text, file string
	pattern    string // "" for every file
}

// geminiPolicyDirs are Gemini CLI's policy directories for a project.
func geminiPolicyDirs(env Env, root string) []string {
	system := "/etc/gemini-cli"
	if runtime.GOOS == "darwin" {
		system = "/Library/Application Support/GeminiCli"
	}
	dirs := []string{filepath.Join(system, "policies")}
	if dir, err := geminiDir(env, false); err == nil {
		dirs = append(dirs, filepath.Join(dir, "policies"))
	}
	return append(dirs, filepath.Join(root, ".gemini", "policies"))
}

// readGeminiPolicy reads the policy directories and the settings'
// tools.exclude.
func readGeminiPolicy(env Env, root string) geminiPolicy {
	var p geminiPolicy
	for _, dir := range geminiPolicyDirs(env, root) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // None there, or none this user (and Gemini CLI) may read.
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".toml") {
				continue
			}
			file := filepath.Join(dir, e.Name())
			text, _, err := readSettings(file)
			if err != nil {
				p.err = fmt.Errorf("Gemini CLI's policy: %w", err)
				return p
			}
			var doc struct {
				Rule []geminiPolicyRule `toml:"rule"`
			}
			if _, err := toml.Decode(string(text), &doc); err != nil {
				p.err = fmt.Errorf("Gemini CLI's policy %s: %w", file, err)
				return p
			}
			for _, r := range doc.Rule {
				if r.McpName != "" || r.Decision != "deny" && r.Decision != "ask_user" || !geminiNamesReadFile(r.ToolName) {
					continue
				}
				p.rules = append(p.rules, geminiReadRule{fmt.Sprintf("a %s rule for read_file", r.Decision), file, r.ArgsPattern})
			}
		}
	}
	files, _ := geminiSettingsFiles(env, root)
	for _, file := range files {
		text, _, err := readSettings(file)
		if err != nil || text == nil {
			continue // readGeminiFiltering said why.
		}
		var s struct {
			Tools struct {
				Exclude []string `json:"exclude"`
			} `json:"tools"`
		}
		if json.Unmarshal(jsonc.StripComments(text), &s) == nil && slices.ContainsFunc(s.Tools.Exclude, func(t string) bool {
			return t == "read_file" || t == "ReadFileTool"
		}) {
			p.all = "tools.exclude takes read_file away in " + file
		}
	}
	return p
}

// geminiNamesReadFile reports whether a rule's toolName covers read_file.
func geminiNamesReadFile(v any) bool {
	switch n := v.(type) {
	case string:
		return n == "read_file" || n == "*"
	case []any:
		for _, x := range n {
			if s, ok := x.(string); ok && (s == "read_file" || s == "*") {
				return true
			}
		}
	}
	return false
}

// denies reports whether the policy keeps path out of read_file.
func (p *geminiPolicy) denies(path string) (string, bool) {
	switch {
	case p.err != nil:
		return fmt.Sprintf("%v: a hook honours Gemini CLI's policy, and cannot read it", p.err), true
	case p.all != "":
		return p.all, true
	}
	var args bytes.Buffer
	enc := json.NewEncoder(&args)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"file_path": path}) // A string map: it cannot fail.
	stringified := strings.TrimSuffix(args.String(), "\n")
	for _, r := range p.rules {
		if r.pattern == "" {
			return fmt.Sprintf("%s in %s", r.text, r.file), true
		}
		re, err := jsregexp.Compile(r.pattern, false)
		if err != nil {
			return fmt.Sprintf("%s in %s, whose argsPattern %q the hook cannot read (%v)", r.text, r.file, r.pattern, err), true
		}
		if re.MatchString(stringified) {
			return fmt.Sprintf("%s (argsPattern %q) in %s", r.text, r.pattern, r.file), true
		}
	}
	return "", false
}
