package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/frontend"
	"github.com/pbwrap/pbwrap/internal/pastecheck"
	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/store"
)

var doctorCommand = &command{
	name:    "doctor",
	usage:   "doctor [--paste] [--json]",
	summary: "check that pbwrap can do its job here, and say how to fix what stops it",
	help: `Checks the root and each of its safety rules, the free space under it, the
terminal (TERM; what relays your keys: tmux, GNU screen and its version,
mosh, the Linux console, found by the environment and the process tree;
whether the terminal supports bracketed paste, asked with DECRQM; and what
pbwrap does with a paste that comes unmarked), whether an image pasted at the terminal would reach the
agent (--image-paste: over SSH, no multiplexer, kitty's paste events,
asked with DECRQM), the config file and each setting (whether its value is good,
and where it came from), and the known agents on PATH: whether each can read
the saved pastes, what pbwrap adds to its arguments, and whether pbwrap's
hook is installed in its settings and runs this pbwrap (pbwrap setup
installs it). A bad setting is one of the problems, not the end of the
checks: the rest use its default. Exits 0 when all is well, 1 after listing
each problem with its fix.

--paste checks pastes instead, interactively: it asks you to paste some text
at the terminal, and says whether the terminal marked it as a paste
(bracketed paste), in what reads and with what pauses it came, and, if it
was not marked, whether pbwrap would still catch it (--burst): decided as
the wrapper decides, from what relays your keys and what the terminal
says.

--json prints the same findings, in the same order, as one JSON document,
with the same exit status: {"format": 1, "ok": whether all is well,
"problems": how many, "findings": [...]} where each finding is
  {"check": root, terminal, config, agents or paste,
   "depth": 0 for a section's first line, one more per level below it,
   "status": "ok", "fail", "skipped", "unknown", or "info" for a fact,
   "message": the report's line ("" for a problem that has none),
   "problem": what stops pbwrap doing its job ("" for none),
   "fix": what to do about it}.
A finding's problem, not its status, says whether it stops pbwrap: a fact
may have one (a terminal without bracketed paste). The strings are the
report's: a value that does not print (in a path, an agent's settings) is
shown escaped in them, as in the report. The format number changes only
when a field changes meaning or goes away.`,
	run:        runDoctor,
	allGlobals: true,
	lenient:    true,
	flagDecls:  []flagDecl{{name: "paste"}, {name: "json"}},
}

// lowSpace is the free space under the root below which doctor warns: a
// paste that does not fit goes in as text, which is what pbwrap is for
// avoiding.
const lowSpace = 64 << 20

// decrqmTimeout bounds the wait for the terminal's answer: terminals that
// support DECRQM answer at once; many never answer.
const decrqmTimeout = 500 * time.Millisecond

func runDoctor(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 0); err != nil {
		return err
	}
	render := report
	if switchOn(fs, "json") {
		render = reportJSON
	}
	if switchOn(fs, "paste") {
		return render(std.out, checkPaste(cfg).of("paste"))
	}
	root, found := checkRoot(cfg)
	found = found.of("root")
	found = append(found, checkTerminal(cfg).of("terminal")...)
	found = append(found, showConfig(cfg).of("config")...)
	found = append(found, checkAgents(cfg, root).of("agents")...)
	return render(std.out, found)
}

// checkRoot checks the root and each of its rules, saving there, and
// says what it holds; it returns the root resolved, or "" when it cannot
// be used.
func checkRoot(cfg *config) (string, findings) {
	var r findings
	s := cfg.find("root")
	if s.err != nil {
		r.fact(0, "root: %s (from %s)", printable.Quote(s.value), s.from)
		r.fail(1, printable.Error(s.err).Error(),
			fmt.Sprintf("root: %v", printable.Error(s.err)), "set "+s.origin()+" to an absolute path, a directory of yours")
		return "", r
	}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		r.fact(0, "root: %s (%s)", printable.Quote(cfg.root), s.from)
		r.fail(1, printable.Error(err).Error(),
			fmt.Sprintf("root %s cannot be used: %v", printable.Quote(cfg.root), printable.Error(err)), "set --root or PBWRAP_ROOT to a directory of yours")
		return "", r
	}
	// The root, and what the checks say of it (paths below it), are
	// printed escaped: it comes from the environment or the config file.
	r.fact(0, "root: %s (from %s)", printable.Quote(root), s.from)
	rootOK := true
	for _, ch := range store.CheckRoot(root) {
		line := ch.Name
		if ch.Detail != "" {
			line += ": " + printable.Quote(ch.Detail)
		}
		if ch.OK {
			r.ok(1, line)
			continue
		}
		rootOK = false
		r.fail(1, line, fmt.Sprintf("root %s: %s: %s", printable.Quote(root), ch.Name, printable.Quote(ch.Detail)), printable.Quote(ch.Fix))
	}
	r = append(r, checkSaving(cfg, root, rootOK)...)
	r = append(r, showStore(cfg, root)...)
	return root, r
}

// showStore says what the sessions under root hold against the cap, and
// how long they are kept; and, while the root is the default, what the
// earlier default root still holds (see earlierRoot).
func showStore(cfg *config, root string) findings {
	var r findings
	limit := "no cap"
	if cfg.maxStore > 0 {
		limit = "cap " + humanBytes(cfg.maxStore)
	}
	keep := fmt.Sprintf("kept %s after they end (--ttl)", days(cfg.ttl))
	if n, size, err := sessionsSize(root); err == nil {
		r.fact(1, "size: %s in %s, %s (--max-store); %s", humanBytes(size), plural(n, "session"), limit, keep)
	} else {
		r.fact(1, "size: %v; %s (--max-store); %s", printable.Error(err), limit, keep)
	}
	if old := earlierRoot(cfg, root); old != "" {
		if n, size, err := sessionsSize(old); err == nil && n > 0 {
			r.fact(1, "earlier root: %s: %s in %s, listed by pbwrap list and show until they expire",
				printable.Quote(old), humanBytes(size), plural(n, "session"))
		}
	}
	return r
}

// sessionsSize returns how many sessions root holds and their size.
func sessionsSize(root string) (n int, size int64, err error) {
	sessions, err := store.ListSessions(root)
	for _, s := range sessions {
		size += s.Bytes
	}
	return len(sessions), size, err
}

// checkTerminal says what terminal pbwrap runs in, what relays the keys,
// and what the terminal answers about bracketed paste and kitty's paste
// events, then what that means for unmarked pastes and image paste.
func checkTerminal(cfg *config) findings {
	var r findings
	r.fact(0, "terminal:")
	termName := os.Getenv("TERM")
	if termName == "" {
		termName = "(not set)"
	}
	r.fact(1, "TERM=%s", printable.Quote(termName))
	sys := frontend.Local()
	front := frontend.Detect(sys)
	ancestors := frontend.Names(sys.Ancestors)
	r.fact(1, "front end: %s", printable.Quote(frontEndLine(front)))
	state, clip, err := ptyio.QueryTerminal(decrqmTimeout)
	switch {
	case err != nil:
		r.fact(1, "bracketed paste: not asked (%v)", printable.Error(err))
	case state == "":
		r.fact(1, "bracketed paste: the terminal did not answer DECRQM (many terminals, and tmux, never do);")
		r.fact(2, "if pastes never turn into references, see the README's troubleshooting table")
	case state == "0" || state == "4":
		r = append(r, finding{depth: 1, line: fmt.Sprintf("bracketed paste: NOT SUPPORTED (DECRQM answered %s)", state),
			problem: "the terminal does not support bracketed paste (mode 2004), so pbwrap cannot tell a paste from typing",
			fix:     "use a terminal that supports it (most do: xterm, iTerm2, kitty, WezTerm, Alacritty, GNOME Terminal, Windows Terminal)"})
	default:
		r.fact(1, "bracketed paste: supported (DECRQM answered %s)", state)
	}
	r = append(r, checkUnmarked(cfg, front, state, err)...)
	return append(r, checkImagePaste(cfg, ancestors, clip, err))
}

// checkUnmarked says what the wrapper does with pastes that come unmarked
// here, by the rule the wrapper follows (capture.Looks), and what the
// front end does to pastes by itself.
func checkUnmarked(cfg *config, front frontend.FrontEnd, state string, err error) findings {
	line := unmarkedLine(cfg.burst, front, doctorAnswer(state, err))
	marks, _ := capture.Looks(cfg.burst, front.Marks, capture.AnswerMarks)
	silent, _ := capture.Looks(cfg.burst, front.Marks, capture.AnswerSilent)
	if err != nil && marks != silent { // The answer would decide, and there is none.
		line = "not known: it depends on the terminal's answer, and the terminal could not be asked"
	}
	r := findings{{depth: 1, line: "unmarked input: " + line}}
	if front.Drops {
		r.fail(1, frontend.DropsNote, frontend.DropsNote, "paste through GNU screen 5 or tmux, which pass pastes on whole and marked, or outside screen")
	}
	return r
}

// checkImagePaste says whether image paste would work here, and if not
// why: the setting, a multiplexer in between, not over SSH, or the
// terminal's DECRQM answer for mode 5522 (clip, "" for none; err when the
// terminal could not be asked). It is no problem when it would not: the
// terminal's own paste still works.
func checkImagePaste(cfg *config, ancestors []string, clip string, err error) finding {
	mode, why := imagePasteFor(cfg.imagePaste, os.Getenv, ancestors)
	return finding{depth: 1, line: "image paste: " + imagePasteVerdict(mode, why, clip, err)}
}

// imagePasteVerdict is checkImagePaste's line.
func imagePasteVerdict(mode capture.ImageMode, why, clip string, err error) string {
	const otherwise = "; to give the agent an image, copy the file over (scp) and paste its path"
	switch {
	case mode == capture.ImageOff:
		return "off: " + why + otherwise
	case err != nil:
		return fmt.Sprintf("not known: the terminal could not be asked (%v)", printable.Error(err))
	case clip == "1" || clip == "2":
		return "works: " + why + ", and the terminal has kitty's paste events (DECRQM 5522 answered " + clip + ")"
	case mode == capture.ImageOn:
		return "on (--image-paste on), but the terminal " + clipAnswer(clip) + ": pastes go as the terminal sends them" + otherwise
	}
	return "would stay off: the terminal " + clipAnswer(clip) + " (kitty 0.45 or later has them)" + otherwise
}

// clipAnswer says what the DECRQM answer for mode 5522 means.
func clipAnswer(clip string) string {
	if clip == "" {
		return "did not answer DECRQM for mode 5522, so it has no paste events"
	}
	return "has no paste events (DECRQM 5522 answered " + printable.Quote(clip) + ")"
}

// showConfig says where each setting's value comes from, and checks the
// config file, each value and the environment's PBWRAP_ variables.
func showConfig(cfg *config) findings {
	var r findings
	r.fact(0, "configuration (flag > environment > config file > default):")
	r = append(r, checkConfigFile(cfg)...)
	// Values, where they come from and why they are bad are printed
	// escaped: they come from the config file, the environment and the
	// command line, and a control character would reach the terminal.
	for _, s := range cfg.settings {
		value := printable.Quote(s.value)
		if value == "" {
			value = `""`
		}
		r.fact(1, "--%-20s %-32s %s", s.flag, value, printable.Quote(s.source()))
		switch {
		case s.err != nil && s.flag == "root": // checkRoot has the root's problem.
			r.mark(2, failed, fmt.Sprintf("%v; using the default, %s", printable.Error(s.err), printable.Quote(s.shownDefault())))
		case s.err != nil:
			r.fail(2, fmt.Sprintf("%v; using the default, %s", printable.Error(s.err), printable.Quote(s.shownDefault())),
				fmt.Sprintf("bad setting: %v", printable.Error(s.err)), "correct or remove "+printable.Quote(s.origin()))
		}
	}
	r = append(r, checkVariables(cfg)...)
	if cfg.off {
		r.problem("pbwrap is off (--off or PBWRAP_OFF): it runs commands unwrapped and saves nothing",
			"unset PBWRAP_OFF, or drop --off")
	}
	if os.Getenv("PBWRAP_SESSION") != "" {
		r.fact(1, "(running inside pbwrap: PBWRAP_SESSION is set, so a nested pbwrap steps aside)")
	}
	return r
}

// source says where the setting's value came from, as doctor's column
// shows it.
func (s *setting) source() string {
	switch s.from {
	case fromEnv:
		return "env (" + s.env + ")"
	case fromFile:
		return "file (" + s.where + ")"
	}
	return string(s.from)
}

// origin names where the value is set, for a fix.
func (s *setting) origin() string {
	switch s.from {
	case fromEnv:
		return s.env + " in the environment"
	case fromFile:
		return s.env + " in the config file, at " + s.where
	case fromFlag:
		return "--" + s.flag
	}
	return "--" + s.flag
}

// shownDefault is the setting's default as doctor shows it.
func (s *setting) shownDefault() string {
	if s.def == "" {
		return "none"
	}
	return s.def
}

// checkPaste runs the paste check at the terminal and reports it.
func checkPaste(cfg *config) findings {
	var r findings
	r.fact(0, "paste:")
	// Decided as the wrapper decides: what relays the keys, and what the
	// terminal says when asked.
	front := frontend.Here()
	state, _, qerr := ptyio.QueryTerminal(decrqmTimeout)
	look, why := capture.Looks(cfg.burst, front.Marks, doctorAnswer(state, qerr))
	r.fact(1, "front end: %s", printable.Quote(frontEndLine(front)))
	s, err := pastecheck.AtTerminal(pastecheck.Policy{Mode: cfg.burst, Look: look, Why: why, Gap: front.Gap})
	if err != nil {
		r = append(r, finding{depth: 1, line: fmt.Sprintf("not checked: %v", err),
			problem: fmt.Sprintf("the paste check needs the terminal: %v", err), fix: "run pbwrap doctor --paste in the terminal you paste in"})
		return r
	}
	d := pastecheck.Describe(s)
	for _, line := range d.Lines {
		r.fact(1, "%s", line)
	}
	if d.Problem != "" {
		r.problem(d.Problem, d.Fix)
	}
	if front.Drops {
		r.fact(1, "note: %s", frontend.DropsNote)
	}
	return r
}

// checkAgents says, of each known agent on PATH, what pbwrap adds to its
// arguments, whether it can read the saved pastes, and what its own
// checks (agent.Doctor) find.
func checkAgents(cfg *config, root string) findings {
	var r findings
	r.fact(0, "agents on PATH:")
	env := agent.OS()
	found := 0
	for _, a := range agent.All() {
		path, err := env.LookPath(a.Name)
		if err != nil {
			continue
		}
		found++
		var about findings // this agent's lines, and what it asks at start
		added, reads := "nothing", true
		if root != "" {
			var err error
			added, reads, err = a.Added(os.Environ(), root, cfg.noAgentArgs)
			switch {
			case errors.Is(err, agent.ErrNoArgs):
				added = "nothing"
			case err != nil:
				// Not one that makes the agent ask at start: see below.
				r.problem(printable.Quote(err.Error()), fmt.Sprintf("make %s a JSON object, or unset it, or allow %s in %s's own settings",
					a.Env.Name, printable.Quote(root), a.Name))
			}
		}
		about.fact(1, "%-13s %s", a.Name, printable.Quote(path))
		about.fact(3, "pbwrap adds: %s; %s", printable.Quote(added), a.Reads)
		for _, f := range a.Doctor(env, root, reads) {
			about = append(about, agentFinding(f))
		}
		if !reads {
			about.problem(fmt.Sprintf("%s cannot read the saved pastes: --no-agent-args keeps pbwrap from adding its flag", a.Name),
				fmt.Sprintf("drop --no-agent-args, or allow %s in %s's own settings", printable.Quote(root), a.Name))
		}
		if about.problems() == 0 {
			about.fact(3, "at start: asks nothing because of pbwrap")
		} else {
			about.fact(3, "at start: see the problems below")
		}
		r = append(r, about...)
	}
	if found == 0 {
		r.fact(1, "none of the agents pbwrap knows is on PATH (%s); pbwrap still wraps any command", agent.Names(agent.All(), ""))
	}
	return r
}

// agentFinding is what doctor found about an agent (agent.Doctor), every
// value in it made safe to print: an agent writes its own settings.
func agentFinding(f agent.Finding) finding {
	out := finding{depth: 3, line: f.Line.Render(printable.Quote)}
	if !f.Problem.IsZero() {
		out.problem, out.fix = f.Problem.Render(printable.Quote), f.Fix.Render(printable.Quote)
	}
	return out
}
