package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/store"
)

// A completionCase is a command line, completed with the cursor at its
// end, the words completion must offer and those it must not.
type completionCase struct {
	line    string
	want    []string
	mustNot []string
	shells  string // "" for every shell, else the shells that run it
}

// completionCases are the lines every shell's completion is tried on:
// pbwrap's commands and flags, a flag's value skipped, and the hand-over
// to the wrapped command's completion (testdata/completion/setup.* give
// a fake claude the flags --resume, --recent and --help). One line per
// command, for whatever commands the table holds, checks its flags.
func completionCases() []completionCase {
	cases := []completionCase{
		{line: "pbwrap cle", want: []string{"clean"}},
		{line: "pbwrap --ro", want: []string{"--root"}},
		{line: "pbwrap --root /tmp --min", want: []string{"--min-bytes", "--min-lines"}},
		{line: "pbwrap --root /tmp --log /tmp/log --of", want: []string{"--off"}},
		{line: "pbwrap completion ", want: []string{"bash", "zsh", "fish"}},
		{line: "pbwrap hook ", want: []string{"claude", "codex", "gemini", "pi", "qwen", "crush"}, mustNot: []string{"--root", "amp"}},
		// The arguments and values pbwrap declares, asked of pbwrap as the
		// user types: --burst's values, before a command and after one
		// that takes it; setup's agents after its flags; help agents'
		// agents; show's last and the sessions under the root given.
		{line: "pbwrap --burst ", want: []string{"auto", "on", "off"}},
		{line: "pbwrap --burst o", want: []string{"on", "off"}, mustNot: []string{"auto"}},
		{line: "pbwrap doctor --burst ", want: []string{"auto", "on", "off"}},
		{line: "pbwrap setup --yes ", want: []string{"claude", "codex", "gemini", "pi"}},
		{line: "pbwrap setup --yes cl", want: []string{"claude"}, mustNot: []string{"codex"}},
		{line: "pbwrap help agents ", want: []string{"claude", "qwen", "opencode", "pi-extension"}},
		{line: "pbwrap show ", want: []string{"last"}},
		{line: "pbwrap --root " + completionRoot + " show ", want: []string{"last", completionSession[len(completionSession)-8:]}},
		{line: "pbwrap show --root " + completionRoot + " ", want: []string{"last", completionSession[len(completionSession)-8:]}},
		// pbwrap's own flags that a command takes after its name, and
		// --version.
		{line: "pbwrap list --ro", want: []string{"--root"}},
		{line: "pbwrap clean --tt", want: []string{"--ttl"}},
		{line: "pbwrap --vers", want: []string{"--version"}},
		{line: "pbwrap help ag", want: []string{"agents"}},
		{line: "pbwrap claude --r", want: []string{"--resume", "--recent"}, mustNot: []string{"--root", "--ref-format"}},
		{line: "pbwrap --off --root /tmp claude --r", want: []string{"--resume", "--recent"}, mustNot: []string{"--root"}},
		{line: "pbwrap -- claude --r", want: []string{"--resume", "--recent"}, mustNot: []string{"--root"}},
		{line: "pbwrap -- version --j", mustNot: []string{"--json"}},
		// A flag's value after =: zsh offers the path's last part, fish the
		// whole word.
		{line: "pbwrap --root=/us", want: []string{"usr"}, shells: "zsh"},
		{line: "pbwrap --root=/us", want: []string{"--root=/usr/"}, shells: "fish"},
		{line: "pbwrap --root /us", want: []string{"/usr"}, shells: "bash"},
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
		cc := commandCompletion(c)
		cases = append(cases, completionCase{line: "pbwrap " + c.name + " --", want: flagNames(cc.flags)})
	}
	// Every command, and the global flags, where pbwrap expects a command.
	cases = append(cases, completionCase{line: "pbwrap ", want: names})
	return append(cases, completionCase{line: "pbwrap --", want: flagNames(newCompletionSpec().flags)})
}

// TestCompletion runs each shell's completion of pbwrap, as printed by
// pbwrap completion SHELL, on completionCases. A shell that is not
// installed is skipped, unless PBWRAP_REQUIRE_SHELLS is set (scripts/test
// sets it and installs zsh and fish).
func TestCompletion(t *testing.T) {
	makeCompletionRoot(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				if os.Getenv("PBWRAP_REQUIRE_SHELLS") != "" {
					t.Fatalf("%s is required (PBWRAP_REQUIRE_SHELLS is set) but not installed", shell)
				}
				t.Skipf("%s is not installed", shell)
			}
			var cases []completionCase
			for _, c := range completionCases() {
				if c.shells == "" || slices.Contains(strings.Fields(c.shells), shell) {
					cases = append(cases, c)
				}
			}
			if shell == "bash" {
				checkCompletion(t, shell, "", cases)
				// bash-completion 2 needs bash 4.1 or later (macOS has 3.2).
				out, err := exec.Command("bash", "-c", "echo ${BASH_VERSINFO[0]}").Output()
				if major, _ := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || major < 4 {
					return
				}
				for _, path := range bashCompletionPaths {
					if _, err := os.Stat(path); err == nil {
						t.Run("bash-completion", func(t *testing.T) { checkCompletion(t, shell, path, cases) })
						break
					}
				}
				return
			}
			checkCompletion(t, shell, "", cases)
		})
	}
}

// completionRoot is a root with one session that saved a paste, and
// completionSession that session's id, for completing show's argument
// (set by makeCompletionRoot).
var completionRoot, completionSession string

// makeCompletionRoot saves a paste in a new session under a new root,
// through the store, as completionRoot and completionSession.
func makeCompletionRoot(t *testing.T) {
	t.Helper()
	root, err := store.ResolveRoot(filepath.Join(t.TempDir(), "root"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	id, err := store.NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := r.NewSession(id, store.Meta{PID: 4242, Argv0: "claude", Start: time.Now(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tmp, err := sess.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write([]byte("pasted\n")); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("pasted\n"))
	n, path, _, err := sess.CommitPaste(tmp, hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	err = sess.Record(store.PasteRecord{N: n, Path: path, Bytes: 7, Lines: 1, SHA256: hex.EncodeToString(sum[:]),
		Time: time.Now(), Outcome: store.OutcomeSaved, Reference: "[paste saved: " + path + "]"})
	if err != nil {
		t.Fatal(err)
	}
	completionRoot, completionSession = root, id
}

// bashCompletionPaths are where systems keep bash-completion, whose
// _command_offset the bash script hands over with when it is loaded.
var bashCompletionPaths = []string{
	"/usr/share/bash-completion/bash_completion",
	"/opt/homebrew/share/bash-completion/bash_completion",
	"/usr/local/share/bash-completion/bash_completion",
}

// checkCompletion completes every case's line in shell and checks what
// was offered.
func checkCompletion(t *testing.T, shell, bashCompletion string, cases []completionCase) {
	t.Helper()
	got := completeLines(t, shell, bashCompletion, cases)
	for _, c := range cases {
		offered, ok := got[c.line]
		if !ok {
			t.Errorf("%s: %q: no completion ran", shell, c.line)
			continue
		}
		for _, w := range c.want {
			if !slices.Contains(offered, w) {
				t.Errorf("%s: %q offered %q, want %q among them", shell, c.line, abbreviate(offered), w)
			}
		}
		for _, w := range c.mustNot {
			if slices.Contains(offered, w) {
				t.Errorf("%s: %q offered %q, which must not be", shell, c.line, w)
			}
		}
	}
}

// completeLines has the shell complete each line with the script pbwrap
// completion prints, through testdata/completion/complete.SHELL, and
// returns what was offered for each line.
func completeLines(t *testing.T, shell, bashCompletion string, cases []completionCase) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "pbwrap."+shell)
	text, _ := completionScript(shell)
	if err := os.WriteFile(script, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	driver, err := filepath.Abs(filepath.Join("testdata", "completion", "complete."+shell))
	if err != nil {
		t.Fatal(err)
	}
	setup := strings.TrimSuffix(driver, "complete."+shell) + "setup." + shell
	out := filepath.Join(dir, "out")
	args := []string{driver, script, setup}
	switch shell {
	case "zsh":
		args = append([]string{"-f"}, append(args, out)...)
	case "fish":
		args = append([]string{"--no-config"}, args...)
	case "bash":
		args = append([]string{"--norc", "--noprofile"}, args...)
	}
	for _, c := range cases {
		args = append(args, c.line)
	}
	// The shells' completions run in seconds; the watchdog, three times
	// over for a loaded machine, only keeps a stuck shell from hanging
	// the tests.
	ctx, cancel := context.WithTimeout(context.Background(), 3*ptytest.Watchdog)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = dir
	// The scripts ask the pbwrap the line names: the one built, on PATH.
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CACHE_HOME="+dir,
		"BASH_COMPLETION="+bashCompletion, "PATH="+filepath.Dir(pbwrapBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PBWRAP_ROOT="+filepath.Join(dir, "no-root"))
	output, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", shell, strings.Join(args, " "), err, output)
	}
	if shell == "zsh" {
		if output, err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string][]string{}
	var line string
	for _, l := range strings.Split(string(output), "\n") {
		if rest, ok := strings.CutPrefix(l, "== "); ok {
			line = rest
			got[line] = []string{}
			continue
		}
		if l != "" {
			got[line] = append(got[line], l)
		}
	}
	return got
}

// abbreviate shortens a long list of words for a message.
func abbreviate(words []string) []string {
	if len(words) > 20 {
		return append(slices.Clip(words[:20]), "...")
	}
	return words
}

// TestUsageFlags checks that a command's usage line shows exactly the
// flags it declares (which completion offers), and that the built pbwrap
// takes each of them.
func TestUsageFlags(t *testing.T) {
	usageFlag := regexp.MustCompile(`--[a-z0-9][a-z0-9-]*(?: [A-Z][A-Z0-9_]*)?`)
	for _, c := range commands {
		var declared []string
		for _, f := range c.flagDecls {
			declared = append(declared, strings.TrimSpace("--"+f.name+" "+f.arg))
		}
		if shown := usageFlag.FindAllString(c.usage, -1); !slices.Equal(shown, declared) {
			t.Errorf("pbwrap %s: the usage line shows %q, the command declares %q", c.name, shown, declared)
		}
		for _, f := range c.flagDecls {
			args := []string{c.name, "--" + f.name}
			if f.arg != "" {
				args = append(args, "1")
			}
			out, err := exec.Command(pbwrapBin, append(args, "--help")...).CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "usage: pbwrap "+c.usage) {
				t.Errorf("pbwrap %s --help: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
}

// The completion scripts hold none of pbwrap's flags and commands: they
// load them from the pbwrap they complete, at each completion, as they ask
// it for a command's arguments and a flag's values, so that a script
// printed before an upgrade offers what the pbwrap on the line takes now.
func TestCompletionScriptsLoadTheTables(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		script, ok := completionScript(shell)
		tables, tok := completionTables(shell)
		if !ok || !tok || !strings.Contains(script, " completion tables "+shell+" ") {
			t.Errorf("%s: the script does not load pbwrap completion tables %s", shell, shell)
		}
		for _, s := range newSettings() {
			if strings.Contains(script, "--"+s.flag) {
				t.Errorf("%s: the script names --%s itself", shell, s.flag)
			}
			if !strings.Contains(tables, "--"+s.flag) {
				t.Errorf("%s: the tables leave out --%s", shell, s.flag)
			}
		}
		for _, c := range commands {
			if strings.Contains(script, "'"+c.name+"'") || !strings.Contains(tables, "'"+c.name) {
				t.Errorf("%s: pbwrap %s is in the script, or not in the tables", shell, c.name)
			}
		}
	}
}
