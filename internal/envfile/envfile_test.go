package envfile

import (
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/shellword"
)

// env is the environment the tests expand from.
func env(name string) (string, bool) {
	v, ok := map[string]string{"HOME": "/home/me", "XDG_STATE_HOME": "/home/me/.state", "EMPTY": ""}[name]
	return v, ok
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, name, value string
	}{
		{"", "", ""},
		{"   \t", "", ""},
		{"# a comment", "", ""},
		{"   # indented = comment", "", ""},
		{"A=1", "A", "1"},
		{"A=", "A", ""},
		{"  A = 1  ", "A", "1"},
		{"A=1\r", "A", "1"},
		{"export A=1", "A", "1"},
		{"export\tA = 1", "A", "1"},
		{"export=1", "export", "1"},
		{"A=[paste saved: {path}]", "A", "[paste saved: {path}]"},
		{"A=16384 # a comment", "A", "16384"},
		{"A=16384\t# a comment", "A", "16384"},
		{"A= # only a comment", "A", ""},
		{"A=#not a comment", "A", "#not a comment"},
		{"A=a#b", "A", "a#b"},
		{`A="x # y" # z`, "A", "x # y"},
		{"A='x # y'", "A", "x # y"},
		{`A="a"'b'c`, "A", "abc"},
		{`A="a" b`, "A", "a b"},
		{`A='$HOME \ "'`, "A", `$HOME \ "`},
		{`A="\"\\\$\` + "`" + `\n"`, "A", "\"\\$`\\n"},
		{`A=a\ b\#c`, "A", "a b#c"},
		{`A=''`, "A", ""},
		{`A=""`, "A", ""},
		{"A=~", "A", "/home/me"},
		{"A=~/x", "A", "/home/me/x"},
		{"A=~/x:~/y:z~", "A", "/home/me/x:/home/me/y:z~"},
		{"A=~ # home", "A", "/home/me"},
		{"A=~bob/x", "A", "~bob/x"},
		{"A='~/x'", "A", "~/x"},
		{`A="~/x"`, "A", "~/x"},
		{"A=x~/y", "A", "x~/y"},
		{"A=$HOME/x", "A", "/home/me/x"},
		{"A=${HOME}x", "A", "/home/mex"},
		{`A="$XDG_STATE_HOME/pbwrap"`, "A", "/home/me/.state/pbwrap"},
		{"A=$HOME", "A", "/home/me"},
		{`A="$HOME"`, "A", "/home/me"},
		{"A=$", "A", "$"},
		{"A=$5 $ x", "A", "$5 $ x"},
		{`A="$"`, "A", "$"},
		{`A=\$HOME`, "A", "$HOME"},
		{`A='$HOME'`, "A", "$HOME"},
		{"A=\t value with\ttab ", "A", "value with\ttab"},
		{"_a9=x", "_a9", "x"},
	} {
		name, value, err := Parse(tc.line, env)
		if err != nil || name != tc.name || value != tc.value {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", tc.line, name, value, err, tc.name, tc.value)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, name, err string
	}{
		{"A", "A", "want NAME=VALUE: no = after A"},
		{"A 1", "A", "want NAME=VALUE: no = after A"},
		{"export", "export", "want NAME=VALUE after export"},
		{"export A", "A", "want NAME=VALUE: no = after A"},
		{"export A B=1", "A", "want NAME=VALUE: no = after A"},
		{"min-bytes=1", "min-bytes", `"min-bytes" is not a variable name`},
		{"1A=1", "1A", `"1A" is not a variable name`},
		{"A.B", "A.B", `"A.B" is not a variable name`},
		{"A='x", "A", "a single quote is not closed"},
		{`A="x`, "A", "a double quote is not closed"},
		{`A="x\"`, "A", "a double quote is not closed"},
		{`A=x\`, "A", "a backslash at the end of the line"},
		{"A=$NOPE/x", "A", "$NOPE is not set"},
		{"A=$EMPTY", "A", "$EMPTY is not set (or empty)"},
		{`A="${NOPE}"`, "A", "$NOPE is not set"},
		{"A=${HOME", "A", "${ is not closed"},
		{"A=${HOME:-x}", "A", "bad substitution"},
		{"A=${}", "A", "bad substitution"},
		{"A=$(whoami)", "A", "command substitution"},
		{"A=`whoami`", "A", "command substitution"},
		{`A="$(x)"`, "A", "command substitution"},
	} {
		name, value, err := Parse(tc.line, env)
		if err == nil || !strings.Contains(err.Error(), tc.err) || name != tc.name || value != "" {
			t.Errorf("Parse(%q) = %q, %q, %v; want name %q and an error with %q", tc.line, name, value, err, tc.name, tc.err)
		}
	}
	if _, _, err := Parse("A=~/x", func(string) (string, bool) { return "", false }); err == nil || !strings.Contains(err.Error(), "$HOME") {
		t.Errorf("~ without HOME: error %v, want one naming $HOME", err)
	}
	if _, v, err := Parse("A=$HOME", nil); err == nil {
		t.Errorf("a nil lookup: $HOME = %q, want an error", v)
	}
}

// doubleQuote writes v in double quotes, escaping what they take.
func doubleQuote(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		if strings.IndexByte("\\\"$`", v[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
	return b.String()
}

// escaped writes v unquoted, a backslash before each byte that is not a
// letter or a digit.
func escaped(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if !isNameByte(v[i]) {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// Any value without a newline, quoted in any of the three ways, reads
// back as itself, whatever the blanks and comments around it; and no line
// at all panics or yields a newline.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "x", "a b", "it's", `"q"`, "$HOME", "~/x", "#", " # ", "\\", "`", "a\tb", "[paste saved: {path}]"} {
		f.Add(s, "  ", " # c")
	}
	f.Fuzz(func(t *testing.T, v, pad, tail string) {
		if strings.ContainsAny(v, "\n\r") || strings.Trim(pad, " \t") != "" {
			return
		}
		if name, value, err := Parse(v, env); err == nil && strings.ContainsRune(value, '\n') || err != nil && value != "" {
			t.Fatalf("Parse(%q) = %q, %q, %v", v, name, value, err)
		}
		tail = strings.TrimLeft(tail, " \t")
		if tail != "" && (tail[0] != '#' || strings.ContainsAny(tail, "\n\r")) {
			tail = ""
		}
		for _, quoted := range []string{shellword.Quote(v), doubleQuote(v), escaped(v)} {
			line := pad + "export" + pad + " NAME" + pad + "=" + pad + quoted
			if tail != "" {
				line += " " + tail
			}
			name, got, err := Parse(line, env)
			if err != nil || name != "NAME" || got != v {
				t.Fatalf("Parse(%q) = %q, %q, %v; want NAME, %q", line, name, got, err, v)
			}
		}
	})
}
