package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fileref"
	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// gemini is Gemini CLI. It refuses paths outside its workspace, so pbwrap
// adds the root to it with --include-directories; in a trusted folder it
// adds such a directory only when the directory is trusted too, and asks
// at every start until it is (geminiTrust, which setup writes). Its hook
// is a BeforeTool hook in its user settings.
var gemini = &Agent{
	Name: "gemini", Title: "Gemini CLI",
	subcommands: []string{"mcp", "extensions", "skills", "hooks"},
	batch:       []string{"-p", "--prompt"},
	Args:        func(argv []string, root string) []string { return appendLast(argv, "--include-directories", root) },
	Reads:       "gemini --include-directories ROOT (refuses paths outside its workspace otherwise)",
	Hook: &Hook{
		Protocol: fileref.Protocol{Event: "BeforeTool", Reply: fileref.ToolInput, Tools: []fileref.Tool{
			{Name: "write_file", Fields: []string{"content"}, Target: "file_path"},
			{Name: "replace", Fields: []string{"new_string"}, Target: "file_path"},
		}},
		// Its read_file refuses what its ignore files name (gemini_rules.go).
		ReadRules: geminiReadRules,
		RulesAbout: "what Gemini CLI's read_file refuses (.gitignore, git's exclude file, .geminiignore and the custom " +
			"ignore files of its context.fileFiltering settings, deny and ask_user rules of its policy files, tools.exclude)",
		File: func(env Env) (string, error) {
			dir, err := geminiDir(env, false)
			return filepath.Join(dir, "settings.json"), err
		},
		Where:    "$GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json",
		anchored: true, Timeout: 30000, TimeoutUnit: "milliseconds", comments: true,
		About: `It answers with the whole tool input, expanded, as
hookSpecificOutput.tool_input, since Gemini CLI builds the call anew from
that object alone, and no decision, so Gemini CLI's policy asks as it would
have; a bad reference denies the call ("decision": "deny") with the reason.`,
		After:       "Gemini CLI runs the hook and reads the root from its next session on",
		AfterRemove: "Gemini CLI runs the hook no more from its next session on, and asks before it adds the root",
	},
	Trust: []File{geminiTrust},
	Check: checkGeminiTrust,
	Note:  geminiNote,
	E2E: E2E{
		Env: map[string]string{"GEMINI_API_KEY": geminiKey, "GOOGLE_GEMINI_BASE_URL": "{url}"},
		Files: func(s E2EStart) map[string]string {
			files := map[string]string{".gemini/settings.json": mustJSON(map[string]any{
				"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
				"general":  map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
				"privacy":  map[string]any{"usageStatisticsEnabled": false},
			})}
			if s.Trusted {
				files[".gemini/trustedFolders.json"] = mustJSON(map[string]any{s.Work: geminiTrustFolder})
			}
			return files
		},
		WriteArgs: []string{"--approval-mode", "auto_edit"},
		Ready:     "Type your message",
		Prompts:   []string{"Allow execution", "Do you trust", "Yes, allow", "Apply this change"},
		Questions: []Question{{"Do you trust the files in this folder?", []string{"Enter"}}},
		// Until pbwrap setup gemini, in a trusted folder (geminiNote); "Yes",
		// for this session, as one who has not read pbwrap's note answers.
		NotedQuestions: []Question{{"Do you trust the following folders being added to this workspace?", []string{"Enter"}}},
	},
}

// Gemini CLI's folder trust, as its source (packages/core/src/utils/trust.ts)
// defines it: a JSON file, comments allowed, of absolute paths and their
// trust levels.
const (
	geminiTrustFolder = "TRUST_FOLDER"
	geminiTrustParent = "TRUST_PARENT" // the folder's parent
	geminiDoNotTrust  = "DO_NOT_TRUST"
)

// geminiTrust is the root's trust in Gemini CLI's trusted folders: with
// it, Gemini CLI adds the root given with --include-directories to its
// workspace without asking at every start.
var geminiTrust = File{
	What: "the root's trust", Path: geminiTrustedFoldersPath, Root: true,
	Help:    `the root trusted in Gemini CLI's trusted folders ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json beside it), as "Yes, and remember the directories as trusted" records it (otherwise Gemini CLI asks at every start whether to trust the root)`,
	Install: func(text []byte, r *Run) ([]byte, error) { return geminiTrustInstall(text, r.Root) },
	Remove:  func(text []byte, r *Run) ([]byte, error) { return geminiTrustRemove(text, r.Root) },
}

// geminiDir is Gemini CLI's directory in the user's home:
// GEMINI_CLI_HOME/.gemini, else ~/.gemini (~/.cache/.gemini for its
// runtime files when it runs in its macOS sandbox).
func geminiDir(env Env, runtimeFiles bool) (string, error) {
	home := env.Getenv("GEMINI_CLI_HOME")
	if home == "" {
		var err error
		if home, err = env.Home(); err != nil {
			return "", err
		}
	}
	if runtimeFiles && env.Getenv("SANDBOX") == "sandbox-exec" {
		return filepath.Join(home, ".cache", ".gemini"), nil
	}
	return filepath.Join(home, ".gemini"), nil
}

// geminiTrustedFoldersPath is the file Gemini CLI reads the trusted folders
// from: GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json in its
// directory.
func geminiTrustedFoldersPath(env Env) (string, error) {
	if p := env.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p, nil
	}
	dir, err := geminiDir(env, true)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "trustedFolders.json"), nil
}

// geminiTrustInstall returns text, Gemini CLI's trusted folders, with root
// trusted: unchanged when a rule trusts it already, else root's own rule
// set to TRUST_FOLDER, or added as the last.
func geminiTrustInstall(text []byte, root string) ([]byte, error) {
	rules, err := geminiRulesOf(text)
	if err != nil {
		return nil, fmt.Errorf("cannot be read as Gemini CLI's trusted folders: %w", err)
	}
	if rule, ok := geminiTrusts(rules, root); ok && rule.level != geminiDoNotTrust {
		return text, nil
	}
	level := jsonc.String(geminiTrustFolder)
	if jsonc.IsBlank(text, true) {
		return jsonc.AfterComments(text, jsonc.Object{{Name: root, Value: level}}.Marshal()), nil
	}
	ed, err := jsonc.NewEditor(text, true)
	if err != nil {
		return nil, err
	}
	if v, ok, err := ed.Member(ed.Top(), root); err != nil {
		return nil, err
	} else if ok {
		ed.Replace(v, level)
	} else if err := ed.InsertMember(ed.Top(), root, level); err != nil {
		return nil, err
	}
	return ed.Apply(), nil
}

// geminiTrustRemove returns text without root's own TRUST_FOLDER rule;
// nil when the file held nothing else.
func geminiTrustRemove(text []byte, root string) ([]byte, error) {
	if jsonc.IsBlank(text, true) {
		return text, nil
	}
	ed, err := jsonc.NewEditor(text, true)
	if err != nil {
		return nil, err
	}
	v, ok, err := ed.Member(ed.Top(), root)
	if err != nil || !ok || string(ed.Raw(v)) != string(jsonc.String(geminiTrustFolder)) {
		return text, err
	}
	if _, err := ed.RemoveMember(ed.Top(), root); err != nil {
		return nil, err
	}
	out := ed.Apply()
	if jsonc.IsEmptyObject(out) {
		return nil, nil
	}
	return out, nil
}

// A geminiRule is one entry of the trusted-folders file.
type geminiRule struct{ path, level string }

// readGeminiTrust reads the trusted-folders file: its rules in order, each
// path normalized as Gemini CLI does, a repeated path keeping its first
// place and its last level. A missing file has no rules.
func readGeminiTrust(file string) ([]geminiRule, error) {
	text, _, err := readSettings(file) // A regular file of bounded size, not waited for.
	if err != nil || text == nil {
		return nil, err
	}
	return geminiRulesOf(text)
}

// geminiRulesOf reads text, a trusted-folders file, as readGeminiTrust
// does.
func geminiRulesOf(text []byte) ([]geminiRule, error) {
	if jsonc.IsBlank(text, true) {
		return nil, nil
	}
	obj, err := jsonc.ParseObject(jsonc.StripComments(text))
	if err != nil {
		return nil, err
	}
	var rules []geminiRule
	index := map[string]int{}
	for _, m := range obj {
		var level string
		if json.Unmarshal(m.Value, &level) != nil ||
			level != geminiTrustFolder && level != geminiTrustParent && level != geminiDoNotTrust {
			return nil, fmt.Errorf("invalid trust level %s for %q", m.Value, m.Name)
		}
		p := geminiNormalize(m.Name)
		if i, ok := index[p]; ok {
			rules[i].level = level
			continue
		}
		index[p] = len(rules)
		rules = append(rules, geminiRule{p, level})
	}
	return rules, nil
}

// geminiNormalize makes p absolute (from the working directory), and lower
// case where Gemini CLI compares paths without case (macOS).
func geminiNormalize(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if runtime.GOOS == "darwin" {
		p = strings.ToLower(p)
	}
	return p
}

// geminiRealpath resolves p when it exists, as Gemini CLI does before it
// compares.
func geminiRealpath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// geminiTrusts returns the rule that decides whether Gemini CLI trusts dir:
// of the rules whose folder (a TRUST_PARENT rule's parent) holds dir, the
// one with the longest path, the first of those. ok is false when no rule
// does.
func geminiTrusts(rules []geminiRule, dir string) (rule geminiRule, ok bool) {
	location := geminiNormalize(geminiRealpath(dir))
	for _, r := range rules {
		folder := r.path
		if r.level == geminiTrustParent {
			folder = filepath.Dir(folder)
		}
		folder = geminiNormalize(geminiRealpath(folder))
		if fsutil.Within(folder, location) && (!ok || len(r.path) > len(rule.path)) {
			rule, ok = r, true
		}
	}
	return rule, ok
}

// geminiFolderTrustOff reports whether the user's Gemini CLI settings turn
// folder trust off (security.folderTrust.enabled false): then Gemini CLI
// adds the root without asking.
func geminiFolderTrustOff(env Env) bool {
	dir, err := geminiDir(env, false)
	if err != nil {
		return false
	}
	text, _, err := readSettings(filepath.Join(dir, "settings.json"))
	if err != nil || text == nil {
		return false
	}
	var s struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if json.Unmarshal(jsonc.StripComments(text), &s) != nil {
		return false
	}
	return s.Security.FolderTrust.Enabled != nil && !*s.Security.FolderTrust.Enabled
}

// checkGeminiTrust says whether Gemini CLI trusts the root. When the
// folder it starts in is trusted, Gemini CLI adds a directory given with
// --include-directories only if that one is trusted too: it asks at the
// start of every session until the user answers "Yes, and remember the
// directories as trusted"; a root it is told not to trust is not added
// at all, so Gemini CLI cannot read the saved pastes.
func checkGeminiTrust(env Env, root string) []Finding {
	if root == "" {
		return nil
	}
	file, err := geminiTrustedFoldersPath(env)
	if err != nil {
		return []Finding{note("trusted folders: not read (%s)", err)}
	}
	rules, err := readGeminiTrust(file)
	if err != nil {
		return []Finding{{Line: msg("trusted folders (%s): cannot be read: %s", file, err),
			Problem: msg("Gemini CLI's trusted folders file %s cannot be read (%s): Gemini CLI stops at start", file, err),
			Fix:     msg("fix or remove the file")}}
	}
	rule, ok := geminiTrusts(rules, root)
	switch {
	case ok && rule.level == geminiDoNotTrust:
		return []Finding{{Line: msg("trusted folders (%s): the root is NOT trusted (%s: %s)", file, quoted(rule.path), rule.level),
			Problem: msg("Gemini CLI does not trust %s (%s is %s in %s), so it will not add it to its workspace "+
				"and cannot read the saved pastes", root, quoted(rule.path), rule.level, file),
			Fix: msg("set %s to %s in %s (or with /permissions in Gemini CLI)", quoted(root), geminiTrustFolder, file)}}
	case ok:
		return []Finding{note("trusted folders (%s): the root is trusted (%s: %s)", file, quoted(rule.path), rule.level)}
	case geminiFolderTrustOff(env):
		return []Finding{note("trusted folders: folder trust is off in Gemini CLI's settings, so it adds the root without asking")}
	}
	return []Finding{{Line: msg("trusted folders (%s): no rule for the root", file),
		Problem: msg("Gemini CLI asks at every start in a trusted folder whether to trust %s "+
			"(\"Do you trust the following folders being added to this workspace?\"): no rule in %s trusts it", root, file),
		Fix: msg("pbwrap setup gemini, which trusts it there (as answering \"Yes, and remember the directories as trusted\" once does)")}}
}
