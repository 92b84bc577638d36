package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pbwrap/pbwrap/internal/gitignore"
	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// Gemini CLI's read rules, as its read_file tool applies them (0.61:
// packages/core/src/services/fileDiscoveryService.ts and the parsers it
// uses, utils/gitIgnoreParser.ts and utils/ignoreFileParser.ts). The
// project root is the directory it works in. It refuses a file that
//
//   - its .geminiignore at the project root names, and the files of its
//     context.fileFiltering.customIgnoreFilePaths (relative to the root);
//   - in a git repository (a .git at the root or above it), .git itself,
//     .git/info/exclude at the root, or a .gitignore at the root or in a
//     directory on the way down to the file names, each relative to its own
//     directory, unless a directory above was already ignored, the
//     .geminiignore and custom patterns last, so that they may take a file
//     back ("!");
//
// all matched by node-ignore, without case. context.fileFiltering's
// respectGitIgnore and respectGeminiIgnore (true unless set) turn the
// two off; with either off, each kind is asked on its own, and the
// custom files always. Nothing outside the project root is refused.
//
// The settings come from the system defaults, the user's, the
// workspace's (.gemini/settings.json at the root) and the system's
// files, the later winning; a workspace file, which the agent can write,
// may not turn a rule off here (Gemini CLI read it at its start, the hook
// reads it at each call).

// geminiFiltering is context.fileFiltering as the hook honours it.
type geminiFiltering struct {
	respectGit, respectGemini bool
	custom                    []string
}

// geminiSettingsFiles are Gemini CLI's settings files in the order it
// merges them, and whether each is the workspace's.
func geminiSettingsFiles(env Env, root string) (files []string, workspace []bool) {
	system := env.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = "/etc/gemini-cli/settings.json"
		if runtime.GOOS == "darwin" {
			system = "/Library/Application Support/GeminiCli/settings.json"
		}
	}
	defaults := env.Getenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	files = append(files, defaults)
	if dir, err := geminiDir(env, false); err == nil {
		files = append(files, filepath.Join(dir, "settings.json"))
	}
	files = append(files, filepath.Join(root, ".gemini", "settings.json"), system)
	workspace = make([]bool, len(files))
	workspace[len(files)-2] = true
	return files, workspace
}

// readGeminiFiltering reads context.fileFiltering from the settings.
func readGeminiFiltering(env Env, root string) (geminiFiltering, error) {
	f := geminiFiltering{respectGit: true, respectGemini: true}
	files, workspace := geminiSettingsFiles(env, root)
	for i, file := range files {
		text, _, err := readSettings(file)
		switch {
		case errors.Is(err, fs.ErrPermission) && (i == 0 || i == len(files)-1):
			continue // An administrator's file this user cannot read: neither can Gemini CLI.
		case err != nil:
			return f, fmt.Errorf("Gemini CLI's settings: %w", err)
		case text == nil || jsonc.IsBlank(text, true):
			continue
		}
		var s struct {
			Context struct {
				FileFiltering struct {
					RespectGitIgnore      *bool    `json:"respectGitIgnore"`
					RespectGeminiIgnore   *bool    `json:"respectGeminiIgnore"`
					CustomIgnoreFilePaths []string `json:"customIgnoreFilePaths"`
				} `json:"fileFiltering"`
			} `json:"context"`
		}
		if err := json.Unmarshal(jsonc.StripComments(text), &s); err != nil {
			return f, fmt.Errorf("Gemini CLI's settings %s: %w", file, err)
		}
		ff := s.Context.FileFiltering
		if v := ff.RespectGitIgnore; v != nil && (*v || !workspace[i]) {
			f.respectGit = *v
		}
		if v := ff.RespectGeminiIgnore; v != nil && (*v || !workspace[i]) {
			f.respectGemini = *v
		}
		if ff.CustomIgnoreFilePaths != nil {
			if workspace[i] {
				// Only more files, never fewer.
				f.custom = append(f.custom, ff.CustomIgnoreFilePaths...)
			} else {
				f.custom = ff.CustomIgnoreFilePaths
			}
		}
	}
	return f, nil
}

// geminiReadRules returns Gemini CLI's read rules for the hook; each
// working directory's ignore files are read once.
func geminiReadRules(env Env) func(cwd, path string) (string, bool) {
	filters := map[string]*geminiFilter{}
	return func(cwd, p string) (string, bool) {
		if !filepath.IsAbs(cwd) || !filepath.IsAbs(p) {
			return "", false
		}
		root := filepath.Clean(cwd)
		f, ok := filters[root]
		if !ok {
			f = newGeminiFilter(env, root)
			filters[root] = f
		}
		return f.denies(p)
	}
}

// geminiFilter is Gemini CLI's FileDiscoveryService for one project
// root.
type geminiFilter struct {
	root      string
	err       error // the settings or an ignore file could not be read
	filtering geminiFiltering
	git       *gitIgnoreParser // nil outside a git repository
	combined  interface {
		ignores(rel string) (string, bool, error)
	}
	gemini, custom *patternList
	policy         geminiPolicy
}

func newGeminiFilter(env Env, root string) *geminiFilter {
	f := &geminiFilter{root: root}
	f.filtering, f.err = readGeminiFiltering(env, root)
	f.policy = readGeminiPolicy(env, root)
	f.gemini = readPatternFiles(root, ".geminiignore")
	f.custom = readPatternFiles(root, f.filtering.custom...)
	extra := slices.Concat(f.gemini.patterns, f.custom.patterns)
	if isGitRepository(root) {
		f.git = newGitIgnoreParser(root, nil, "")
		f.combined = newGitIgnoreParser(root, extra, strings.Join(slices.Concat(f.gemini.files, f.custom.files), ", "))
	} else {
		f.combined = &patternList{files: slices.Concat(f.gemini.files, f.custom.files), patterns: extra}
	}
	return f
}

// denies is FileDiscoveryService.shouldIgnoreFile with the options from
// the settings.
func (f *geminiFilter) denies(p string) (string, bool) {
	if f.err != nil {
		return fmt.Sprintf("%v: a hook honours Gemini CLI's ignore files, and cannot read its settings", f.err), true
	}
	if why, denied := f.policy.denies(filepath.Clean(p)); denied {
		return why, true
	}
	rel, err := filepath.Rel(f.root, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false // Outside the project: Gemini CLI ignores nothing there.
	}
	rel = filepath.ToSlash(rel)
	type check interface {
		ignores(rel string) (string, bool, error)
	}
	var checks []check
	switch ff := f.filtering; {
	case ff.respectGit && ff.respectGemini:
		checks = []check{f.combined}
	default:
		checks = append(checks, f.custom)
		if ff.respectGit && f.git != nil {
			checks = append(checks, f.git)
		}
		if ff.respectGemini {
			checks = append(checks, f.gemini)
		}
	}
	for _, c := range checks {
		why, ignored, err := c.ignores(rel)
		switch {
		case err != nil:
			return fmt.Sprintf("%v: a hook honours Gemini CLI's ignore files, and cannot read them", err), true
		case ignored:
			return why, true
		}
	}
	return "", false
}

// isGitRepository reports whether dir or a directory above it has a
// .git (a directory, or a worktree's file), as Gemini CLI looks.
func isGitRepository(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// A patternList is the patterns of ignore files at the project root,
// read as Gemini CLI's IgnoreFileParser reads them: lines trimmed,
// blank ones and comments dropped, matched by one node-ignore.
type patternList struct {
	files    []string // the files that had patterns
	patterns []string
	err      error
}

// readPatternFiles reads names, relative to root, the first taking
// precedence (read last); a file that is missing or cannot be read has
// no patterns, as in Gemini CLI. A name that is no settings-sized
// regular file (a pipe the agent made) fails every check instead.
func readPatternFiles(root string, names ...string) *patternList {
	l := &patternList{}
	for _, name := range slices.Backward(names) {
		file := filepath.Join(root, name)
		lines, err := readLines(file)
		if err != nil {
			l.err = err
			continue
		}
		var ps []string
		for _, line := range lines {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				ps = append(ps, line)
			}
		}
		if len(ps) > 0 {
			l.files = append(l.files, file)
			l.patterns = append(l.patterns, ps...)
		}
	}
	return l
}

// readLines reads an ignore file's lines; none when it is missing.
func readLines(file string) ([]string, error) {
	data, _, err := readSettings(file)
	if err != nil || data == nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	return strings.Split(strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n"), "\n"), nil
}

func (l *patternList) ignores(rel string) (string, bool, error) {
	if l.err != nil {
		return "", false, l.err
	}
	if len(l.patterns) == 0 {
		return "", false, nil
	}
	ignored, rule, err := gitignore.New(true).Add(l.patterns...).Ignores(rel)
	switch {
	case errors.Is(err, gitignore.ErrTooDeep):
		return "", false, err
	case err != nil || !ignored:
		return "", false, nil // node-ignore throws; Gemini CLI takes it as not ignored.
	}
	return fmt.Sprintf("%q in %s", rule.Pattern, strings.Join(l.files, ", ")), true, nil
}

// gitIgnoreParser is Gemini CLI's GitIgnoreParser: the repository's
// ignore rules below root, with extra patterns (the .geminiignore's and
// custom files') last.
type gitIgnoreParser struct {
	root       string
	extra      *gitignore.Matcher
	extraFiles string
	cache      map[string]*gitRules
}

// gitRules are one .gitignore's (or .git/info/exclude's) patterns.
type gitRules struct {
	file  string
	rules *gitignore.Matcher
	err   error
}

func newGitIgnoreParser(root string, extra []string, extraFiles string) *gitIgnoreParser {
	p := &gitIgnoreParser{root: root, extraFiles: extraFiles, cache: map[string]*gitRules{}}
	p.extra = gitignore.New(true).Add(processPatterns(extra, ".")...)
	return p
}

// load reads one ignore file's patterns, relative to base ("." for the
// root and for .git/info/exclude).
func (p *gitIgnoreParser) load(file, base string) *gitRules {
	if r, ok := p.cache[file]; ok {
		return r
	}
	r := &gitRules{file: file, rules: gitignore.New(true)}
	lines, err := readLines(file)
	r.err = err
	r.rules.Add(processPatterns(lines, base)...)
	p.cache[file] = r
	return r
}

func (p *gitIgnoreParser) ignores(rel string) (string, bool, error) {
	ig := gitignore.New(true).Add(".git")
	files := []*gitRules{p.load(filepath.Join(p.root, ".git", "info", "exclude"), ".")}
	ig.AddMatcher(files[0].rules)
	parts := strings.Split(rel, "/")
	for i := 0; i < len(parts); i++ {
		if i > 0 {
			dir := strings.Join(parts[:i], "/")
			current := gitignore.New(true).AddMatcher(ig).AddMatcher(p.extra)
			if ignored, _, _ := current.Ignores(dir + "/"); ignored {
				break
			}
		}
		base := strings.Join(parts[:i], "/")
		if base == "" {
			base = "."
		}
		r := p.load(filepath.Join(p.root, filepath.FromSlash(base), ".gitignore"), base)
		files = append(files, r)
		ig.AddMatcher(r.rules)
	}
	for _, r := range files {
		if r.err != nil {
			return "", false, r.err
		}
	}
	all := gitignore.New(true).AddMatcher(ig).AddMatcher(p.extra)
	ignored, rule, err := all.Ignores(rel)
	switch {
	case errors.Is(err, gitignore.ErrTooDeep):
		return "", false, err
	case err != nil || !ignored:
		return "", false, nil // As Gemini CLI, which catches node-ignore's throw.
	}
	where := "the repository's ignore files (.gitignore, .git/info/exclude)"
	if p.extraFiles != "" {
		where += " or " + p.extraFiles
	}
	return fmt.Sprintf("%q in %s", rule.Pattern, where), true, nil
}

// processPatterns is GitIgnoreParser.processPatterns: the patterns of an
// ignore file in directory base (relative to the root), rewritten to be
// matched from the root.
func processPatterns(lines []string, base string) []string {
	var out []string
	for _, p := range lines {
		p = strings.TrimLeft(p, " \t\n\v\f\r\u00a0\ufeff")
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		negative := strings.HasPrefix(p, "!")
		if negative {
			p = p[1:]
		}
		anchored := strings.HasPrefix(p, "/")
		if anchored {
			p = p[1:]
		}
		if p == "" {
			continue
		}
		if base != "" && base != "." {
			if !anchored && !strings.Contains(p, "/") {
				p = "**/" + p
			}
			p = posixJoin(base, p)
			if !strings.HasPrefix(p, "/") {
				p = "/" + p
			}
		}
		if anchored && !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if negative {
			p = "!" + p
		}
		out = append(out, p)
	}
	return out
}

// posixJoin is Node's path.posix.join of two names: cleaned, a trailing
// slash kept.
func posixJoin(a, b string) string {
	j := path.Join(a, b)
	if strings.HasSuffix(b, "/") && !strings.HasSuffix(j, "/") {
		j += "/"
	}
	return j
}
