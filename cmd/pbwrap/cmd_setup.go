package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/store"
)

var setupCommand = &command{
	name:      "setup",
	usage:     "setup [--yes | --print | --remove] [--force] AGENT",
	lenient:   true,
	summary:   "install pbwrap's hook in an agent's user settings, or remove it (" + agent.Names(agent.Hooked(), "") + ")",
	helpFunc:  setupHelp,
	run:       runSetup,
	warns:     true,
	flagDecls: []flagDecl{{name: "yes", short: "y"}, {name: "print"}, {name: "remove"}, {name: "force"}},
	args:      hookedArgs,
}

// setupHelp is pbwrap setup --help, with a line for each agent pbwrap has
// a hook for, as the registry says where its files are.
func setupHelp() string {
	var b strings.Builder
	b.WriteString(`Installs the hook that expands {{file:...}} references (pbwrap help hook) in
the agent's user settings, as the snippet in pbwrap help hook shows, with
what the agent needs to start without asking about it:

`)
	for _, a := range agent.Hooked() {
		text := a.Hook.Where
		if a.Hook.Extension != nil {
			text = "pbwrap's extension (pbwrap help agents " + a.Name + "-extension) as " + text + "; then " + a.Hook.After
		}
		for _, f := range a.Trust {
			text += ", and " + f.Help
		}
		writeItem(&b, a.Name, text, 12)
	}
	b.WriteString(setupHelpText)
	return b.String()
}

const setupHelpText = `
The other agents pbwrap knows get what they need at each start, and have no
setup.

It shows the change first, as a diff, and asks before writing it when
standard input is a terminal (a "no" writes nothing and exits 0); --yes (-y)
writes it without asking, as it must be when standard input is not a
terminal. Each file it changes is kept as
FILE.pbwrap-backup-DATE-TIME, and replaced at once (a new file in the same
directory, renamed over it), with its mode; a symbolic link is followed, and
the file it points to is changed. Only pbwrap's own entries are added, in
the file's layout (its indentation, its line endings), or their command
corrected: every other byte stays as it was (other keys, their order,
values as written, comments where the agent allows them, also in a file
of comments alone). A file that is not what the agent reads there (not a
JSON object, a "hooks" that is not one, TOML that does not read the same
after the change), or that is not a regular file of at most 4 MiB, is left
alone, with the reason. Run again, it finds its entries and changes nothing.

Run as root for a user (sudo, with the user's HOME, as on macOS; or su),
setup acts as that user (SUDO_UID and SUDO_GID, else the owner of HOME),
with that user's rights alone, from its start: it writes only what the user
could write, the system checking each step, so a link to a file of root's,
a directory of root's on the way or a read-only directory stops it as it
would stop the user. With root's own HOME it writes root's files; run as
another user than a file's owner, it refuses. It refuses a file with more than one
hard link (a new file in its place would leave the other names with the
old text), and a read-only file unless --force. It compares the file with
what it read once the new one is written, just before putting it in
place, and writes nothing if the agent changed it meanwhile.

--remove undoes it: it takes out exactly what setup puts in the files
above, with the same diff, question and backup, and leaves every other
byte; a file left holding only {} is removed.

The hook runs "pbwrap hook AGENT" when the pbwrap found on PATH is this
one, and this pbwrap by its absolute path otherwise (when none is on PATH,
or another binary is), since the agent runs the hook through PATH.

--print prints the snippet (or the extension), with that command, and
changes nothing.`

// askOnTerminal asks the user, on a terminal, whether to write the
// change; it returns asked false, without asking, when standard input is
// not a terminal.
func askOnTerminal(std *streams, question string) (asked, yes bool, err error) {
	if !std.inTerminal() {
		return false, false, nil
	}
	yes, err = confirm(std.in, std.out, question)
	return true, yes, err
}

// confirm writes question and reads one line of answer from r: yes for
// "y" or "yes", in any case; no for anything else, and for no answer.
func confirm(r io.Reader, w io.Writer, question string) (bool, error) {
	fmt.Fprintf(w, "%s [y/N] ", question)
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read the answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

func runSetup(c *command, std *streams, cfg *config, args []string) error {
	// Setup uses none of pbwrap's settings but the root: a broken one does
	// not stop it.
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 1); err != nil {
		return err
	}
	yes, printOnly, remove := switchOn(fs, "yes"), switchOn(fs, "print"), switchOn(fs, "remove")
	words := fs.Args()
	hooked := agent.Names(agent.Hooked(), "or")
	all := agent.Names(agent.Hooked(), "and")
	if len(words) != 1 {
		return c.usagef("want one agent: %s", hooked)
	}
	a := agent.Find(words[0])
	switch {
	case a != nil && a.Hook == nil:
		return c.usagef("setup does not apply to %s: pbwrap has no hook for it (it has hooks for %s); it gives %s what it needs to read the saved pastes at each start", a.Name, all, a.Name)
	case a == nil:
		return c.usagef("no hook for %q (there are hooks for %s)", words[0], all)
	case yes && printOnly:
		return c.usagef("--print changes nothing: drop --yes")
	case remove && printOnly:
		return c.usagef("--print shows what setup installs: drop --remove")
	}
	verb := "setup " + a.Name
	if remove {
		verb = "setup --remove " + a.Name
	}
	env := agent.OS()
	prog, why, err := agent.Program(env)
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	// After Program: a process that gave up root may not read its own
	// /proc/self/exe.
	if _, err := asSudoUser(env.Getenv); err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	if printOnly {
		_, err = std.out.Write(a.Hook.Snippet(prog))
		return err
	}
	run := &agent.Run{Env: env, Prog: prog}
	if a.NeedsRoot() {
		if run.Root, err = store.ResolveRoot(cfg.root); err != nil {
			return fmt.Errorf("%s: the root %s: %w", verb, printable.Quote(cfg.root), err)
		}
	}
	plan, err := a.Plan(run, remove)
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	for _, p := range plan {
		p.Force = switchOn(fs, "force")
	}
	return runPlan(std, a, verb, plan, prog, why, yes, remove)
}

// runPlan shows the planned changes, asks (unless yes) and writes them.
func runPlan(std *streams, a *agent.Agent, verb string, plan []*agent.Change, prog, why string, yes, remove bool) error {
	var changed []*agent.Change
	for _, p := range plan {
		if p.Changed() {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		fmt.Fprintf(std.out, "pbwrap %s: %s: nothing to change\n", verb, unchanged(a, plan, prog, remove))
		return nil
	}
	var paths []string
	for _, p := range changed {
		fmt.Fprintf(std.out, "pbwrap %s: %s", verb, printable.Quote(p.Path))
		if p.Path != p.Name {
			fmt.Fprintf(std.out, " (%s links to it)", printable.Quote(p.Name))
		}
		fmt.Fprintf(std.out, ": %s\n", p.What)
		paths = append(paths, printable.Quote(p.Path))
	}
	if !remove {
		fmt.Fprintf(std.out, "the hook runs: %s", printable.Quote(a.Hook.Command(prog)))
		if why != "" {
			fmt.Fprintf(std.out, " (%s)", why)
		}
		fmt.Fprintln(std.out)
	}
	fmt.Fprintln(std.out)
	for _, p := range changed {
		fmt.Fprintf(std.out, "%s\n", unifiedDiff(p.Path, p.Old, p.New))
	}
	if !yes {
		question := "Write this change to " + paths[0] + "?"
		if len(paths) > 1 {
			question = "Write these changes to " + strings.Join(paths, " and ") + "?"
		}
		asked, ok, err := askOnTerminal(std, question)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", verb, err)
		case !asked:
			return fmt.Errorf("%s: not written: standard input is not a terminal to ask on (--yes writes it)", verb)
		case !ok:
			fmt.Fprintln(std.out, "not written")
			return nil // Declining is an answer, not a failure, as for clean --all.
		}
	}
	for _, p := range changed {
		backup, err := p.Write()
		if backup != "" {
			fmt.Fprintf(std.out, "backup: %s\n", printable.Quote(backup))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", verb, err)
		}
		if p.New == nil {
			fmt.Fprintf(std.out, "removed %s\n", printable.Quote(p.Path))
		} else {
			fmt.Fprintf(std.out, "wrote %s\n", printable.Quote(p.Path))
		}
	}
	if remove {
		fmt.Fprintf(std.out, "pbwrap %s: done: %s\n", verb, a.Hook.AfterRemove)
	} else {
		fmt.Fprintf(std.out, "pbwrap %s: done: %s\n", verb, a.Hook.After)
	}
	return nil
}

// unchanged says why setup has nothing to change.
func unchanged(a *agent.Agent, plan []*agent.Change, prog string, remove bool) string {
	var parts []string
	for i, p := range plan {
		switch {
		case remove:
			parts = append(parts, fmt.Sprintf("no part of pbwrap's in %s", printable.Quote(p.Path)))
		case i == 0:
			parts = append(parts, fmt.Sprintf("the hook is already in %s (it runs %s)", printable.Quote(p.Path), printable.Quote(a.Hook.Command(prog))))
		default:
			parts = append(parts, fmt.Sprintf("%s is already in %s", p.What, printable.Quote(p.Path)))
		}
	}
	return strings.Join(parts, "; ")
}
