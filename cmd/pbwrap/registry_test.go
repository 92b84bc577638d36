package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/agent"
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
			{"pbwrap help", help, "pbwrap hook " + strings.Join(hookedNames(), "|")},
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
