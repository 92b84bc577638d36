package gitignore

import (
	"errors"
	"strings"
	"testing"
)

// Cases node-ignore 7.0.0 answers so (TestAgainstNodeIgnore asks it):
// they hold without Node.js too.
func TestMatcher(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		patterns   []string
		ignoreCase bool
		path       string
		want       bool
	}{
		{[]string{".env"}, true, "a/b/.env", true},
		{[]string{".ENV"}, true, ".env", true},
		{[]string{".ENV"}, false, ".env", false},
		{[]string{".E*"}, true, ".env", true},
		{[]string{"/.env"}, true, "a/.env", false},
		{[]string{"secrets/"}, true, "secrets/db.txt", true},
		{[]string{"secrets/"}, true, "secrets", false},
		{[]string{"a/**/b"}, true, "a/x/y/b", true},
		{[]string{"*.env", "!x.env"}, true, "x.env", false},
		{[]string{"secrets/", "!secrets/db.txt"}, true, "secrets/db.txt", true}, // No way back below an ignored directory.
		{[]string{"[z-a]x"}, false, "zx", false},
		{[]string{"x\\ "}, true, "x ", true},
		{[]string{"x "}, true, "x", true},
		{[]string{"\\#x"}, true, "#x", true},
		{[]string{"a**b"}, true, "axxb", true},
	} {
		got, _, err := New(tt.ignoreCase).Add(tt.patterns...).Ignores(tt.path)
		if err != nil || got != tt.want {
			t.Errorf("%q (ignorecase %v), %q: %v, %v; want %v", tt.patterns, tt.ignoreCase, tt.path, got, err, tt.want)
		}
	}
	// [!...] as git reads it, when asked for.
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{{".[!.]*", ".env", true}, {".[!.]*", "..x", false}, {".[!e]*", ".env", false}, {"[!]", "x", true}} { // "[!]": any one character (denying more) {
		if got, _, _ := New(true).BangClasses().Add(tt.pattern).Ignores(tt.path); got != tt.want {
			t.Errorf("BangClasses %q, %q: %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
	if _, _, err := New(true).Add("x").Ignores(strings.Repeat("a/", MaxDepth) + "x"); !errors.Is(err, ErrTooDeep) {
		t.Errorf("a path %d deep: %v", MaxDepth+1, err)
	}
	if _, _, err := New(true).Add("x").Ignores("../x"); err == nil {
		t.Error(`"../x": no error`)
	}
}

// FuzzMatcher: any pattern and path are matched without a panic, and a
// rule that ignores is one of the patterns added.
func FuzzMatcher(f *testing.F) {
	f.Add("a/**/b", "a/x/b")
	f.Add("[!.]*", ".env")
	f.Add("\\x\\u00e9[", "x")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		m := New(true).Add(pattern)
		ignored, rule, err := m.Ignores(path)
		if err == nil && ignored && rule == nil {
			t.Fatalf("%q %q: ignored by no rule", pattern, path)
		}
	})
}
