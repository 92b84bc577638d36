package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/fileref"
)

// The lists of agents in README.md and doc/*.md are made from the
// registry (package agent), between marker lines:
//
//	<!-- agents:begin KIND [ARG] -->
//	...
//	<!-- agents:end -->
//
// TestDocsAgentLists fails when the text between them is not what the
// registry gives today; to write it again after a change to the registry:
//
//	go test ./cmd/pbwrap -run TestDocs -update
var updateDocs = flag.Bool("update", false, "write the lists of agents in README.md and doc/*.md from the registry")

// docFiles are the documents, from this package's directory: the README
// first, then doc/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../doc/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

// allDocs returns README.md and doc/*.md, one after the other.
func allDocs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(text)
		b.WriteString("\n")
	}
	return b.String()
}

// agentBlock matches a generated block: its kind, argument and text.
var agentBlock = regexp.MustCompile(`(?ms)^<!-- agents:begin ([a-z0-9-]+)(?: ([a-z0-9-]+))? -->\n(.*?)^<!-- agents:end -->\n`)

// agentsText is what the registry gives for a block of kind and arg, or
// an error for a kind or agent there is none of.
func agentsText(kind, arg string) (string, error) {
	if kind == "agent" {
		a := agent.Find(arg)
		if a == nil {
			return "", fmt.Errorf("no agent %q in the registry", arg)
		}
		return agentSection(a), nil
	}
	if arg != "" {
		return "", fmt.Errorf("%s takes no argument, got %q", kind, arg)
	}
	var b strings.Builder
	switch kind {
	case "table":
		// README: every agent, what pbwrap adds so that it reads a saved
		// paste, and its hook.
		b.WriteString("| agent | so that it reads a saved paste with no prompt, pbwrap adds | `{{file:…}}` hook |\n|---|---|---|\n")
		for _, a := range agent.All() {
			hook := "none: it is not taught references"
			if a.Hook != nil {
				hook = "`pbwrap setup " + a.Name + "`"
			}
			fmt.Fprintf(&b, "| [%s](doc/agents.md#%s) (`%s`) | %s | %s |\n", a.Title, headingAnchor(agentHeading(a)), a.Name, readsText(a), hook)
		}
	case "hooked":
		// The agents pbwrap setup takes.
		fmt.Fprintf(&b, "AGENT, for `pbwrap hook` and `pbwrap setup`, is one of %s.\n", codeNames(agent.Hooked(), "or"))
	case "unhooked":
		var none []*agent.Agent
		for _, a := range agent.All() {
			if a.Hook == nil {
				none = append(none, a)
			}
		}
		fmt.Fprintf(&b, "%s have no pbwrap hook: an unexpanded reference would land in the file as it is, so pbwrap does not teach them references, and `pbwrap hook` and `pbwrap setup` refuse them.\n", titles(none))
	case "taught":
		fmt.Fprintf(&b, "For an agent with a pbwrap hook (%s) it teaches both conventions.\n", titles(agent.Hooked()))
	case "read-rules":
		var with, without []*agent.Agent
		for _, a := range agent.Hooked() {
			if a.Hook.ReadRules != nil {
				with = append(with, a)
			} else {
				without = append(without, a)
			}
		}
		fmt.Fprintf(&b, "The hook honours the read rules of %s, as below; %s have none it honours, and for them the directories above are the rules.\n", titles(with), titles(without))
	case "e2e":
		var run, not []*agent.Agent
		for _, a := range agent.All() {
			switch {
			case a.E2E.Ready != "":
				run = append(run, a)
			case a.E2E.Unavailable != "":
				not = append(not, a)
			}
		}
		fmt.Fprintf(&b, "It runs %s. It does not run:\n\n", titles(run))
		for _, a := range not {
			fmt.Fprintf(&b, "- %s: %s.\n", a.Title, a.E2E.Unavailable)
		}
	default:
		return "", fmt.Errorf("no list of agents called %q", kind)
	}
	return b.String(), nil
}

// readsText is what pbwrap adds for the agent to read the root, as the
// registry says, and the note pbwrap gives before a start when that is
// not enough.
func readsText(a *agent.Agent) string {
	s := strings.ReplaceAll(a.Reads, "ROOT", "`ROOT`")
	if a.Note != nil {
		s += "; until `pbwrap setup " + a.Name + "`, a line before each start names the question it asks"
	}
	return s
}

// agentHeading is the heading of an agent's section of doc/agents.md.
func agentHeading(a *agent.Agent) string { return a.Title + " (`" + a.Name + "`)" }

// agentSection is the generated part of an agent's section of
// doc/agents.md: what pbwrap adds, its hook, where it goes, the hook's
// entry or extension, and what else setup writes.
func agentSection(a *agent.Agent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", agentHeading(a))
	fmt.Fprintf(&b, "- What pbwrap adds to its start: %s.\n", readsText(a))
	if a.E2E.Unavailable != "" {
		fmt.Fprintf(&b, "- Not run by `scripts/e2e-agents`: %s.\n", a.E2E.Unavailable)
	}
	h := a.Hook
	if h == nil {
		b.WriteString("- No pbwrap hook: `pbwrap help agents " + a.Name + "` teaches it the saved pastes alone.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "- Hook: `pbwrap hook %s`, on its `%s` event, expands references in %s", a.Name, h.Protocol.Event, toolList(h.Protocol.Tools))
	if len(h.Protocol.Reads) > 0 {
		fmt.Fprintf(&b, ", and allows %s of a file in the root", toolList(h.Protocol.Reads))
	}
	b.WriteString(".\n")
	for _, f := range a.Trust {
		fmt.Fprintf(&b, "- `pbwrap setup %s` also writes %s.\n", a.Name, f.Help)
	}
	fmt.Fprintf(&b, "- `pbwrap setup %s` installs the hook in `%s`", a.Name, strings.ReplaceAll(h.Where, ", else ", "`, else `"))
	if h.Timeout > 0 {
		fmt.Fprintf(&b, " (the timeout is in %s)", h.TimeoutUnit)
	}
	b.WriteString(", or by hand:\n\n")
	if h.Extension != nil {
		file := h.Where[strings.LastIndex(h.Where, " ")+1:]
		fmt.Fprintf(&b, "  ```sh\n  mkdir -p %s\n  pbwrap help agents %s-extension > %s\n  ```\n\n", filepath.Dir(file), a.Name, file)
	} else {
		fmt.Fprintf(&b, "  ```json\n%s  ```\n\n", indent(string(h.Snippet("pbwrap")), "  "))
	}
	for p := range strings.SplitSeq(strings.TrimSpace(h.About), "\n\n") {
		b.WriteString(strings.Join(strings.Fields(p), " ") + "\n\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// toolList lists tools and the fields the hook reads of each, as code:
// `Write` (`content`).
func toolList(tools []fileref.Tool) string {
	var out []string
	for _, t := range tools {
		name, fields, _ := strings.Cut(t.String(), " (")
		out = append(out, "`"+name+"` (`"+strings.ReplaceAll(strings.TrimSuffix(fields, ")"), ", ", "`, `")+"`)")
	}
	return listed(out, "and")
}

// indent puts prefix before each line of s.
func indent(s, prefix string) string {
	var b strings.Builder
	for l := range strings.Lines(s) {
		b.WriteString(prefix + l)
	}
	return b.String()
}

// titles lists the agents by what people call them.
func titles(agents []*agent.Agent) string {
	var out []string
	for _, a := range agents {
		out = append(out, a.Title)
	}
	return listed(out, "and")
}

// codeNames lists the agents' names, as code.
func codeNames(agents []*agent.Agent, conj string) string {
	var out []string
	for _, a := range agents {
		out = append(out, "`"+a.Name+"`")
	}
	return listed(out, conj)
}

// listed joins words with commas, the last after conj.
func listed(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// regenerate returns text with each block of agents as the registry gives
// it, and, in doc/agents.md, a section for every agent, in the registry's
// order (one missing is added after the last).
func regenerate(name, text string) (string, error) {
	var err error
	var sections []string
	out := agentBlock.ReplaceAllStringFunc(text, func(m string) string {
		s := agentBlock.FindStringSubmatch(m)
		if s[1] == "agent" {
			sections = append(sections, s[2])
		}
		body, e := agentsText(s[1], s[2])
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %w", name, e)
		}
		head := "<!-- agents:begin " + s[1]
		if s[2] != "" {
			head += " " + s[2]
		}
		return head + " -->\n" + body + "<!-- agents:end -->\n"
	})
	if err != nil || filepath.Base(name) != "agents.md" {
		return out, err
	}
	var names []string
	for _, a := range agent.All() {
		names = append(names, a.Name)
	}
	var missing strings.Builder
	for _, n := range names {
		if !slices.Contains(sections, n) {
			body, _ := agentsText("agent", n)
			fmt.Fprintf(&missing, "\n<!-- agents:begin agent %s -->\n%s<!-- agents:end -->\n", n, body)
		}
	}
	if missing.Len() > 0 {
		last := strings.LastIndex(out, "<!-- agents:begin agent ")
		if last < 0 {
			return out, fmt.Errorf("%s: no section of an agent to add %s after", name, missing.String())
		}
		// After the last agent's section and its notes: before the next
		// heading of the level above, or at the end.
		at := len(out)
		if i := strings.Index(out[last:], "\n## "); i >= 0 {
			at = last + i + 1
		}
		out = out[:at] + strings.TrimPrefix(missing.String(), "\n") + "\n" + out[at:]
	}
	var order []string
	for _, n := range names {
		if slices.Contains(sections, n) {
			order = append(order, n)
		}
	}
	if !slices.Equal(order, sections) {
		return out, fmt.Errorf("%s: the agents' sections are in the order %q, want the registry's, %q", name, sections, order)
	}
	return out, nil
}

// Every list of agents in README.md and doc/*.md is what the registry
// gives (issue 40: the README's lists named 4 or 6 of the 8 agents setup
// covered), and doc/agents.md has a section for each agent.
func TestDocsAgentLists(t *testing.T) {
	blocks := 0
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks += len(agentBlock.FindAll(text, -1))
		n := len(regexp.MustCompile(`(?m)^<!-- agents:begin`).FindAll(text, -1))
		if m := len(regexp.MustCompile(`(?m)^<!-- agents:end -->$`).FindAll(text, -1)); n != len(agentBlock.FindAll(text, -1)) || m != n {
			t.Errorf("%s: %d begin and %d end markers, %d blocks: a marker is misspelt or unpaired", f, n, m, len(agentBlock.FindAll(text, -1)))
		}
		want, err := regenerate(f, string(text))
		if err != nil {
			t.Error(err)
			continue
		}
		if want == string(text) {
			continue
		}
		if *updateDocs {
			if err := os.WriteFile(f, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: the lists of agents are not what the registry gives (%s); run go test ./cmd/pbwrap -run TestDocs -update", f, firstDifference(string(text), want))
	}
	if blocks < len(agent.All())+4 {
		t.Errorf("found %d lists of agents in README.md and doc/*.md, want a section per agent and the README's table at least", blocks)
	}
}

// mdLink matches a Markdown link's target, outside code.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link in README.md and doc/*.md leads to a file that
// exists, and an anchor to a heading in it.
func TestDocsLinks(t *testing.T) {
	anchors := make(map[string][]string)
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link to %s: %v", f, target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if _, ok := anchors[file]; !ok {
				anchors[file] = headingAnchors(t, file)
			}
			if !slices.Contains(anchors[file], anchor) {
				t.Errorf("%s: link to %s: no such heading in %s", f, target, file)
			}
		}
	}
}

// stripCode removes fenced code blocks and code spans, where brackets are
// no links.
func stripCode(s string) string {
	s = regexp.MustCompile("(?ms)^ *```.*?^ *```").ReplaceAllString(s, "")
	return regexp.MustCompile("`[^`\n]*`").ReplaceAllString(s, "")
}

// headingAnchors returns the anchors GitHub makes for the headings of a
// Markdown file.
func headingAnchors(t *testing.T, file string) []string {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[string]int)
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(regexp.MustCompile("(?ms)^ *```.*?^ *```").ReplaceAllString(string(text), ""), -1) {
		a := headingAnchor(m[1])
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// headingAnchor is the anchor GitHub makes for a heading: lower case,
// blanks as hyphens, other punctuation dropped.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// doc/internals.md lists every package of the module, each once, between
// its packages markers, and no package that is not there: a newcomer's map
// that cannot fall behind the tree.
func TestDocsPackages(t *testing.T) {
	text, err := os.ReadFile("../../doc/internals.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(text), "<!-- packages:begin -->\n")
	if table, _, ok = strings.Cut(table, "<!-- packages:end -->"); !ok {
		t.Fatal("doc/internals.md: no <!-- packages:begin --> ... <!-- packages:end --> block")
	}
	listed := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(table, -1) {
		listed[m[1]]++
	}
	var dirs []string
	err = filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			dir, _ := filepath.Rel("../..", filepath.Dir(p))
			if !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		if listed[dir] != 1 {
			t.Errorf("doc/internals.md lists package %s %d times, want once", dir, listed[dir])
		}
		delete(listed, dir)
	}
	for name := range listed {
		t.Errorf("doc/internals.md lists %s, which is no package of the module", name)
	}
}
