package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// agentEnvAdded says, for pbwrap doctor, what pbwrap adds to the
// environment of agent a so that it reads root, and reports the problem
// when it cannot: with --no-agent-args, or a value of the user's that
// pbwrap leaves alone. ok is false after a problem.
func (d *doctor) agentEnvAdded(a *agent, cfg *config, root string) (added string, ok bool) {
	if cfg.noAgentArgs {
		return "", false
	}
	env, err := agentEnv([]string{a.name}, os.Environ(), root)
	if err != nil {
		d.problem(printable(err.Error()), fmt.Sprintf("make %s a JSON object, or unset it, or allow %s in %s's own settings", a.env.name, printable(root), a.name))
		return "", true
	}
	for _, kv := range env {
		if hasKey(kv, a.env.name) {
			return kv, true
		}
	}
	return "", true
}

// Gemini CLI's folder trust, as its source (packages/core/src/utils/trust.ts)
// defines it: a JSON file, comments allowed, of absolute paths and their
// trust levels.
const (
	geminiTrustFolder = "TRUST_FOLDER"
	geminiTrustParent = "TRUST_PARENT" // the folder's parent
	geminiDoNotTrust  = "DO_NOT_TRUST"
)

// geminiDir is Gemini CLI's directory in the user's home:
// GEMINI_CLI_HOME/.gemini, else ~/.gemini (~/.cache/.gemini for its
// runtime files when it runs in its macOS sandbox).
func geminiDir(runtimeFiles bool) (string, error) {
	home := os.Getenv("GEMINI_CLI_HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", err
		}
	}
	if runtimeFiles && os.Getenv("SANDBOX") == "sandbox-exec" {
		return filepath.Join(home, ".cache", ".gemini"), nil
	}
	return filepath.Join(home, ".gemini"), nil
}

// geminiTrustedFoldersPath is the file Gemini CLI reads the trusted folders
// from: GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json in its
// directory.
func geminiTrustedFoldersPath() (string, error) {
	if p := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p, nil
	}
	dir, err := geminiDir(true)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "trustedFolders.json"), nil
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
func geminiFolderTrustOff() bool {
	dir, err := geminiDir(false)
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
func (d *doctor) checkGeminiTrust(root string) {
	file, err := geminiTrustedFoldersPath()
	if err != nil {
		fmt.Printf("      trusted folders: not read (%v)\n", printableError(err))
		return
	}
	rules, err := readGeminiTrust(file)
	// The file's name (from the environment), the root and the file's
	// errors are printed escaped; its paths are quoted.
	file, shownRoot := printable(file), printable(root)
	if err != nil {
		fmt.Printf("      trusted folders (%s): cannot be read: %v\n", file, printableError(err))
		d.problem(fmt.Sprintf("Gemini CLI's trusted folders file %s cannot be read (%v): Gemini CLI stops at start", file, printableError(err)),
			"fix or remove the file")
		return
	}
	rule, ok := geminiTrusts(rules, root)
	switch {
	case ok && rule.level == geminiDoNotTrust:
		fmt.Printf("      trusted folders (%s): the root is NOT trusted (%q: %s)\n", file, rule.path, rule.level)
		d.problem(fmt.Sprintf("Gemini CLI does not trust %s (%q is %s in %s), so it will not add it to its workspace "+
			"and cannot read the saved pastes", shownRoot, rule.path, rule.level, file),
			fmt.Sprintf("set %q to %s in %s (or with /permissions in Gemini CLI)", root, geminiTrustFolder, file))
	case ok:
		fmt.Printf("      trusted folders (%s): the root is trusted (%q: %s)\n", file, rule.path, rule.level)
	case geminiFolderTrustOff():
		fmt.Printf("      trusted folders: folder trust is off in Gemini CLI's settings, so it adds the root without asking\n")
	default:
		fmt.Printf("      trusted folders (%s): no rule for the root\n", file)
		d.problem(fmt.Sprintf("Gemini CLI asks at every start in a trusted folder whether to trust %s "+
			"(\"Do you trust the following folders being added to this workspace?\"): no rule in %s trusts it", shownRoot, file),
			"pbwrap setup gemini, which trusts it there (as answering \"Yes, and remember the directories as trusted\" once does)")
	}
}
