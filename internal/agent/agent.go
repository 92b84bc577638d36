// Package agent is pbwrap's registry of the coding agents it knows: one
// file per agent, each holding one Agent value that says all pbwrap knows
// of that agent. How it reads the saved pastes (a flag or a variable
// pbwrap adds at its start), its hook for {{file:...}} references (the
// event, the tools and fields it rewrites, the settings file it goes in),
// what else setup writes so that the agent starts without asking (trust
// records), what pbwrap doctor checks of it, what pbwrap help agents
// teaches it, and how the end-to-end suite starts it offline.
//
// The commands read everything from here: wrapping (Args, AddEnv), pbwrap
// hook (Hook.Protocol.Answer), pbwrap setup (Plan), pbwrap doctor (Check), pbwrap
// help agents (Instructions), their help texts, the man page and shell
// completion (All). Adding an agent is adding its file, with its tests and,
// for an agent with a hook, its golden hook calls (testdata/hook/NAME).
//
// What the package reads of the system (the environment, the home
// directory, PATH) it reads through an Env, which tests replace.
package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// An Agent is a coding agent CLI pbwrap knows by its command's base name.
type Agent struct {
	// Name is the command's base name, by which pbwrap knows the agent
	// ("claude"); Title is what people call it ("Claude Code").
	Name, Title string

	// subcommands are words that, as the first argument that is not a
	// flag, make the run something other than the interactive agent;
	// batch are flags that make the run non-interactive. Those runs get
	// nothing added: they take no pastes.
	subcommands, batch []string

	// Args returns argv with what the agent needs to read the root, or nil
	// when it needs nothing; Env is the variable it takes that permission
	// from, for agents that read it from their environment. Either may be
	// nil.
	Args func(argv []string, root string) []string
	Env  *Var

	// Reads says how the agent reads pasted files, for pbwrap doctor and
	// the README's table of agents.
	Reads string

	// Hook is pbwrap's hook for the agent, which expands {{file:...}}
	// references in its edits; nil when there is none, and then pbwrap
	// help agents does not teach the agent references.
	Hook *Hook

	// Trust are the files, after the hook's, that pbwrap setup changes so
	// that the agent starts without asking about the hook or the root.
	Trust []File

	// Check checks, for pbwrap doctor, what else decides whether the agent
	// starts without asking and reads the root (nil for nothing more).
	Check func(env Env, root string) []Finding

	// Note returns what pbwrap says before a start in cwd, for an agent
	// that will ask because of pbwrap whatever pbwrap adds to its start
	// (see StartNote); nil for an agent that never does.
	Note func(env Env, cwd, root string) Message

	// E2E is how the end-to-end suite starts the agent offline.
	E2E E2E
}

// A Var is an environment variable an agent reads its permissions from.
type Var struct {
	Name string
	// Value returns the variable's value that lets the agent read root,
	// given its value in pbwrap's environment ("" when unset); an error
	// says why the variable is better left as it is.
	Value func(old, root string) (string, error)
}

// all are the agents pbwrap knows, in the order pbwrap lists them.
var all = []*Agent{claude, codex, gemini, pi, qwen, crush, copilot, opencode, cline, kilo, auggie, droid, letta,
	continueCLI, cursor, amp, goose}

func init() {
	for _, a := range all {
		if a.Hook != nil {
			a.Hook.agent = a.Name
		}
	}
}

// All returns the agents pbwrap knows, in the order pbwrap lists them.
// The caller must not change them.
func All() []*Agent { return all }

// Hooked returns the agents pbwrap has a hook for.
func Hooked() []*Agent {
	var out []*Agent
	for _, a := range all {
		if a.Hook != nil {
			out = append(out, a)
		}
	}
	return out
}

// Find returns the agent called name, or nil.
func Find(name string) *Agent {
	for _, a := range all {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// forCommand returns the agent a command runs, by its base name, or nil.
func forCommand(command string) *Agent { return Find(filepath.Base(command)) }

// Names lists the agents' names, comma-separated, the last after conj
// ("and", "or") unless conj is "".
func Names(agents []*Agent, conj string) string {
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.Name
	}
	if conj != "" && len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
	}
	return strings.Join(names, ", ")
}

// infoFlags are the informational flags of every agent: a run with one
// shows something and exits.
var infoFlags = []string{"-h", "--help", "-v", "-V", "--version"}

// interactive reports whether args start the agent's interactive session:
// no subcommand first, no batch or informational flag before a "--".
func (a *Agent) interactive(args []string) bool {
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if slices.Contains(a.batch, arg) || slices.Contains(infoFlags, arg) {
			return false
		}
		if i == firstWord(args) && slices.Contains(a.subcommands, arg) {
			return false
		}
	}
	return true
}

// firstWord is the index of the first argument that is not a flag, or -1.
// A flag's separate value is not told apart from a word, which errs on the
// side of adding nothing: "claude --model opus mcp" is not taken for the
// mcp subcommand, since opus comes first.
func firstWord(args []string) int {
	for i, arg := range args {
		if !strings.HasPrefix(arg, "-") {
			return i
		}
	}
	return -1
}

// AddArgs returns argv with what the agent it runs needs to read root, for
// an interactive run of a known agent; otherwise argv unchanged.
func AddArgs(argv []string, root string) []string {
	a := forCommand(argv[0])
	if a == nil || a.Args == nil || !a.interactive(argv[1:]) {
		return argv
	}
	if out := a.Args(argv, root); out != nil {
		return out
	}
	return argv
}

// AddEnv returns environ with what the agent argv runs needs to read root,
// for an interactive run of a known agent; otherwise environ unchanged.
// When the variable the agent needs is already set to a value pbwrap
// cannot add to, environ is returned unchanged with an error that says so.
func AddEnv(argv, environ []string, root string) ([]string, error) {
	a := forCommand(argv[0])
	if a == nil || a.Env == nil || !a.interactive(argv[1:]) {
		return environ, nil
	}
	name := a.Env.Name
	old := ""
	for _, kv := range environ {
		if HasKey(kv, name) {
			old = kv[len(name)+1:] // The last one wins, as in getenv.
		}
	}
	value, err := a.Env.Value(old, root)
	if err != nil {
		return environ, fmt.Errorf("%s: left %s as it was, so %s may ask before reading the saved pastes: %w", a.Name, name, a.Name, err)
	}
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !HasKey(kv, name) {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value), nil
}

// ErrNoArgs: pbwrap is told not to add what an agent needs
// (--no-agent-args).
var ErrNoArgs = errors.New("pbwrap adds nothing to the agents' arguments")

// Added says what pbwrap adds to the agent's start so that it reads root,
// for pbwrap doctor: the arguments or the variable ("nothing" when the
// agent needs none), and whether the agent can then read root. With
// noArgs, pbwrap adds nothing. environ is pbwrap's environment.
func (a *Agent) Added(environ []string, root string, noArgs bool) (added string, reads bool, err error) {
	added, reads = "nothing", true
	if a.Args != nil {
		out := a.Args([]string{a.Name}, root)
		switch {
		case noArgs && out != nil:
			reads = false
		case out != nil:
			added = strings.Join(out[1:], " ")
		}
	}
	if a.Env != nil {
		if noArgs {
			return added, false, ErrNoArgs
		}
		env, err := AddEnv([]string{a.Name}, environ, root)
		if err != nil {
			return added, true, err
		}
		for _, kv := range env {
			if HasKey(kv, a.Env.Name) {
				added = kv
			}
		}
	}
	if !reads {
		return added, false, ErrNoArgs
	}
	return added, true, nil
}

// HasKey reports whether kv, an environment entry, sets key.
func HasKey(kv, key string) bool {
	return len(kv) > len(key) && kv[:len(key)] == key && kv[len(key)] == '='
}

// insertAfterName inserts extra right after the command name.
func insertAfterName(argv []string, extra ...string) []string {
	out := append([]string{argv[0]}, extra...)
	return append(out, argv[1:]...)
}

// appendLast adds extra where a greedy option parser cannot take a word
// that follows it: before a "--", else at the end.
func appendLast(argv []string, extra ...string) []string {
	if i := slices.Index(argv, "--"); i > 0 {
		out := slices.Clone(argv[:i])
		out = append(out, extra...)
		return append(out, argv[i:]...)
	}
	return append(slices.Clone(argv), extra...)
}
