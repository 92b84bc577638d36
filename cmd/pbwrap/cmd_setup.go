package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"
)

var setupCommand = &command{
	name:    "setup",
	usage:   "setup [--yes | --print] claude|codex|gemini|pi",
	lenient: true,
	summary: "install pbwrap's hook in an agent's user settings (claude, codex, gemini, pi)",
	help: `Installs the hook that expands {{file:...}} references (pbwrap help hook) in
the agent's user settings, as the snippet in pbwrap help hook shows:

  claude   $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
  codex    $CODEX_HOME/hooks.json, else ~/.codex/hooks.json; then trust
           the hook in Codex's /hooks
  gemini   $GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json
  pi       pbwrap's extension (pbwrap help agents pi-extension) as
           $PI_CODING_AGENT_DIR/extensions/pbwrap.ts, else
           ~/.pi/agent/extensions/pbwrap.ts; then /reload in Pi

It shows the change first, as a diff, and asks before writing it when
standard input is a terminal (a "no" writes nothing and exits 0); --yes (-y)
writes it without asking, as it must be when standard input is not a
terminal. The file it changes is kept as
FILE.pbwrap-backup-DATE-TIME, and replaced at once (a new file in the same
directory, renamed over it), with its mode; a symbolic link is followed, and
the file it points to is changed. Only the hook's own entry is added, in
the file's layout (its indentation, its line endings), or its command
corrected: every other byte stays as it was (other keys, their order,
values as written, comments where Gemini CLI allows them, also in a file
of comments alone). A file that is not a JSON object, or whose "hooks" is
not one, or that is not a regular file of at most 4 MiB, is left alone,
with the reason. Run again, it finds the hook and
changes nothing.

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
	// after says what the user does for the hook to run, once written.
	after string
}

// hookSpecs are the agents pbwrap has a hook for (pbwrap hook), with the
// values the snippets of pbwrap help hook show (TestSetupMatchesSnippets).
var hookSpecs = []hookSpec{
	{
		agent: "claude", file: claudeSettingsPath,
		event: "PreToolUse", matcher: "Write|Edit|MultiEdit|NotebookEdit", timeout: 30,
		after: "Claude Code runs it from its next session on (/hooks shows it)",
	},
	{
		agent: "codex", file: codexHooksPath,
		event: "PreToolUse", matcher: "^apply_patch$", timeout: 30,
		after: "trust it in Codex's /hooks: Codex runs a new or changed hook only once trusted",
	},
	{
		agent: "gemini", file: geminiSettingsPath,
		event: "BeforeTool", matcher: "^(write_file|replace)$", timeout: 30000, comments: true,
		after: "Gemini CLI runs it from its next session on",
	},
	{
		agent: "pi", file: piExtensionPath,
		after: "/reload in Pi, or start it again",
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
	// Setup uses none of pbwrap's settings: a broken one does not stop it.
	fs := c.flags(cfg)
	yes := boolFlag(fs, "yes")
	fs.Var(switchValue{yes}, "y", "")
	printOnly := boolFlag(fs, "print")
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
			return c.usagef("setup does not apply to %s: pbwrap has no hook for it (it has hooks for claude, codex, gemini and pi)", a.name)
		}
		return c.usagef("no hook for %q (there are hooks for claude, codex, gemini and pi)", words[0])
	}
	if *yes && *printOnly {
		return c.usagef("--print changes nothing: drop --yes")
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
	return spec.setup(prog, why, *yes)
}

// setup installs the hook, running prog, in the agent's file: shows the
// change, asks (unless yes), keeps a backup, writes.
func (s *hookSpec) setup(prog, why string, yes bool) error {
	name, err := s.file()
	if err != nil {
		return fmt.Errorf("setup %s: find its settings: %w", s.agent, err)
	}
	path, err := resolveSettings(name)
	if err != nil {
		return fmt.Errorf("setup %s: %w", s.agent, err)
	}
	old, mode, err := readSettings(path)
	if err != nil {
		return fmt.Errorf("setup %s: %w", s.agent, err)
	}
	updated, changed, err := s.install(old, prog)
	if err != nil {
		return fmt.Errorf("setup %s: %s: %w; left as it is", s.agent, path, err)
	}
	command := s.command(prog)
	if !changed {
		fmt.Printf("pbwrap setup %s: the hook is already in %s (it runs %s): nothing to change\n", s.agent, printable(path), printable(command))
		return nil
	}
	fmt.Printf("pbwrap setup %s: %s", s.agent, printable(path))
	if path != name {
		fmt.Printf(" (%s links to it)", printable(name))
	}
	fmt.Printf("\nthe hook runs: %s", printable(command))
	if why != "" {
		fmt.Printf(" (%s)", why)
	}
	fmt.Printf("\n\n%s\n", unifiedDiff(path, old, updated))
	if !yes {
		asked, ok, err := askOnTerminal("Write this change to " + printable(path) + "?")
		switch {
		case err != nil:
			return fmt.Errorf("setup %s: %w", s.agent, err)
		case !asked:
			return fmt.Errorf("setup %s: not written: standard input is not a terminal to ask on (--yes writes it)", s.agent)
		case !ok:
			fmt.Println("not written")
			return nil // Declining is an answer, not a failure, as for clean --all.
		}
	}
	return s.write(path, old, updated, mode)
}

// write replaces the file at path, whose content was old (nil: it did not
// exist), with updated, after a backup of old.
func (s *hookSpec) write(path string, old, updated []byte, mode fs.FileMode) error {
	if old != nil {
		backup, err := writeBackup(path, old, mode)
		if err != nil {
			return fmt.Errorf("setup %s: back up %s: %w; left as it is", s.agent, path, err)
		}
		fmt.Printf("backup: %s\n", printable(backup))
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("setup %s: %w", s.agent, err)
	}
	// The agent may have written the file meanwhile: the change would
	// undo what it wrote.
	now, _, err := readSettings(path)
	if err != nil {
		return fmt.Errorf("setup %s: %w", s.agent, err)
	}
	if !bytes.Equal(now, old) || (now == nil) != (old == nil) {
		return fmt.Errorf("setup %s: %s changed while pbwrap setup ran: not written; run it again", s.agent, path)
	}
	if err := writeFileAtomic(path, updated, mode); err != nil {
		return fmt.Errorf("setup %s: write %s: %w", s.agent, path, err)
	}
	fmt.Printf("wrote %s: %s\n", printable(path), s.after)
	return nil
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
	text, mode, err := readRegular(path, maxSettingsBytes)
	var notRegular *notRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o600, nil
	case errors.As(err, &notRegular):
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	case errors.Is(err, errTooLarge):
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

// writeFileAtomic replaces the file at path with data and the given mode,
// so that a reader (the agent starting) finds the old file or the new one,
// never a mix: a temp file in the same directory (O_EXCL), written,
// synced, closed and renamed over path, then the directory synced.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".pbwrap-*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = f.Close()           // Best effort: it may be closed already.
			_ = os.Remove(f.Name()) // Best effort.
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	renamed = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()  // Best effort: some file systems cannot sync a directory.
		_ = d.Close() // Best effort.
	}
	return nil
}
