package gitignore

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// oracleJS asks node-ignore, the library the agents match with, about
// each case it reads: {"patterns": [...], "ignoreCase": bool, "paths":
// [...]}, one a line; it answers a list of true, false or "error" (the
// library throws), one a line.
const oracleJS = `
const ignore = require(process.argv[2]);
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
for (const line of lines) {
  const c = JSON.parse(line);
  const ig = ignore({ignorecase: c.ignoreCase}).add(c.patterns);
  console.log(JSON.stringify(c.paths.map((p) => { try { return ig.ignores(p); } catch (e) { return "error"; } })));
}
`

// oracleCase is one set of patterns and the paths tested against it.
type oracleCase struct {
	Patterns   []string `json:"patterns"`
	IgnoreCase bool     `json:"ignoreCase"`
	Paths      []string `json:"paths"`
}

// askOracle runs the cases through node-ignore: PBWRAP_NODE_IGNORE names
// the directory it is installed in (scripts/test installs it).
func askOracle(t *testing.T, cases []oracleCase) [][]any {
	t.Helper()
	dir := os.Getenv("PBWRAP_NODE_IGNORE")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		if os.Getenv("PBWRAP_REQUIRE_ORACLE") == "1" {
			t.Fatalf("node-ignore is needed (PBWRAP_NODE_IGNORE=%q, node: %v)", dir, err)
		}
		t.Skip("node-ignore not installed (PBWRAP_NODE_IGNORE); scripts/test installs it")
	}
	script := filepath.Join(t.TempDir(), "oracle.js")
	if err := os.WriteFile(script, []byte(oracleJS), 0o600); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for _, c := range cases {
		b, _ := json.Marshal(c)
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command(node, script, filepath.Join(dir, "ignore"))
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node-ignore: %v", err)
	}
	var answers [][]any
	for line := range strings.Lines(string(out)) {
		var a []any
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("node-ignore said %q: %v", line, err)
		}
		answers = append(answers, a)
	}
	if len(answers) != len(cases) {
		t.Fatalf("node-ignore answered %d cases of %d", len(answers), len(cases))
	}
	return answers
}

// The patterns of the agents' documentation and of the issue, and the
// odd corners of node-ignore's conversion.
var knownPatterns = []string{
	".env", ".env.*", "*.env", "*.pem", "/build/*.key", "secrets/**", "secrets/", "secrets", "./.env",
	".E*", ".ENV", ".[!.]*", ".[^.]*", "[!a]*", "[a-c]x", "[z-a]x", "[", "[]", "a[", "**/x", "x/**",
	"a/**/b", "**", "*", "a**b", "a\\*b", "\\#x", "\\!x", "!x", "#x", "x ", "x\\ ", "x\\\\ ", "a?c",
	"/x", "x/", "/x/", "a/b", "a/b/", "**/a/b", "a/**", "*.txt", "!*.txt", "dir/*", "dir/**/*.md",
	"\\[x]", "x\\", "x\\\\", "*.[ch]", "node_modules", ".git", "a.b", "(x)", "{a,b}", "+x", "a|b",
	"$x", "^x", "x$", "a*", "*a", "*/x", "x/*", "x/*/y", "\\x", "\\\\x",
}

var knownPaths = []string{
	".env", ".ENV", ".env.local", "a/.env", "a/b/.env", ".envrc", "x.pem", "a/x.pem", "build/a.key",
	"build/x/a.key", "secrets/db.txt", "secrets", "secrets/", "a/secrets/x", "x", "x/", "x/y", "a/x",
	"a/x/y", "a/b", "a/c/b", "a/b/c/b", "ab", "axb", "a*b", "#x", "!x", "x ", "abc", "a.c", "bx", "zx",
	"[x]", "x.c", "x.h", "node_modules/a", ".git/config", "a.b", "(x)", "{a,b}", "a", "b", "a/b/", ".a",
	"..a", "...", "./x", "../x", "/x", "", "X", "A/B", "dir/a.md", "dir/q/r/a.md", "sub/dir/a.md",
	"\\x", "x\\", "a|b", "$x", "^x", "x$", "+x", "a/y", "x/z/y",
}

// TestAgainstNodeIgnore checks the matcher against node-ignore itself,
// for the patterns above one at a time, with and without case, and for
// random sets of several, with negations.
func TestAgainstNodeIgnore(t *testing.T) {
	t.Parallel()
	var cases []oracleCase
	for _, p := range knownPatterns {
		for _, ic := range []bool{true, false} {
			cases = append(cases, oracleCase{[]string{p}, ic, knownPaths})
		}
	}
	rnd := rand.New(rand.NewPCG(37, 37))
	for range 400 {
		n := 1 + rnd.IntN(4)
		var ps []string
		for range n {
			p := knownPatterns[rnd.IntN(len(knownPatterns))]
			if rnd.IntN(3) == 0 && !strings.HasPrefix(p, "!") {
				p = "!" + p
			}
			ps = append(ps, p)
		}
		cases = append(cases, oracleCase{ps, rnd.IntN(2) == 0, knownPaths})
	}
	// Random patterns of the characters that mean something.
	const alphabet = "ab.*?/[]!^-\\ #xE"
	for range 600 {
		var b strings.Builder
		for range 1 + rnd.IntN(8) {
			b.WriteByte(alphabet[rnd.IntN(len(alphabet))])
		}
		cases = append(cases, oracleCase{[]string{b.String()}, rnd.IntN(2) == 0, knownPaths})
	}
	answers := askOracle(t, cases)
	bad := 0
	for i, c := range cases {
		m := New(c.IgnoreCase).Add(c.Patterns...)
		for j, p := range c.Paths {
			got, _, err := m.Ignores(p)
			var mine any = got
			if err != nil {
				mine = "error"
			}
			if mine != answers[i][j] {
				bad++
				if bad <= 30 {
					t.Errorf("patterns %q (ignorecase %v), path %q: %v, node-ignore %v", c.Patterns, c.IgnoreCase, p, mine, answers[i][j])
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d disagreements", bad)
	}
	t.Logf("%d pattern sets × %d paths agree with node-ignore", len(cases), len(knownPaths))
}
