// Package gitignore matches paths against gitignore patterns the way the
// ignore library for Node.js (node-ignore 7, "ignore" on npm) does: the
// matcher Gemini CLI and Qwen Code read their ignore files with, and that
// Claude Code's Read rules are matched by. A pattern becomes a regular
// expression by node-ignore's own steps, in its order, so that the odd
// corners (a trailing "\ ", "a**b", a range written backwards, "[" left
// open) match what the agents match, and a path is tested as node-ignore
// tests it: its parent directories first (a file below an ignored
// directory cannot be taken back by "!"), then the path, the last rule
// that matches deciding.
//
// Paths are relative, slash-separated, as path.relative gives them; a
// directory may end in "/". node-ignore refuses an empty path and one
// that starts with "./", "../" or "/" (or is all dots): Ignores does too,
// with ErrPath.
package gitignore

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/pbwrap/pbwrap/internal/jsregexp"
)

// ErrPath: the path is not one node-ignore takes (empty, absolute, or
// starting with "." or ".." components); the agents that call it take
// such a path as not ignored.
var ErrPath = errors.New("not a relative path")

// A Rule is one pattern of a Matcher.
type Rule struct {
	// Pattern is the pattern as it was added.
	Pattern string
	// Negative: the pattern started with "!", which takes a path back.
	Negative bool
	re       *regexp.Regexp
	err      error
}

// A Matcher holds patterns, in the order they were added.
type Matcher struct {
	ignoreCase  bool
	bangClasses bool
	rules       []*Rule
}

// New returns an empty Matcher; ignoreCase as node-ignore's option of
// that name, which is true unless a caller says otherwise.
func New(ignoreCase bool) *Matcher { return &Matcher{ignoreCase: ignoreCase} }

// BangClasses makes "[!...]" in the patterns added after it the class of
// the characters it does not list, as git and Claude Code read it
// (node-ignore takes the "!" for one of the class's characters).
func (m *Matcher) BangClasses() *Matcher {
	m.bangClasses = true
	return m
}

// MaxDepth bounds the names of a path Ignores judges: each parent is
// tested, so the time grows with the square of the depth. No project is
// that deep; a deeper path is ErrTooDeep, which a hook takes as denied.
const MaxDepth = 256

// ErrTooDeep: the path has more than MaxDepth names.
var ErrTooDeep = errors.New("the path lies below too many directories to be judged")

// Add adds patterns, each split at its line ends; blank lines, comments
// ("#...") and a pattern ending in a lone backslash are skipped, as
// node-ignore skips them.
func (m *Matcher) Add(patterns ...string) *Matcher {
	for _, p := range patterns {
		for _, line := range res().crlf.Split(p, -1) {
			if valid(line) {
				m.rules = append(m.rules, m.rule(line))
			}
		}
	}
	return m
}

// AddMatcher adds the rules of o after m's, as node-ignore's add(ig).
func (m *Matcher) AddMatcher(o *Matcher) *Matcher {
	m.rules = append(m.rules, o.rules...)
	return m
}

// Len is the number of rules.
func (m *Matcher) Len() int { return len(m.rules) }

// valid is node-ignore's checkPattern.
func valid(p string) bool {
	return p != "" && !res().blank.MatchString(p) && !res().trailingBackslsh.MatchString(p) && !strings.HasPrefix(p, "#")
}

// rule makes the rule of one pattern (node-ignore's createRule).
func (m *Matcher) rule(pattern string) *Rule {
	r := &Rule{Pattern: pattern}
	body := pattern
	if strings.HasPrefix(body, "!") {
		r.Negative, body = true, body[1:]
	}
	if strings.HasPrefix(body, `\!`) {
		body = "!" + body[2:]
	} else if strings.HasPrefix(body, `\#`) {
		body = "#" + body[2:]
	}
	r.re, r.err = jsregexp.Compile(trailingWildcard(regexPrefix(body, m.bangClasses)), m.ignoreCase)
	if r.err != nil {
		r.err = fmt.Errorf("pattern %q: %w", pattern, r.err)
	}
	return r
}

// Ignores reports whether path is ignored, and the rule that ignored it
// (nil when none did). An error is ErrPath, or a pattern Go's regular
// expressions cannot take (node-ignore would throw there too).
func (m *Matcher) Ignores(path string) (bool, *Rule, error) {
	if path == "" || res().invalidPath.MatchString(path) {
		return false, nil, fmt.Errorf("%q: %w", path, ErrPath)
	}
	if strings.Count(path, "/") >= MaxDepth {
		return false, nil, fmt.Errorf("%.60q...: %w", path, ErrTooDeep)
	}
	res, err := m.walk(path)
	return res.ignored, res.rule, err
}

// result is node-ignore's test result.
type result struct {
	ignored, unignored bool
	rule               *Rule
}

// walk is node-ignore's _t: the parent directories first, each with a
// trailing slash; once one is ignored, so is everything below it.
func (m *Matcher) walk(path string) (result, error) {
	var slices []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			slices = append(slices, s)
		}
	}
	for i := 1; i < len(slices); i++ {
		res, err := m.test(strings.Join(slices[:i], "/") + "/")
		if err != nil || res.ignored {
			return res, err
		}
	}
	return m.test(path)
}

// test is node-ignore's RuleManager.test, for ignores (checkUnignored
// false).
func (m *Matcher) test(path string) (result, error) {
	var res result
	for _, r := range m.rules {
		if res.unignored == r.Negative && res.ignored != res.unignored || r.Negative && !res.ignored && !res.unignored {
			continue
		}
		if r.err != nil {
			return result{}, r.err
		}
		if !r.re.MatchString(path) {
			continue
		}
		res.ignored, res.unignored = !r.Negative, r.Negative
		res.rule = nil
		if !r.Negative {
			res.rule = r
		}
	}
	return res, nil
}

// res are the regular expressions of node-ignore's steps that Go's can
// take as they are, made once, when first needed (not at start-up).
var res = sync.OnceValue(func() *expressions {
	return &expressions{
		crlf:             regexp.MustCompile(`\r?\n`),
		blank:            regexp.MustCompile(`^\s+$`),
		trailingBackslsh: regexp.MustCompile(`(?:[^\\]|^)\\$`),
		invalidPath:      regexp.MustCompile(`^\.*/|^\.+$`),
		trailingSpaces:   regexp.MustCompile(`((?:\\\\)*?)(\\?\s+)$`),
		escapedSpace:     regexp.MustCompile(`(\\+?)\s`),
		specials:         regexp.MustCompile(`[\\$.|*+(){^]`),
		leadingGlobDir:   regexp.MustCompile(`^\^*\\\*\\\*\\/`),
		starsAfter:       regexp.MustCompile(`(^|[^\\]+)((?:\\\*)+)`),
		escapedSpecial:   regexp.MustCompile(`\\\\\\([$.|*+(){^])`),
		rangeExpr:        regexp.MustCompile(`(\\)?\[([^\]/]*?)(\\*)($|\])`),
		reversedRange:    regexp.MustCompile(`([0-z])-([0-z])`),
		endWildcard:      regexp.MustCompile(`(^|\\/)?\\\*$`),
	}
})

// expressions are node-ignore's steps' regular expressions.
type expressions struct {
	crlf, blank, trailingBackslsh, invalidPath                         *regexp.Regexp
	trailingSpaces, escapedSpace, specials, leadingGlobDir, starsAfter *regexp.Regexp
	escapedSpecial, rangeExpr, reversedRange, endWildcard              *regexp.Regexp
}

// nothing matches no character, as JavaScript's "[]", which Go does not
// take; anything matches any, as JavaScript's "[^]". Both are written in
// JavaScript's syntax, as the rest, for jsregexp.
const (
	nothing  = `[^\s\S]`
	anything = `[\s\S]`
)

// endOfName stands for node-ignore's lookahead (?=$|\/$): it comes last
// in every expression, so consuming it matches the same paths.
const endOfName = `(?:$|/$)`

// regexPrefix is node-ignore's makeRegexPrefix: REPLACERS applied in
// order to the pattern's body.
func regexPrefix(pattern string, bangClasses bool) string {
	s := strings.TrimPrefix(pattern, "\uFEFF")
	s = res().trailingSpaces.ReplaceAllStringFunc(s, func(m string) string {
		g := res().trailingSpaces.FindStringSubmatch(m)
		if strings.HasPrefix(g[2], `\`) {
			return g[1] + " "
		}
		return g[1]
	})
	s = res().escapedSpace.ReplaceAllStringFunc(s, func(m string) string {
		g := res().escapedSpace.FindStringSubmatch(m)
		return g[1][:len(g[1])-len(g[1])%2] + " "
	})
	s = res().specials.ReplaceAllString(s, `\$0`)
	s = strings.ReplaceAll(s, "?", "[^/]")
	if strings.HasPrefix(s, "/") {
		s = "^" + s[1:]
	}
	s = strings.ReplaceAll(s, "/", `\/`)
	s = res().leadingGlobDir.ReplaceAllLiteralString(s, `^(?:.*\/)?`)
	if s != "" && s[0] != '^' {
		// A slash anywhere but at the end anchors the pattern.
		if i := strings.IndexByte(pattern, '/'); i >= 0 && i < len(pattern)-1 {
			s = "^" + s
		} else {
			s = `(?:^|\/)` + s
		}
	}
	s = globDirs(s)
	s = stars(s)
	s = res().escapedSpecial.ReplaceAllString(s, `\$1`)
	s = strings.ReplaceAll(s, `\\`, `\`)
	s = res().rangeExpr.ReplaceAllStringFunc(s, func(m string) string {
		g := res().rangeExpr.FindStringSubmatch(m)
		lead, rng, end, closing := g[1], g[2], g[3], g[4]
		switch {
		case lead == `\`:
			return `\[` + rng + end[:len(end)-len(end)%2] + closing
		case closing == "]" && len(end)%2 == 0 && bangClasses && strings.HasPrefix(rng, "!"):
			return class(`^` + sanitizeRange(rng[1:]) + end)
		case closing == "]" && len(end)%2 == 0:
			return class(sanitizeRange(rng) + end)
		}
		return nothing
	})
	if s != "" && s[len(s)-1] != '*' {
		if strings.HasSuffix(s, "/") {
			s += "$"
		} else {
			s += endOfName
		}
	}
	return s
}

// class writes a bracket expression, which JavaScript and Go read alike
// but for "[]" (no character) and "[^]" (any).
func class(body string) string {
	switch body {
	case "":
		return nothing
	case "^":
		return anything
	}
	return "[" + body + "]"
}

// sanitizeRange drops the ranges written backwards ("z-a"), as
// node-ignore does.
func sanitizeRange(r string) string {
	return res().reversedRange.ReplaceAllStringFunc(r, func(m string) string {
		if m[0] <= m[2] {
			return m
		}
		return ""
	})
}

// globDirs is the step for "/**" followed by "/" or the end: any
// directories when something follows, everything below at the end.
func globDirs(s string) string {
	const glob = `\/\*\*`
	var b strings.Builder
	for {
		i := strings.Index(s, glob)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+len(glob):]
		if rest != "" && !strings.HasPrefix(rest, `\/`) {
			b.WriteString(s[:i+len(glob)])
			s = rest
			continue
		}
		b.WriteString(s[:i])
		if i+6 < len(s) {
			b.WriteString(`(?:\/[^\/]+)*`)
		} else {
			b.WriteString(`\/.+`)
		}
		s = rest
	}
}

// stars is the step that turns "*" followed by anything into "[^/]*": a
// run of them at the very end keeps its last, for trailingWildcard.
func stars(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range res().starsAfter.FindAllStringSubmatchIndex(s, -1) {
		start, end, p1end, p2start := m[0], m[1], m[3], m[4]
		if end == len(s) {
			// JavaScript's lookahead (?=.+) gives one "\*" back.
			if end-p2start < 4 {
				continue
			}
			end -= 2
		}
		b.WriteString(s[last:start])
		b.WriteString(s[start:p1end])
		b.WriteString(strings.Repeat(`[^\/]*`, (end-p2start)/2))
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// trailingWildcard is node-ignore's last step for ignores: a "*" at the
// end matches a whole name.
func trailingWildcard(s string) string {
	if m := res().endWildcard.FindStringSubmatchIndex(s); m != nil {
		prefix := `[^/]*`
		if m[2] >= 0 && m[3] > m[2] {
			prefix = s[m[2]:m[3]] + `[^/]+`
		}
		return s[:m[0]] + prefix + endOfName
	}
	return s
}
