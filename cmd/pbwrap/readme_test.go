package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/agent"
)

// README.md and doc/*.md document everything the help names: each command (each
// agent of pbwrap hook too), each flag of pbwrap and of its commands, and
// each environment variable, as found in what pbwrap help and pbwrap
// COMMAND --help print, so that a new one cannot be left out (issue 14).
func TestReadmeCoversHelp(t *testing.T) {
	readme := allDocs(t)
	help := pbwrapOutput(t, "help")
	commands := helpCommands(help)
	if len(commands) < 9 {
		t.Fatalf("found only these commands in pbwrap help: %q", commands)
	}
	for _, c := range commands {
		if !strings.Contains(readme, "pbwrap "+c) {
			t.Errorf("README.md and doc/*.md do not mention pbwrap %s", c)
		}
	}
	flags := regexp.MustCompile(`(?m)^  (-[a-z]), (--[a-z-]+)|^  (--[a-z][a-z-]+)`).FindAllStringSubmatch(help, -1)
	for _, c := range commands {
		if name, _, _ := strings.Cut(c, " "); name != "help" {
			flags = append(flags, regexp.MustCompile(`(--[a-z][a-z-]+)`).FindAllStringSubmatch(pbwrapOutput(t, name, "--help"), -1)...)
		}
	}
	if len(flags) < 15 {
		t.Fatalf("found only these flags in the help: %q", flags)
	}
	seen := make(map[string]bool)
	for _, m := range flags {
		for _, f := range m[1:] {
			if f == "" || seen[f] {
				continue
			}
			seen[f] = true
			if !regexp.MustCompile(`(^|[^A-Za-z0-9-])` + regexp.QuoteMeta(f) + `($|[^A-Za-z0-9-])`).MatchString(readme) {
				t.Errorf("README.md and doc/*.md do not mention %s", f)
			}
		}
	}
	for _, v := range slices.Compact(slices.Sorted(slices.Values(regexp.MustCompile(`PBWRAP_[A-Z_]+`).FindAllString(help, -1)))) {
		if !strings.Contains(readme, v) {
			t.Errorf("README.md and doc/*.md do not mention %s", v)
		}
	}
}

// helpCommands returns the commands pbwrap help lists: "list", "hook
// claude", "hook codex", ..., "help agents".
func helpCommands(help string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  pbwrap ([a-z][a-z-]*)(?: ([a-z]+(?:\|[a-z]+)+|agents))?`).FindAllStringSubmatch(help, -1) {
		if m[2] == "" {
			out = append(out, m[1])
			continue
		}
		for _, sub := range strings.Split(m[2], "|") {
			out = append(out, m[1]+" "+sub)
		}
	}
	return out
}

// pbwrapOutput runs the built pbwrap with args and returns its standard
// output.
func pbwrapOutput(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(pbwrapBin, args...).Output()
	if err != nil {
		t.Fatalf("pbwrap %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// The table of pbwrap's commands (doc/usage.md) says, for each, which of
// pbwrap's flags it takes after its name and whether it runs with a bad
// setting, as the command table has it (review finding 10: the README
// said only doctor ran, and the changelog that every flag worked after a
// command).
func TestReadmeCommandTable(t *testing.T) {
	readme := allDocs(t)
	rows := make(map[string][]string)
	for _, m := range regexp.MustCompile("(?m)^\\| `pbwrap ([a-z-]+)` \\| ([^|]+) \\| ([^|]+) \\|$").FindAllStringSubmatch(readme, -1) {
		rows[m[1]] = []string{strings.TrimSpace(m[2]), strings.TrimSpace(m[3])}
	}
	for _, c := range commands {
		row, ok := rows[c.name]
		if !ok {
			t.Errorf("the table of commands has no row for pbwrap %s", c.name)
			continue
		}
		flags := "none"
		switch {
		case c.allGlobals:
			flags = "all"
		case len(c.globals) > 0:
			flags = "`--" + strings.Join(c.globals, "`, `--") + "`"
		}
		if row[0] != flags {
			t.Errorf("doc/usage.md: pbwrap %s takes %s after its name, want %s", c.name, row[0], flags)
		}
		if runs := strings.HasPrefix(row[1], "runs"); runs != c.lenient || !runs && row[1] != "exit 2" {
			t.Errorf("doc/usage.md: pbwrap %s with a bad setting: %q, want it to run: %v", c.name, row[1], c.lenient)
		}
	}
	if len(rows) != len(commands) {
		t.Errorf("the table of commands has %d rows, want %d, one per command", len(rows), len(commands))
	}
}

// The table of settings (doc/usage.md) has a row for each setting, with its
// variable and the default the help shows (issue 29: the root, the TTL
// and the cap changed, and the table must say so).
func TestReadmeSettingsTable(t *testing.T) {
	readme := allDocs(t)
	rows := make(map[string][]string)
	for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z-]+)[^`]*` \\| `([A-Z_]+)[^`]*` \\| ([^|]+) \\| [^|]+ \\|$").FindAllStringSubmatch(readme, -1) {
		rows[m[1]] = []string{m[2], strings.ReplaceAll(strings.TrimSpace(m[3]), "`", "")}
	}
	for _, s := range newSettings() {
		row, ok := rows[s.flag]
		if !ok {
			t.Errorf("the table of settings has no row for --%s", s.flag)
			continue
		}
		def := s.value
		switch {
		case s.isSwitch():
			def = "off"
		case s.shown != "":
			def = s.shown
		case def == "":
			def = "none"
		}
		if row[0] != s.env || row[1] != def {
			t.Errorf("doc/usage.md: --%s: %s, default %q; want %s, default %q", s.flag, row[0], row[1], s.env, def)
		}
	}
	if len(rows) != len(newSettings()) {
		t.Errorf("the table of settings has %d rows, want %d", len(rows), len(newSettings()))
	}
}

// The documents show the text that pbwrap help agents prints, whole for
// Claude Code and, for the other agents, each part of theirs, so that the
// two cannot drift apart.
func TestReadmeHasAgentsText(t *testing.T) {
	readme := []byte(allDocs(t))
	if !bytes.Contains(readme, []byte(agent.Instructions(agent.Find("claude")))) {
		t.Error("README.md and doc/*.md do not contain the text pbwrap help agents claude prints")
	}
	for _, a := range append([]*agent.Agent{nil}, agent.All()...) {
		name := "(no agent)"
		if a != nil {
			name = a.Name
		}
		for _, part := range agent.InstructionParts(a) {
			if !bytes.Contains(readme, []byte(part)) {
				t.Errorf("README.md and doc/*.md do not contain this part of pbwrap help agents %s:\n%s", name, part)
			}
		}
	}
}
