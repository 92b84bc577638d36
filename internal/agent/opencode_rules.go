package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// opencode's read rules, as its read tool applies them (1.18.33's bundle:
// the Permission service and its Wildcard matcher). The tool asks
// permission "read" for the file's path relative to the worktree (the git
// repository's top, "/" outside one). The rules are a list of
// {permission, pattern, action}, the last that matches deciding, "ask"
// when none does: first opencode's defaults, which allow every read but
// ask for "*.env" and "*.env.*" (not "*.env.example"), then the
// permission object of each configuration, in the order opencode reads
// them, an agent's own permission after those. A pattern matches the
// whole path, "*" any run of characters ("/" included), "?" one, with
// case, "~/" and "$HOME" standing for the home directory.
//
// A file opencode would ask about, or deny, does not expand: the hook
// cannot ask the user. Any agent's rules count.

// opencodeRule is one permission rule.
type opencodeRule struct {
	permission, pattern, action, from string
}

// opencodeDefaults are opencode's own rules for reading.
var opencodeDefaults = []opencodeRule{
	{"*", "*", "allow", "opencode's defaults"},
	{"read", "*", "allow", "opencode's defaults"},
	{"read", "*.env", "ask", "opencode's defaults"},
	{"read", "*.env.*", "ask", "opencode's defaults"},
	{"read", "*.env.example", "allow", "opencode's defaults"},
}

// opencodeConfigFiles are the configuration files opencode reads in dir,
// in its order: the global ones, OPENCODE_CONFIG, the project's from the
// worktree's top down to dir, its .opencode directories, OPENCODE_CONFIG_DIR,
// then the managed ones.
func opencodeConfigFiles(env Env, dir, worktree string) []string {
	var files []string
	if global, err := env.file("XDG_CONFIG_HOME", ".config", "opencode"); err == nil {
		for _, n := range []string{"config.json", "opencode.json", "opencode.jsonc"} {
			files = append(files, filepath.Join(global, n))
		}
	}
	if f := env.Getenv("OPENCODE_CONFIG"); f != "" {
		files = append(files, f)
	}
	var dirs []string
	if env.Getenv("OPENCODE_DISABLE_PROJECT_CONFIG") == "" {
		for d := dir; ; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if d == worktree || filepath.Dir(d) == d {
				break
			}
		}
		slices.Reverse(dirs)
	}
	for _, d := range dirs {
		files = append(files, filepath.Join(d, "opencode.json"), filepath.Join(d, "opencode.jsonc"))
	}
	if home, err := env.Home(); err == nil {
		dirs = append([]string{home}, dirs...)
	}
	for _, d := range dirs {
		files = append(files, filepath.Join(d, ".opencode", "opencode.json"), filepath.Join(d, ".opencode", "opencode.jsonc"))
	}
	if d := env.Getenv("OPENCODE_CONFIG_DIR"); d != "" {
		files = append(files, filepath.Join(d, "opencode.json"), filepath.Join(d, "opencode.jsonc"))
	}
	managed := "/etc/opencode"
	if runtime.GOOS == "darwin" {
		managed = "/Library/Application Support/opencode"
	}
	return append(files, filepath.Join(managed, "opencode.json"), filepath.Join(managed, "opencode.jsonc"))
}

// opencodeRuleSet is the rules of the configurations: the top's, and each
// agent's own.
type opencodeRuleSet struct {
	top    []opencodeRule
	agents map[string][]opencodeRule
}

// parseOpencodeConfig reads the permission rules of one configuration
// text, from.
func parseOpencodeConfig(text []byte, from, home string, r *opencodeRuleSet) error {
	if jsonc.IsBlank(text, true) {
		return nil
	}
	obj, err := jsonc.ParseObject(jsonc.StripComments(text))
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	// The legacy tools object: false denies, true allows, before the
	// permission object.
	if t := obj.Get("tools"); t != nil {
		var tools map[string]bool
		if json.Unmarshal(t, &tools) == nil {
			for _, name := range slices.Sorted(maps.Keys(tools)) {
				action := "deny"
				if tools[name] {
					action = "allow"
				}
				r.top = append(r.top, opencodeRule{name, "*", action, from})
			}
		}
	}
	rules, err := opencodePermission(obj.Get("permission"), from, home)
	if err != nil {
		return err
	}
	r.top = append(r.top, rules...)
	for _, key := range []string{"agent", "mode"} {
		agents, err := jsonc.ParseObject(bytes.TrimSpace(obj.Get(key)))
		if err != nil {
			continue
		}
		for _, m := range agents {
			a, err := jsonc.ParseObject(m.Value)
			if err != nil {
				continue
			}
			rules, err := opencodePermission(a.Get("permission"), from, home)
			if err != nil {
				return err
			}
			r.agents[m.Name] = append(r.agents[m.Name], rules...)
		}
	}
	return nil
}

// opencodePermission reads a permission value: an action for every
// permission, or an object of permissions, each an action for every
// pattern or an object of patterns and actions, in their order.
func opencodePermission(v json.RawMessage, from, home string) ([]opencodeRule, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	var action string
	if json.Unmarshal(v, &action) == nil {
		return []opencodeRule{{"*", "*", action, from}}, nil
	}
	perms, err := jsonc.ParseObject(v)
	if err != nil {
		return nil, fmt.Errorf("%s: its permission is not an action or an object: %w", from, err)
	}
	var out []opencodeRule
	for _, p := range perms {
		if json.Unmarshal(p.Value, &action) == nil {
			out = append(out, opencodeRule{p.Name, "*", action, from})
			continue
		}
		patterns, err := jsonc.ParseObject(p.Value)
		if err != nil {
			continue // Not opencode's: it would refuse the configuration.
		}
		for _, pat := range patterns {
			if json.Unmarshal(pat.Value, &action) != nil {
				continue
			}
			out = append(out, opencodeRule{p.Name, opencodeExpand(pat.Name, home), action, from})
		}
	}
	return out, nil
}

// opencodeExpand writes a pattern's "~/" and "$HOME" as the home directory.
func opencodeExpand(pattern, home string) string {
	switch {
	case home == "":
	case strings.HasPrefix(pattern, "~/"):
		return home + pattern[1:]
	case strings.HasPrefix(pattern, "$HOME"):
		return home + pattern[len("$HOME"):]
	}
	return pattern
}

// opencodeMatch is opencode's Wildcard.match: the whole of s against
// pattern, "*" any run of characters, "?" any one, a trailing " *"
// optional.
func opencodeMatch(s, pattern string) bool {
	s = strings.ReplaceAll(s, `\`, "/")
	pattern = strings.ReplaceAll(pattern, `\`, "/")
	var b strings.Builder
	for _, c := range pattern {
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re := b.String()
	if strings.HasSuffix(re, " .*") {
		re = re[:len(re)-3] + "( .*)?"
	}
	m, err := regexp.MatchString("(?s)^(?:"+re+")$", s)
	return err == nil && m
}

// opencodeEvaluate is opencode's Permission.evaluate: the last rule
// matching the permission and the pattern, or an ask.
func opencodeEvaluate(permission, pattern string, rules []opencodeRule) opencodeRule {
	for _, r := range slices.Backward(rules) {
		if opencodeMatch(permission, r.permission) && opencodeMatch(pattern, r.pattern) {
			return r
		}
	}
	return opencodeRule{permission, "*", "ask", "no rule (opencode asks)"}
}

// opencodeReadRules returns opencode's read rules for the hook; each
// working directory's configuration is read once.
func opencodeReadRules(env Env) func(cwd, path string) (string, bool) {
	home, _ := env.Home()
	type loaded struct {
		worktree string
		rules    opencodeRuleSet
		err      error
	}
	cache := map[string]*loaded{}
	return func(cwd, p string) (string, bool) {
		if !filepath.IsAbs(cwd) || !filepath.IsAbs(p) {
			return "", false
		}
		dir := filepath.Clean(cwd)
		l, ok := cache[dir]
		if !ok {
			l = &loaded{worktree: opencodeWorktree(dir), rules: opencodeRuleSet{agents: map[string][]opencodeRule{}}}
			for _, file := range opencodeConfigFiles(env, dir, l.worktree) {
				text, _, err := readSettings(file)
				if err == nil {
					err = parseOpencodeConfig(text, file, home, &l.rules)
				}
				if err != nil && !(os.IsPermission(err) && strings.HasPrefix(file, "/etc/")) {
					l.err = fmt.Errorf("opencode's configuration: %w", err)
					break
				}
			}
			if l.err == nil {
				if s := env.Getenv("OPENCODE_CONFIG_CONTENT"); s != "" {
					l.err = parseOpencodeConfig([]byte(s), "OPENCODE_CONFIG_CONTENT", home, &l.rules)
				}
			}
			if s := env.Getenv("OPENCODE_PERMISSION"); s != "" && l.err == nil {
				rules, err := opencodePermission(json.RawMessage(s), "OPENCODE_PERMISSION", home)
				if err == nil {
					l.rules.top = append(l.rules.top, rules...)
				}
			}
			cache[dir] = l
		}
		if l.err != nil {
			return fmt.Sprintf("%v: a hook honours opencode's read permissions, and cannot read them", l.err), true
		}
		rel, err := filepath.Rel(l.worktree, filepath.Clean(p))
		if err != nil {
			return "", false
		}
		rel = filepath.ToSlash(rel)
		sets := [][]opencodeRule{slices.Concat(opencodeDefaults, l.rules.top)}
		for _, name := range slices.Sorted(maps.Keys(l.rules.agents)) {
			sets = append(sets, slices.Concat(opencodeDefaults, l.rules.top, l.rules.agents[name]))
		}
		for _, set := range sets {
			if r := opencodeEvaluate("read", rel, set); r.action != "allow" {
				return fmt.Sprintf(`permission.%s %q: %q in %s (the hook cannot ask you)`, r.permission, r.pattern, r.action, r.from), true
			}
		}
		return "", false
	}
}

// opencodeWorktree is the top of the git repository dir is in, as
// opencode takes it, or "/" outside one.
func opencodeWorktree(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return "/"
		}
	}
}
