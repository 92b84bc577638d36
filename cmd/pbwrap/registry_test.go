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
// their refusals for an agent without a hook), the completion scripts, the
// man page and the README. Adding an agent to the registry is all it
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
	bash := pbwrapOutput(t, "completion", "bash")
	for _, a := range agent.All() {
		if out := pbwrapOutput(t, "help", "agents", a.Name); !strings.Contains(out, "[paste saved: PATH]") ||
			strings.Contains(out, "{{file:") != (a.Hook != nil) {
			t.Errorf("pbwrap help agents %s:\n%s", a.Name, out)
		}
		if !strings.Contains(string(readme), "(`"+a.Name+"`)") {
			t.Errorf("README.md's table of agents has no %s", a.Name)
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
		for what, text := range map[string]string{
			"pbwrap hook --help":     "pbwrap hook " + a.Name + " is " + a.Title + "'s",
			"pbwrap setup --help":    "\n  " + a.Name + " ",
			"pbwrap help":            "pbwrap hook " + strings.Join(hookedNames(), "|"),
			"the man page":           "pbwrap hook " + a.Name + " is",
			"pbwrap completion bash": "'" + a.Name + "'",
			"README.md":              "`" + a.Name + "`",
		} {
			in := map[string]string{"pbwrap hook --help": hookHelp, "pbwrap setup --help": setupHelp, "pbwrap help": help,
				"the man page": string(man), "pbwrap completion bash": bash, "README.md": string(readme)}[what]
			if !strings.Contains(strings.ReplaceAll(in, `\-`, "-"), text) {
				t.Errorf("%s has no %q", what, text)
			}
		}
		if out := pbwrapOutput(t, "setup", "--print", a.Name); !strings.Contains(out, "hook "+a.Name) {
			t.Errorf("pbwrap setup --print %s:\n%s", a.Name, out)
		}
	}
}
