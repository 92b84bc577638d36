package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// Claude Code's read rules. Its settings deny its tools files with
// permissions.deny entries "Read(SPEC)" (or "Read" alone, every file), in
// every settings file it reads: managed (by an administrator), the user's,
// and the project's shared and local files. pbwrap's hook reads with all
// of the user's rights, so it honours them: a reference to a file Claude
// Code may not read does not expand (pasteref.ErrDenied).
//
// SPEC is a path pattern in the way of gitignore: "//abs/path" is
// absolute, "~/path" below the home directory, "/path" relative to the
// settings file (taken here as both its directory and the one above it,
// which is the project for .claude/settings.json), "./path" and a "path"
// with a slash relative to the working directory (and to the project, when
// the agent works below it), and a "name" without a slash matches that name
// at any depth below those. "*"
// matches within a name, "**" any number of directories; a pattern that
// names a directory denies everything below it. Where the documentation
// leaves a choice, the hook takes the one that denies more.

// claudeManaged are the managed settings files' directory and name, by
// system.
func claudeManaged() (dir string) {
	if runtime.GOOS == "darwin" {
		return "/Library/Application Support/ClaudeCode"
	}
	return "/etc/claude-code"
}

// claudeReadRules returns Claude Code's read rules for the hook: the
// settings files of a working directory are found, and each is read,
// once, when a path is first checked.
func claudeReadRules(env Env) func(cwd, path string) (string, bool) {
	var homes []string // as given and resolved: ~/ rules name either
	if home, err := env.Home(); err == nil {
		homes = append(homes, home)
		if real, err := filepath.EvalSymlinks(home); err == nil && real != home {
			homes = append(homes, real)
		}
	}
	if homes == nil {
		homes = []string{""}
	}
	cache := map[string]settingsRules{}
	files := map[string][]string{}
	load := func(file string) settingsRules {
		r, ok := cache[file]
		if !ok {
			r = readSettingsRules(file)
			cache[file] = r
		}
		return r
	}
	return func(cwd, p string) (string, bool) {
		list, ok := files[cwd]
		if !ok {
			list = claudeSettingsFiles(env, cwd)
			files[cwd] = list
		}
		for _, file := range list {
			r := load(file)
			if r.err != nil {
				return fmt.Sprintf("%v: a hook honours its read rules, and cannot read them", r.err), true
			}
			bases := []string{filepath.Dir(file), filepath.Dir(filepath.Dir(file))}
			for _, spec := range r.specs {
				for _, home := range homes {
					if denies(spec, p, cwd, home, bases) {
						return fmt.Sprintf("%s in %s", ruleText(spec), file), true
					}
				}
			}
		}
		return "", false
	}
}

// claudeSettingsFiles lists the settings files Claude Code reads in cwd:
// the managed ones, the user's, and the project files of cwd and of every
// directory above it (it may have been started in any of them).
func claudeSettingsFiles(env Env, cwd string) []string {
	dir := claudeManaged()
	files := []string{filepath.Join(dir, "managed-settings.json")}
	if more, err := filepath.Glob(filepath.Join(dir, "managed-settings.d", "*.json")); err == nil {
		files = append(files, more...)
	}
	if user, err := env.file("CLAUDE_CONFIG_DIR", ".claude", "settings.json"); err == nil {
		files = append(files, user)
	}
	if !filepath.IsAbs(cwd) {
		return files
	}
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		files = append(files, filepath.Join(d, ".claude", "settings.json"), filepath.Join(d, ".claude", "settings.local.json"))
		if filepath.Dir(d) == d {
			return files
		}
	}
}

// settingsRules are the read rules of one settings file: the SPECs of its
// Read deny rules ("" for "Read" alone), or why it could not be read.
type settingsRules struct {
	specs []string
	err   error
}

// readSettingsRules reads the Read deny rules of a settings file. A
// missing file has none; one that cannot be read or parsed is an error.
func readSettingsRules(file string) settingsRules {
	// Bounded, and without waiting: the agent can write a project's
	// settings file, and make it a named pipe or a huge file.
	data, _, err := fsutil.ReadRegular(file, MaxSettingsBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) && strings.HasPrefix(file, claudeManaged()):
		// An administrator's file this user cannot read: Claude Code,
		// running as the user, cannot read it either.
		return settingsRules{}
	case err != nil:
		return settingsRules{err: fmt.Errorf("Claude Code's settings: %w", err)}
	}
	var s struct {
		Permissions struct {
			Deny []any `json:"deny"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return settingsRules{err: fmt.Errorf("Claude Code's settings %s: %w", file, err)}
	}
	var r settingsRules
	for _, d := range s.Permissions.Deny {
		rule, ok := d.(string)
		if !ok {
			continue
		}
		rule = strings.TrimSpace(rule)
		switch {
		case rule == "Read":
			r.specs = append(r.specs, "")
		case strings.HasPrefix(rule, "Read(") && strings.HasSuffix(rule, ")"):
			r.specs = append(r.specs, strings.TrimSpace(rule[len("Read("):len(rule)-1]))
		}
	}
	return r
}

// ruleText is the rule as written in the settings.
func ruleText(spec string) string {
	if spec == "" {
		return "Read"
	}
	return "Read(" + spec + ")"
}

// denies reports whether the rule Read(spec) denies the absolute path p,
// for an agent working in cwd, with the settings file's bases.
func denies(spec, p, cwd, home string, bases []string) bool {
	switch {
	case spec == "" || spec == "*" || spec == "**" || spec == "//**":
		return true
	case strings.HasPrefix(spec, "//"):
		return matchBelow(spec[1:], p)
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		return filepath.IsAbs(home) && matchBelow(filepath.Join(home, spec[1:]), p)
	case strings.HasPrefix(spec, "/"):
		for _, b := range bases {
			if matchBelow(b+spec, p) {
				return true
			}
		}
		return false
	}
	rel := strings.TrimPrefix(spec, "./")
	if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") {
		// A name alone: at any depth.
		rel = "**/" + rel
	}
	// Relative to the working directory, and to the project the settings
	// file is in, which may be above it.
	for _, dir := range []string{cwd, bases[len(bases)-1]} {
		if filepath.IsAbs(dir) && matchBelow(filepath.Join(dir, rel), p) {
			return true
		}
	}
	return false
}

// matchBelow reports whether the absolute pattern pat names p or a
// directory above it.
func matchBelow(pat, p string) bool {
	return matchPrefix(split(pat), split(filepath.Clean(p)))
}

// split splits an absolute path into its names.
func split(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

// matchPrefix reports whether the names pat match the first names of p:
// "**" any number of them, another name by path.Match (a name that is not
// a valid pattern, only itself). It takes time in proportion to
// len(pat)*len(p), whatever the pattern: a project's settings, which the
// agent can write, cannot make the hook run long.
func matchPrefix(pat, p []string) bool {
	// m[j] is whether pat[i:] matches a prefix of p[j:], for the i of the
	// loop, filled from the end.
	m := make([]bool, len(p)+1)
	for j := range m {
		m[j] = true // An empty pattern matches.
	}
	next := make([]bool, len(p)+1)
	for i := len(pat) - 1; i >= 0; i-- {
		next, m = m, next
		for j := len(p); j >= 0; j-- {
			if pat[i] == "**" {
				m[j] = next[j] || j < len(p) && m[j+1]
				continue
			}
			m[j] = j < len(p) && next[j+1] && nameMatch(pat[i], p[j])
		}
	}
	return m[0]
}

// nameMatch matches one name against one name of a pattern.
func nameMatch(pat, name string) bool {
	ok, err := path.Match(pat, name)
	if err != nil {
		return pat == name
	}
	return ok
}
