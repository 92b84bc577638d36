package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// ignoreFileRules returns read rules from an agent's ignore file (Gemini
// CLI's .geminiignore), which its file tools refuse to read: the file named
// name in the working directory and in each directory above it, read in
// the way of gitignore. A blank line or one starting with "#" is no rule;
// a pattern with a slash at its start or in its middle is anchored to the
// file's directory, one without matches at any depth below it; a trailing
// slash (a directory) and a pattern naming a directory deny everything
// below. A "!" rule, which takes a file back out, is not honoured: the
// hook denies more rather than less.
func ignoreFileRules(name string) func(Env) func(cwd, path string) (string, bool) {
	return func(Env) func(cwd, path string) (string, bool) {
		cache := map[string][]string{}
		return func(cwd, p string) (string, bool) {
			if !filepath.IsAbs(cwd) {
				return "", false
			}
			for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
				file := filepath.Join(dir, name)
				patterns, ok := cache[file]
				if !ok {
					patterns = readIgnoreFile(file)
					cache[file] = patterns
				}
				for _, pat := range patterns {
					if ignored(pat, dir, p) {
						return fmt.Sprintf("%q in %s", pat, file), true
					}
				}
				if filepath.Dir(dir) == dir {
					return "", false
				}
			}
		}
	}
}

// readIgnoreFile returns the patterns of an ignore file, none when it
// cannot be read (a missing file, or one larger than settings may be).
func readIgnoreFile(file string) []string {
	data, _, err := fsutil.ReadRegular(file, MaxSettingsBytes)
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxSettingsBytes)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// ignored reports whether the pattern pat of an ignore file in dir names
// the absolute path p or a directory above it.
func ignored(pat, dir, p string) bool {
	pat = strings.TrimSuffix(strings.TrimPrefix(pat, `\`), "/")
	switch {
	case pat == "":
		return false
	case !strings.Contains(pat, "/"):
		pat = "**/" + pat
	}
	return fsutil.Within(dir, p) && matchBelow(filepath.Join(dir, pat), p)
}
