package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/frontend"
	"github.com/pbwrap/pbwrap/internal/pastecheck"
	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/store"
)

var doctorCommand = &command{
	name:    "doctor",
	usage:   "doctor [--paste]",
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
says.`,
	run:        runDoctor,
	allGlobals: true,
	lenient:    true,
	flagDecls:  []flagDecl{{name: "paste"}},
}

// lowSpace is the free space under the root below which doctor warns: a
// paste that does not fit goes in as text, which is what pbwrap is for
// avoiding.
const lowSpace = 64 << 20

// decrqmTimeout bounds the wait for the terminal's answer: terminals that
// support DECRQM answer at once; many never answer.
const decrqmTimeout = 500 * time.Millisecond

// doctor collects the report and the problems.
type doctor struct {
	out      io.Writer // where the report goes
	problems []string
}

func (d *doctor) problem(what, fix string) {
	d.problems = append(d.problems, fmt.Sprintf("%s\n    fix: %s", what, fix))
}

func runDoctor(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 0); err != nil {
		return err
	}
	d := doctor{out: std.out}
	if switchOn(fs, "paste") {
		d.checkPaste(cfg)
		return d.finish()
	}
	root := d.checkRoot(cfg)
	d.checkTerminal(cfg)
	d.showConfig(cfg)
	d.checkAgents(cfg, root)
	return d.finish()
}

// finish says that all is well, or lists each problem with its fix and
// ends with exit status 1.
func (d *doctor) finish() error {
	if len(d.problems) == 0 {
		fmt.Fprintln(d.out, "\nall is well")
		return nil
	}
	fmt.Fprintf(d.out, "\n%d problem(s):\n", len(d.problems))
	for _, p := range d.problems {
		fmt.Fprintf(d.out, "  - %s\n", p)
	}
	return quietExit(1)
}

func (d *doctor) checkRoot(cfg *config) string {
	s := cfg.find("root")
	if s.err != nil {
		fmt.Fprintf(d.out, "root: %s (from %s)\n  FAIL  %v\n", printable(s.value), s.from, printableError(s.err))
		d.problem(fmt.Sprintf("root: %v", printableError(s.err)), "set "+s.origin()+" to an absolute path, a directory of yours")
		return ""
	}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		fmt.Fprintf(d.out, "root: %s (%s)\n  FAIL  %v\n", printable(cfg.root), s.from, printableError(err))
		d.problem(fmt.Sprintf("root %s cannot be used: %v", printable(cfg.root), printableError(err)), "set --root or PBWRAP_ROOT to a directory of yours")
		return ""
	}
	// The root, and what the checks say of it (paths below it), are
	// printed escaped: it comes from the environment or the config file.
	fmt.Fprintf(d.out, "root: %s (from %s)\n", printable(root), s.from)
	rootOK := true
	for _, ch := range store.CheckRoot(root) {
		mark := "ok  "
		if !ch.OK {
			mark, rootOK = "FAIL", false
			d.problem(fmt.Sprintf("root %s: %s: %s", printable(root), ch.Name, printable(ch.Detail)), printable(ch.Fix))
		}
		line := fmt.Sprintf("  %s  %s", mark, ch.Name)
		if ch.Detail != "" {
			line += ": " + printable(ch.Detail)
		}
		fmt.Fprintln(d.out, line)
	}
	d.checkSaving(cfg, root, rootOK)
	d.showStore(cfg, root)
	return root
}

// showStore says what the sessions under root hold against the cap, and
// how long they are kept; and, while the root is the default, what the
// earlier default root still holds (see earlierRoot).
func (d *doctor) showStore(cfg *config, root string) {
	limit := "no cap"
	if cfg.maxStore > 0 {
		limit = "cap " + humanBytes(cfg.maxStore)
	}
	keep := fmt.Sprintf("kept %s after they end (--ttl)", days(cfg.ttl))
	if n, size, err := sessionsSize(root); err == nil {
		fmt.Fprintf(d.out, "  size: %s in %s, %s (--max-store); %s\n", humanBytes(size), plural(n, "session"), limit, keep)
	} else {
		fmt.Fprintf(d.out, "  size: %v; %s (--max-store); %s\n", printableError(err), limit, keep)
	}
	if old := earlierRoot(cfg, root); old != "" {
		if n, size, err := sessionsSize(old); err == nil && n > 0 {
			fmt.Fprintf(d.out, "  earlier root: %s: %s in %s, listed by pbwrap list and show until they expire\n",
				printable(old), humanBytes(size), plural(n, "session"))
		}
	}
}

// sessionsSize returns how many sessions root holds and their size.
func sessionsSize(root string) (n int, size int64, err error) {
	sessions, err := store.ListSessions(root)
	for _, s := range sessions {
		size += s.Bytes
	}
	return len(sessions), size, err
}

func (d *doctor) checkTerminal(cfg *config) {
	fmt.Fprintln(d.out, "\nterminal:")
	termName := os.Getenv("TERM")
	if termName == "" {
		termName = "(not set)"
	}
	fmt.Fprintf(d.out, "  TERM=%s\n", printable(termName))
	sys := frontend.Local()
	front := frontend.Detect(sys)
	ancestors := frontend.Names(sys.Ancestors)
	fmt.Fprintf(d.out, "  front end: %s\n", printable(frontEndLine(front)))
	state, clip, err := ptyio.QueryTerminal(decrqmTimeout)
	defer func() { d.checkImagePaste(cfg, ancestors, clip, err) }()
	defer func() { d.checkUnmarked(cfg, front, state, err) }()
	switch {
	case err != nil:
		fmt.Fprintf(d.out, "  bracketed paste: not asked (%v)\n", printableError(err))
	case state == "":
		fmt.Fprintln(d.out, "  bracketed paste: the terminal did not answer DECRQM (many terminals, and tmux, never do);")
		fmt.Fprintln(d.out, "    if pastes never turn into references, see the README's troubleshooting table")
	case state == "0" || state == "4":
		fmt.Fprintf(d.out, "  bracketed paste: NOT SUPPORTED (DECRQM answered %s)\n", state)
		d.problem("the terminal does not support bracketed paste (mode 2004), so pbwrap cannot tell a paste from typing",
			"use a terminal that supports it (most do: xterm, iTerm2, kitty, WezTerm, Alacritty, GNOME Terminal, Windows Terminal)")
	default:
		fmt.Fprintf(d.out, "  bracketed paste: supported (DECRQM answered %s)\n", state)
	}
}

// checkUnmarked says what the wrapper does with pastes that come unmarked
// here, by the rule the wrapper follows (capture.Looks), and what the
// front end does to pastes by itself.
func (d *doctor) checkUnmarked(cfg *config, front frontend.FrontEnd, state string, err error) {
	line := unmarkedLine(cfg.burst, front, doctorAnswer(state, err))
	marks, _ := capture.Looks(cfg.burst, front.Marks, capture.AnswerMarks)
	silent, _ := capture.Looks(cfg.burst, front.Marks, capture.AnswerSilent)
	if err != nil && marks != silent { // The answer would decide, and there is none.
		line = "not known: it depends on the terminal's answer, and the terminal could not be asked"
	}
	fmt.Fprintf(d.out, "  unmarked input: %s\n", line)
	if front.Drops {
		fmt.Fprintf(d.out, "  FAIL  %s\n", frontend.DropsNote)
		d.problem(frontend.DropsNote, "paste through GNU screen 5 or tmux, which pass pastes on whole and marked, or outside screen")
	}
}

// checkImagePaste says whether image paste would work here, and if not
// why: the setting, a multiplexer in between, not over SSH, or the
// terminal's DECRQM answer for mode 5522 (clip, "" for none; err when the
// terminal could not be asked). It is no problem when it would not: the
// terminal's own paste still works.
func (d *doctor) checkImagePaste(cfg *config, ancestors []string, clip string, err error) {
	mode, why := imagePasteFor(cfg.imagePaste, os.Getenv, ancestors)
	fmt.Fprintf(d.out, "  image paste: %s\n", imagePasteVerdict(mode, why, clip, err))
}

// imagePasteVerdict is checkImagePaste's line.
func imagePasteVerdict(mode capture.ImageMode, why, clip string, err error) string {
	const otherwise = "; to give the agent an image, copy the file over (scp) and paste its path"
	switch {
	case mode == capture.ImageOff:
		return "off: " + why + otherwise
	case err != nil:
		return fmt.Sprintf("not known: the terminal could not be asked (%v)", printableError(err))
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
	return "has no paste events (DECRQM 5522 answered " + printable(clip) + ")"
}

func (d *doctor) showConfig(cfg *config) {
	fmt.Fprintln(d.out, "\nconfiguration (flag > environment > config file > default):")
	d.checkConfigFile(cfg)
	// Values, where they come from and why they are bad are printed
	// escaped: they come from the config file, the environment and the
	// command line, and a control character would reach the terminal.
	for _, s := range cfg.settings {
		value := printable(s.value)
		if value == "" {
			value = `""`
		}
		fmt.Fprintf(d.out, "  --%-20s %-32s %s\n", s.flag, value, printable(s.source()))
		if s.err != nil {
			fmt.Fprintf(d.out, "    FAIL  %v; using the default, %s\n", printableError(s.err), printable(s.shownDefault()))
		}
		if s.err != nil && s.flag != "root" { // checkRoot has the root's.
			d.problem(fmt.Sprintf("bad setting: %v", printableError(s.err)), "correct or remove "+printable(s.origin()))
		}
	}
	d.checkVariables(cfg)
	if cfg.off {
		d.problem("pbwrap is off (--off or PBWRAP_OFF): it runs commands unwrapped and saves nothing",
			"unset PBWRAP_OFF, or drop --off")
	}
	if os.Getenv("PBWRAP_SESSION") != "" {
		fmt.Fprintln(d.out, "  (running inside pbwrap: PBWRAP_SESSION is set, so a nested pbwrap steps aside)")
	}
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
func (d *doctor) checkPaste(cfg *config) {
	fmt.Fprintln(d.out, "paste:")
	// Decided as the wrapper decides: what relays the keys, and what the
	// terminal says when asked.
	front := frontend.Here()
	state, _, qerr := ptyio.QueryTerminal(decrqmTimeout)
	look, why := capture.Looks(cfg.burst, front.Marks, doctorAnswer(state, qerr))
	fmt.Fprintf(d.out, "  front end: %s\n", printable(frontEndLine(front)))
	s, err := pastecheck.AtTerminal(pastecheck.Policy{Mode: cfg.burst, Look: look, Why: why, Gap: front.Gap})
	if err != nil {
		fmt.Fprintf(d.out, "  not checked: %v\n", err)
		d.problem(fmt.Sprintf("the paste check needs the terminal: %v", err), "run pbwrap doctor --paste in the terminal you paste in")
		return
	}
	r := pastecheck.Describe(s)
	for _, line := range r.Lines {
		fmt.Fprintf(d.out, "  %s\n", line)
	}
	if r.Problem != "" {
		d.problem(r.Problem, r.Fix)
	}
	if front.Drops {
		fmt.Fprintf(d.out, "  note: %s\n", frontend.DropsNote)
	}
}

func (d *doctor) checkAgents(cfg *config, root string) {
	fmt.Fprintln(d.out, "\nagents on PATH:")
	env := agent.OS()
	found := 0
	for _, a := range agent.All() {
		path, err := env.LookPath(a.Name)
		if err != nil {
			continue
		}
		found++
		added, reads := "nothing", true
		if root != "" {
			var err error
			added, reads, err = a.Added(os.Environ(), root, cfg.noAgentArgs)
			switch {
			case errors.Is(err, agent.ErrNoArgs):
				added = "nothing"
			case err != nil:
				d.problem(printable(err.Error()), fmt.Sprintf("make %s a JSON object, or unset it, or allow %s in %s's own settings",
					a.Env.Name, printable(root), a.Name))
			}
		}
		fmt.Fprintf(d.out, "  %-13s %s\n      pbwrap adds: %s; %s\n", a.Name, printable(path), printable(added), a.Reads)
		before := len(d.problems)
		for _, f := range a.Doctor(env, root, reads) {
			d.finding(f)
		}
		if !reads {
			d.problem(fmt.Sprintf("%s cannot read the saved pastes: --no-agent-args keeps pbwrap from adding its flag", a.Name),
				fmt.Sprintf("drop --no-agent-args, or allow %s in %s's own settings", printable(root), a.Name))
		}
		if len(d.problems) == before {
			fmt.Fprintf(d.out, "      at start: asks nothing because of pbwrap\n")
		} else {
			fmt.Fprintf(d.out, "      at start: see the problems below\n")
		}
	}
	if found == 0 {
		fmt.Fprintln(d.out, "  none of the agents pbwrap knows is on PATH ("+agent.Names(agent.All(), "")+"); pbwrap still wraps any command")
	}
}

// finding prints what doctor found about an agent, every value in it
// made safe to print (an agent writes its own settings), and notes its
// problem.
func (d *doctor) finding(f agent.Finding) {
	fmt.Fprintf(d.out, "      %s\n", f.Line.Render(printable))
	if !f.Problem.IsZero() {
		d.problem(f.Problem.Render(printable), f.Fix.Render(printable))
	}
}
