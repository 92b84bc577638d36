package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// A Finding is one thing pbwrap doctor found about an agent: a line of
// its report, and a problem when something will not work.
type Finding struct {
	// Line is the report's line: "hook: in FILE, runs ...".
	Line Message
	// Problem says what will not work, empty when nothing; Fix what to do
	// about it.
	Problem, Fix Message
}

// A Message is a text with the values found on the system (paths,
// commands, errors, what an agent wrote into its settings) kept apart from
// it, so that whoever shows it escapes those and nothing else: an agent
// can write a control character into its settings, which must not reach
// the terminal as it is.
type Message struct {
	Format string
	Args   []any
}

func msg(format string, args ...any) Message { return Message{format, args} }

// quoted is a value a Message shows in double quotes, escaped as Go
// quotes strings, whatever it holds.
type quoted string

// IsZero reports whether m says nothing.
func (m Message) IsZero() bool { return m.Format == "" }

// Render formats m with escape applied to each string and error among its
// values (a quoted one is quoted instead).
func (m Message) Render(escape func(string) string) string {
	args := make([]any, len(m.Args))
	for i, a := range m.Args {
		switch v := a.(type) {
		case quoted:
			args[i] = strconv.Quote(string(v))
		case string:
			args[i] = escape(v)
		case error:
			args[i] = escape(v.Error())
		default:
			args[i] = v
		}
	}
	return fmt.Sprintf(m.Format, args...)
}

func note(format string, args ...any) Finding { return Finding{Line: msg(format, args...)} }

// Doctor checks, for pbwrap doctor, what decides whether the agent starts
// without asking because of pbwrap and whether its edits with references
// expand: pbwrap's hook in its settings and the binary it runs, then the
// agent's own checks (its Check). root is pbwrap's root, "" when it is
// not known; reads is false when pbwrap adds nothing to the agent's start
// (--no-agent-args), so that what decides whether it reads the root does
// not matter.
func (a *Agent) Doctor(env Env, root string, reads bool) []Finding {
	findings := a.checkHook(env)
	if a.Check != nil && reads {
		findings = append(findings, a.Check(env, root)...)
	}
	return findings
}

// checkHook says whether pbwrap's hook for the agent is installed in its
// user settings and which binary it runs; a hook that runs a missing
// binary, or a binary other than this pbwrap, is a problem, since the
// agent's edits with references would fail, or be expanded by another
// version's rules.
func (a *Agent) checkHook(env Env) []Finding {
	h := a.Hook
	if h == nil {
		return nil
	}
	file, err := h.File(env)
	if err != nil {
		return []Finding{note("hook: not looked for (%s)", err)}
	}
	text, _, err := readSettings(file)
	if err != nil {
		// The error names the file. Read as setup reads it: a named pipe
		// or a device there is refused, not waited for or read whole.
		return []Finding{{Line: msg("hook: cannot be read: %s", err),
			Problem: msg("%s's settings cannot be read: %s", a.Name, err),
			Fix:     msg("replace it with a regular file, or remove it; then pbwrap setup %s installs the hook", a.Name)}}
	}
	if text == nil {
		return []Finding{note("hook: not installed (pbwrap setup %s installs it)", a.Name)}
	}
	commands, err := h.commands(text)
	if err != nil {
		return []Finding{note("hook: not found in %s (%s)", file, err)}
	}
	if len(commands) == 0 {
		return []Finding{note("hook: not installed in %s (pbwrap setup %s installs it)", file, a.Name)}
	}
	var findings []Finding
	for _, c := range commands {
		prog, _ := programOf(c, a.Name) // commands found it.
		findings = append(findings, a.checkProgram(env, file, c, prog))
	}
	return findings
}

// checkProgram says which binary the hook command c, found in file, runs
// (prog, looked up on PATH when it is a bare name), and whether it is
// this pbwrap.
func (a *Agent) checkProgram(env Env, file, c, prog string) Finding {
	fix := msg("pbwrap setup %s, which makes it run this pbwrap", a.Name)
	path := prog
	if filepath.Base(prog) == prog {
		found, err := env.LookPath(prog)
		if err != nil {
			return Finding{Line: msg("hook: in %s, runs %s, which is NOT on PATH", file, c),
				Problem: msg("%s's hook (%s, in %s) runs %s, which is not on PATH: edits with {{file:...}} references fail",
					a.Name, c, file, prog), Fix: fix}
		}
		path = found
	}
	if _, err := os.Stat(path); err != nil {
		return Finding{Line: msg("hook: in %s, runs %s, which is MISSING (%s)", file, c, err),
			Problem: msg("%s's hook (%s, in %s) runs %s, which cannot be run: edits with {{file:...}} references fail",
				a.Name, c, file, path), Fix: fix}
	}
	self, err := env.self()
	if err != nil || !sameProgram(path, self) {
		return Finding{Line: msg("hook: in %s, runs %s: %s, ANOTHER binary than this pbwrap", file, c, path),
			Problem: msg("%s's hook (%s, in %s) runs %s, not this pbwrap (%s)", a.Name, c, file, path, self), Fix: fix}
	}
	return note("hook: in %s, runs %s: %s (this pbwrap)", file, c, path)
}
