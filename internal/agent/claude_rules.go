package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/gitignore"
)

// Claude Code's read rules. Its settings deny its tools files with
// permissions.deny entries "Read(SPEC)" (or "Read" alone, every file), and
// have it ask first with permissions.ask entries of the same form, in
// every settings file it reads: managed (by an administrator), the user's,
// and the project's shared and local files. pbwrap's hook reads with all
// of the user's rights, so it honours them: a reference to a file Claude
// Code may not read does not expand (fileref's errDenied).
//
// SPEC is a path pattern in the way of gitignore: "//abs/path" is
// absolute, "~/path" below the home directory, "/path" relative to the
// settings file (taken here as both its directory and the one above it,
// which is the project for .claude/settings.json), "./path" and a "path"
// with a slash relative to the working directory (and to the project, when
// the agent works below it), and a "name" without a slash matches that name
// at any depth below those. "*" matches within a name, "**" any number of
// directories; a pattern that names a directory denies everything below
// it. Claude Code matches them by node-ignore's rules, without case, and
// takes "[!...]" for a class of the characters it does not list
// (internal/gitignore). Where the documentation leaves a choice, the hook
// takes the one that denies more.

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
			for i, spec := range r.specs {
				for _, home := range homes {
					if denies(spec, p, cwd, home, bases) {
						return fmt.Sprintf("%s in %s%s", ruleText(spec), file, r.kinds[i]), true
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
// Read deny and ask rules ("" for "Read" alone), each with its kind for
// messages, or why it could not be read.
type settingsRules struct {
	specs []string
	kinds []string
	err   error
}

// readSettingsRules reads the Read deny and ask rules of a settings file:
// Claude Code asks the user before a read an ask rule names, whatever
// its allow rules say, and a hook cannot ask, so an ask rule keeps a file
// out as a deny rule does. A missing file has none; one that cannot be
// read or parsed is an error.
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
			Ask  []any `json:"ask"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return settingsRules{err: fmt.Errorf("Claude Code's settings %s: %w", file, err)}
	}
	var r settingsRules
	for _, l := range []struct {
		kind string
		list []any
	}{{"", s.Permissions.Deny}, {" (an ask rule: Claude Code would ask you)", s.Permissions.Ask}} {
		kind := l.kind
		for _, d := range l.list {
			rule, ok := d.(string)
			if !ok {
				continue
			}
			rule = strings.TrimSpace(rule)
			switch {
			case rule == "Read":
				r.specs, r.kinds = append(r.specs, ""), append(r.kinds, kind)
			case strings.HasPrefix(rule, "Read(") && strings.HasSuffix(rule, ")"):
				r.specs, r.kinds = append(r.specs, strings.TrimSpace(rule[len("Read("):len(rule)-1])), append(r.kinds, kind)
			}
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
// for an agent working in cwd, with the settings file's bases. The
// pattern is matched from its root by node-ignore's rules, as Claude Code
// matches it: without case, a name without a slash at any depth below
// the root, a directory's pattern for everything below it, and "[!...]"
// as the class of characters it does not list.
func denies(spec, p, cwd, home string, bases []string) bool {
	switch {
	case spec == "" || spec == "*" || spec == "**" || spec == "//**":
		return true
	case strings.HasPrefix(spec, "//"):
		return matchFrom("/", spec[1:], p)
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		return filepath.IsAbs(home) && matchFrom(home, "/"+strings.TrimPrefix(spec[1:], "/"), p)
	case strings.HasPrefix(spec, "/"):
		for _, b := range bases {
			if matchFrom(b, spec, p) {
				return true
			}
		}
		return false
	}
	rel := strings.TrimPrefix(spec, "./")
	// Relative to the working directory, and to the project the settings
	// file is in, which may be above it.
	for _, dir := range []string{cwd, bases[len(bases)-1]} {
		if filepath.IsAbs(dir) && matchFrom(dir, rel, p) {
			return true
		}
	}
	return false
}

// matchFrom reports whether pattern, a rule's path pattern read from the
// directory root, names the absolute path p or a directory above it. It
// runs in time linear in the pattern and the path (Go's regular
// expressions; a path deeper than gitignore.MaxDepth is denied), so a
// project's settings, which the agent can write, cannot make the hook
// run long.
func matchFrom(root, pattern, p string) bool {
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	if pattern == "/" || pattern == "" {
		return true // The root itself: everything below it.
	}
	ignored, _, err := gitignore.New(true).BangClasses().Add(pattern).Ignores(filepath.ToSlash(rel))
	return ignored || errors.Is(err, gitignore.ErrTooDeep)
}
