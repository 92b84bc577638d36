package main

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/agent"
)

// Every surface made from the registry of agents names every agent it
// should, as the built pbwrap prints it: help agents, hook and setup (and
// their refusals for an agent without a hook), completion, the man page
// and the README. Adding an agent to the registry is all it
// takes for them to know it.
func TestRegistrySurfaces(t *testing.T) {
	man, err := os.ReadFile("../../doc/pbwrap.1")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	hookHelp := pbwrapOutput(t, "hook", "--help")
	setupHelp := pbwrapOutput(t, "setup", "--help")
	help := pbwrapOutput(t, "help")
	hookWords := pbwrapOutput(t, "completion", "words", "hook")
	setupWords := pbwrapOutput(t, "completion", "words", "setup", "--yes")
	helpWords := pbwrapOutput(t, "completion", "words", "help", "agents")
	for _, a := range agent.All() {
		if out := pbwrapOutput(t, "help", "agents", a.Name); !strings.Contains(out, "[paste saved: PATH]") ||
			strings.Contains(out, "{{file:") != (a.Hook != nil) {
			t.Errorf("pbwrap help agents %s:\n%s", a.Name, out)
		}
		if !strings.Contains(string(readme), "(`"+a.Name+"`)") {
			t.Errorf("README.md's table of agents has no %s", a.Name)
		}
		if !strings.Contains("\n"+helpWords, "\n"+a.Name+"\n") {
			t.Errorf("pbwrap completion words help agents does not offer %s", a.Name)
		}
		if a.Hook == nil {
			for _, args := range [][]string{{"hook", a.Name}, {"setup", "--print", a.Name}} {
				out, err := exec.Command(pbwrapBin, args...).CombinedOutput()
				if err == nil || !strings.Contains(string(out), "no hook for") {
					t.Errorf("pbwrap %s: %v\n%s; want it refused: no hook", strings.Join(args, " "), err, out)
				}
			}
			continue
		}
		for _, c := range []struct{ what, in, text string }{
			{"pbwrap hook --help", hookHelp, "pbwrap hook " + a.Name + " is " + a.Title + "'s"},
			{"pbwrap setup --help", setupHelp, "\n  " + a.Name + " "},
			{"pbwrap help", strings.Join(strings.Fields(help), " "), agent.Names(agent.Hooked(), "")},
			{"the man page", strings.ReplaceAll(string(man), `\-`, "-"), "pbwrap hook " + a.Name + " is"},
			{"pbwrap completion words hook", "\n" + hookWords, "\n" + a.Name + "\n"},
			{"pbwrap completion words setup --yes", "\n" + setupWords, "\n" + a.Name + "\n"},
			{"README.md", string(readme), "`" + a.Name + "`"},
		} {
			if !strings.Contains(c.in, c.text) {
				t.Errorf("%s has no %q", c.what, c.text)
			}
		}
		if out := pbwrapOutput(t, "setup", "--print", a.Name); !strings.Contains(out, "hook "+a.Name) {
			t.Errorf("pbwrap setup --print %s:\n%s", a.Name, out)
		}
	}
}

// The package doc of main.go, which go doc shows and nothing generates,
// agrees with the tables: a usage line for wrapping, for every command and
// every help topic, as help prints it, and none for anything else; and
// the agents hook, setup and help agents take, as the registry has them.
func TestMainDocAgrees(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	usages := []string{"pbwrap [flags] [--] COMMAND [ARGS...]"}
	for _, c := range commands {
		usages = append(usages, "pbwrap "+c.usage)
	}
	for _, tp := range helpTopics {
		usages = append(usages, "pbwrap help "+tp.name+tp.args)
	}
	var lines []string
	for line := range strings.Lines(doc) {
		if u, ok := strings.CutPrefix(line, "\tpbwrap "); ok {
			lines = append(lines, "pbwrap "+u)
		}
	}
	if len(lines) != len(usages) {
		t.Errorf("main.go's doc has %d usage lines, the tables %d", len(lines), len(usages))
	}
	for i, u := range usages {
		if i >= len(lines) || lines[i] != u+"\n" && !strings.HasPrefix(lines[i], u+" ") {
			t.Errorf("main.go's doc: usage line %d should be %q (as pbwrap --help has it)", i+1, u)
		}
	}
	var unhooked []*agent.Agent
	for _, a := range agent.All() {
		if a.Hook == nil {
			unhooked = append(unhooked, a)
		}
	}
	want := "AGENT, for hook and setup, is one of the agents pbwrap has a hook for: " + agent.Names(agent.Hooked(), "or") +
		". pbwrap help agents takes those and the agents pbwrap knows without a hook: " + agent.Names(unhooked, "and") + "."
	if !strings.Contains(strings.Join(strings.Fields(doc), " "), want) {
		t.Errorf("main.go's doc should say, as the registry has it:\n%s", want)
	}
}
