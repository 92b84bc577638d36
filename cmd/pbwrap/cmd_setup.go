package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/store"
	"golang.org/x/term"
)

var setupCommand = &command{
	name:    "setup",
	usage:   "setup [--yes | --print | --remove] claude|codex|gemini|pi",
	lenient: true,
	summary: "install pbwrap's hook in an agent's user settings, or remove it (claude, codex, gemini, pi)",
	help: `Installs the hook that expands {{file:...}} references (pbwrap help hook) in
the agent's user settings, as the snippet in pbwrap help hook shows, with
what the agent needs to start without asking about it:

  claude   $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
  codex    $CODEX_HOME/hooks.json, else ~/.codex/hooks.json, and the hook's
           trust in config.toml beside it, the record Codex writes when
           you trust a hook in its /hooks (otherwise Codex asks about the
           hook at every start)
  gemini   $GEMINI_CLI_HOME/.gemini/settings.json, else
           ~/.gemini/settings.json, and the root trusted in Gemini CLI's
           trusted folders ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else
           trustedFolders.json beside it), as "Yes, and remember the
           directories as trusted" records it (otherwise Gemini CLI asks
           at every start whether to trust the root)
  pi       pbwrap's extension (pbwrap help agents pi-extension) as
           $PI_CODING_AGENT_DIR/extensions/pbwrap.ts, else
           ~/.pi/agent/extensions/pbwrap.ts; then /reload in Pi

Claude Code needs nothing more: pbwrap gives it the root in the settings it
starts it with. The other agents pbwrap knows get what they need at each
start too, and have no setup.

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

--remove undoes it: it takes out exactly what setup puts in (pbwrap's hook,
its trust record, the root's TRUST_FOLDER rule, pbwrap's extension file),
with the same diff, question and backup, and leaves every other byte; a
file left holding only {} is removed. In Codex's config.toml the trust
records of the hooks after pbwrap's move with them, so that Codex still
trusts them.

The hook runs "pbwrap hook AGENT" when the pbwrap found on PATH is this
one, and this pbwrap by its absolute path otherwise (when none is on PATH,
or another binary is), since the agent runs the hook through PATH.

--print prints the snippet (for pi, the extension), with that command, and
changes nothing.`,
	run: runSetup,
}

// A hookSpec says where and how pbwrap's hook for an agent is installed.
type hookSpec struct {
	agent string
	// file returns the file the hook goes in.
	file func() (string, error)
	// event, matcher and timeout make the hook's entry in the JSON
	// settings, {"hooks": {event: [{"matcher": ..., "hooks": [{"type":
	// "command", "command": ..., "timeout": ...}]}]}}; event is "" for
	// Pi, whose hook is an extension file of pbwrap's.
	event   string
	matcher string
	timeout int
	// comments: the agent reads its settings as JSON with comments.
	comments bool
	// trust are the files, after the hook's, that setup changes so that
	// the agent starts without asking about the hook or the root.
	trust []setupFile
	// after and afterRemove say when the change takes effect, once
	// written, and what the user does for it.
	after, afterRemove string
}

// hookSpecs are the agents pbwrap has a hook for (pbwrap hook), with the
// values the snippets of pbwrap help hook show (TestSetupMatchesSnippets).
var hookSpecs = []hookSpec{
	{
		agent: "claude", file: claudeSettingsPath,
		event: "PreToolUse", matcher: "Write|Edit|MultiEdit|NotebookEdit", timeout: 30,
		after:       "Claude Code runs the hook from its next session on (/hooks shows it)",
		afterRemove: "Claude Code runs the hook no more from its next session on",
	},
	{
		agent: "codex", file: codexHooksPath,
		event: "PreToolUse", matcher: "^apply_patch$", timeout: 30,
		trust:       []setupFile{codexTrust},
		after:       "Codex runs the hook, trusted, from its next session on (/hooks shows it)",
		afterRemove: "Codex runs the hook no more from its next session on",
	},
	{
		agent: "gemini", file: geminiSettingsPath,
		event: "BeforeTool", matcher: "^(write_file|replace)$", timeout: 30000, comments: true,
		trust:       []setupFile{geminiTrust},
		after:       "Gemini CLI runs the hook and reads the root from its next session on",
		afterRemove: "Gemini CLI runs the hook no more from its next session on, and asks before it adds the root",
	},
	{
		agent: "pi", file: piExtensionPath,
		after:       "/reload in Pi, or start it again",
		afterRemove: "/reload in Pi, or start it again",
	},
}

func findHookSpec(name string) *hookSpec {
	for i := range hookSpecs {
		if hookSpecs[i].agent == name {
			return &hookSpecs[i]
		}
	}
	return nil
}

// claudeSettingsPath is Claude Code's user settings file:
// CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func claudeSettingsPath() (string, error) {
	return agentFile("CLAUDE_CONFIG_DIR", ".claude", "settings.json")
}

// codexHooksPath is Codex's user hooks file: CODEX_HOME/hooks.json, else
// ~/.codex/hooks.json.
func codexHooksPath() (string, error) {
	return agentFile("CODEX_HOME", ".codex", "hooks.json")
}

// geminiSettingsPath is Gemini CLI's user settings file.
func geminiSettingsPath() (string, error) {
	dir, err := geminiDir(false)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "settings.json"), nil
}

// piExtensionPath is where Pi loads pbwrap's extension from:
// PI_CODING_AGENT_DIR/extensions/pbwrap.ts, else
// ~/.pi/agent/extensions/pbwrap.ts.
func piExtensionPath() (string, error) {
	return agentFile("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent"), filepath.Join("extensions", "pbwrap.ts"))
}

// agentFile is name in the directory the environment variable dirVar
// names, else in inHome below the home directory.
func agentFile(dirVar, inHome, name string) (string, error) {
	if dir := os.Getenv(dirVar); dir != "" {
		return filepath.Join(dir, name), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, inHome, name), nil
}

// askOnTerminal asks the user, on a terminal, whether to write the
// change; it returns asked false, without asking, when standard input is
// not a terminal.
func askOnTerminal(question string) (asked, yes bool, err error) {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return false, false, nil
	}
	yes, err = confirm(os.Stdin, os.Stdout, question)
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

func runSetup(c *command, cfg *config, args []string) error {
	// Setup uses none of pbwrap's settings but the root: a broken one does
	// not stop it.
	fs := c.flags(cfg)
	yes := boolFlag(fs, "yes")
	fs.Var(switchValue{yes}, "y", "")
	printOnly := boolFlag(fs, "print")
	remove := boolFlag(fs, "remove")
	if err := c.parse(cfg, fs, args, 1); err != nil {
		return err
	}
	words := fs.Args()
	if len(words) != 1 {
		return c.usagef("want one agent: claude, codex, gemini or pi")
	}
	spec := findHookSpec(words[0])
	if spec == nil {
		if a := findAgent(words[0]); a != nil && a.name == words[0] {
			return c.usagef("setup does not apply to %s: pbwrap has no hook for it (it has hooks for claude, codex, gemini and pi); it gives %s what it needs to read the saved pastes at each start", a.name, a.name)
		}
		return c.usagef("no hook for %q (there are hooks for claude, codex, gemini and pi)", words[0])
	}
	switch {
	case *yes && *printOnly:
		return c.usagef("--print changes nothing: drop --yes")
	case *remove && *printOnly:
		return c.usagef("--print shows what setup installs: drop --remove")
	}
	prog, why, err := hookProgram()
	if err != nil {
		return fmt.Errorf("setup %s: %w", spec.agent, err)
	}
	if *printOnly {
		out, _, err := spec.install(nil, prog)
		if err != nil {
			return fmt.Errorf("setup %s: %w", spec.agent, err)
		}
		_, err = os.Stdout.Write(out)
		return err
	}
	run := &setupRun{prog: prog}
	if len(spec.trust) > 0 { // The root's trust needs the root.
		if run.root, err = store.ResolveRoot(cfg.root); err != nil {
			return fmt.Errorf("setup %s: the root %s: %w", spec.agent, printable(cfg.root), err)
		}
	}
	plan, err := spec.plan(run, *remove)
	if err != nil {
		if *remove {
			return fmt.Errorf("setup --remove %s: %w", spec.agent, err)
		}
		return fmt.Errorf("setup %s: %w", spec.agent, err)
	}
	return spec.runPlan(plan, prog, why, *yes, *remove)
}

// resolveSettings returns the file that name stands for: name, or, when
// name is a symbolic link (settings kept with one's dotfiles), the file it
// points to, so that the link stays.
func resolveSettings(name string) (string, error) {
	fi, err := os.Lstat(name)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return name, nil
	}
	path, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link that leads nowhere: %w", name, err)
	}
	return path, nil
}

// maxSettingsBytes caps what is read of an agent's settings file: the
// agents' own are a few kilobytes; a file larger than this is not one, and
// reading it whole (a link to /dev/zero has no end) would exhaust memory.
// pbwrap help setup gives the figure.
const maxSettingsBytes = 4 << 20

// readSettings returns the content of the regular file at path and its
// permissions; nil and 0600, the mode a new settings file gets, when it
// does not exist. Anything else there (a named pipe, a device, a
// directory), or a file larger than maxSettingsBytes, is an error, found
// without waiting or reading it: the file is opened without blocking and
// checked on the descriptor that is read.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	text, mode, err := fsutil.ReadRegular(path, maxSettingsBytes)
	var notRegular *fsutil.NotRegularError
	var tooLarge *fsutil.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o600, nil
	case errors.As(err, &notRegular):
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	case errors.As(err, &tooLarge):
		return nil, 0, fmt.Errorf("%s is larger than %d MiB: not a settings file", path, maxSettingsBytes>>20)
	}
	return text, mode, err
}

// writeBackup copies text, the file at path, to a new file beside it,
// path.pbwrap-backup-DATE-TIME (a number added when that exists), with
// its mode, and returns its name.
func writeBackup(path string, text []byte, mode fs.FileMode) (string, error) {
	base := path + ".pbwrap-backup-" + time.Now().Format("20060102-150405")
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && n < 100 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(text)
		if err == nil {
			err = f.Chmod(mode)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name) // Best effort.
			return "", err
		}
		return name, nil
	}
}
