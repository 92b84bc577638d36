package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/fileref"
	"github.com/pbwrap/pbwrap/internal/store"
)

var hookCommand = &command{
	name:     "hook",
	usage:    "hook AGENT",
	summary:  "expand {{file:...}} references in an agent's edits, as its hook (" + agent.Names(agent.Hooked(), "") + ")",
	helpFunc: hookHelp,
	run:      runHook,
	globals:  []string{"root", "hook-allow"},
	lenient:  true,
	args:     hookedArgs,
}

// hookedArgs completes an agent pbwrap has a hook for, the one argument
// of hook and setup.
func hookedArgs(_ *config, prev []string) []string {
	if len(prev) > 0 {
		return nil
	}
	return hookedNames()
}

// hookedNames are the agents pbwrap has a hook for.
func hookedNames() []string {
	var names []string
	for _, a := range agent.Hooked() {
		names = append(names, a.Name)
	}
	return names
}

const hookHelpHead = `pbwrap hook AGENT is the hook AGENT runs before each file edit. It reads the
tool call the agent sends on standard input and, for the agent's editing
tools (below), expands {{file:/abs/path:START:END}} references in the text
they write (see pbwrap help expand):

- no reference, or another tool: it prints nothing, and the call goes on
  unchanged;
- references that all expand: it answers with the tool input, expanded, and
  no decision of its own, so the agent's own permissions decide as they
  would have (an edit that would have asked the user still asks);
- a bad reference: it denies the call with the reason, which the model sees
  and can act on. Nothing is written.

`

// hookHelpScope is the part of pbwrap hook --help on the files the hook
// reads, up to the agents' own read rules.
const hookHelpScope = `
The hook runs with all of your rights, outside the agent's sandbox and read
rules, so it is stricter than pbwrap expand:

- it expands only files below the agent's working directory, pbwrap's
  paste root (--root, PBWRAP_ROOT; with the default root, also the one of
  earlier builds, $TMPDIR/pbwrap-UID: only a root that passes pbwrap's
  checks of a root, and in it only the files of a session) and the directories
  --hook-allow (PBWRAP_HOOK_ALLOW) names. A working directory of /, or of
  your home directory or above it, counts for nothing; a file in a hidden
  directory of your home (~/.ssh, ~/.aws, ~/.config) expands only through a
  directory inside it. Those directories may be reached through symbolic
  links (/tmp on macOS); they are resolved once and opened;
`

// hookHelpLinks is the rest of pbwrap hook --help's rules, after the
// agents' own read rules.
const hookHelpLinks = `- below them it follows no symbolic link at all, even one that points
  inside: refer to the file by its real path. Each file is opened once,
  component by component from the directory (openat2 on Linux, an O_NOFOLLOW
  walk elsewhere), and read from that descriptor, so a link swapped in
  meanwhile cannot lead it elsewhere;
- it refuses a file with more than one hard link, in the working directory
  as in the root (the agent can write in both), which may be a file from
  elsewhere (ln ~/.ssh/id_ed25519 x);
- it passes on only valid UTF-8 text (a hook passes text as JSON strings).

`

// hookHelpSetup ends pbwrap hook --help's rules, before each agent's hook.
const hookHelpSetup = `
pbwrap setup AGENT installs the hook, and what the agent needs to start
without asking about it; by hand, it goes where each agent below says.
`

const hookHelpTail = `
Input it cannot read is refused with exit status 2, which blocks the call:
letting it through could write an unexpanded reference into a file. A bad
pbwrap setting (say PBWRAP_MIN_BYTES=abc) does not stop the hook, which would
block every edit: the setting keeps its default here, and the wrapper and
pbwrap doctor report it.`

// hookHelp is pbwrap hook --help: the rules, then each agent's hook as the
// registry has it, with the snippet pbwrap setup installs.
func hookHelp() string {
	var b strings.Builder
	b.WriteString(hookHelpHead)
	writeText(&b, hookApprovals())
	b.WriteString(hookHelpScope)
	writeBullet(&b, "it honours the agent's own rules for reading files, as the agent matches them: "+
		strings.Join(hookReadRules(), "; ")+". A file the agent may not read, or would ask about, does not expand;")
	b.WriteString(hookHelpLinks)
	writeText(&b, fmt.Sprintf("It reads each file once per tool call, across all of the call's fields, and within limits "+
		"that keep its answer far inside the 30 s timeout below: an input over %d MiB, more than %d references, more than "+
		"%d MiB read from files, or an answer over %d MiB (the text escaped for JSON, where a control character takes 6 "+
		"bytes) denies the call, with the reason.", fileref.MaxHookInput>>20, fileref.MaxRefs, fileref.MaxRead>>20,
		fileref.MaxOutput>>20))
	b.WriteString(hookHelpSetup)
	for _, a := range agent.Hooked() {
		h := a.Hook
		tools := make([]string, len(h.Protocol.Tools))
		for i, t := range h.Protocol.Tools {
			tools[i] = t.String()
		}
		b.WriteString("\n")
		writeText(&b, fmt.Sprintf("pbwrap hook %s is %s's %s hook, for %s. %s", a.Name, a.Title, h.Protocol.Event, andList(tools), h.About))
		if h.Extension != nil {
			b.WriteString("\n")
			writeText(&b, fmt.Sprintf("Save the extension as %s.", h.Where))
			continue
		}
		b.WriteString("\n")
		writeText(&b, fmt.Sprintf("It goes in %s (the timeout is in %s):", h.Where, h.TimeoutUnit))
		b.WriteString("\n")
		for line := range strings.Lines(string(h.Snippet("pbwrap"))) {
			b.WriteString("  " + line)
		}
	}
	b.WriteString(hookHelpTail)
	return b.String()
}

// hookApprovals says that a reference never decides who approves an edit:
// for the agents whose protocol takes a rewrite only with an approval
// (fileref.Protocol.Approves), every edit with a reference is refused.
func hookApprovals() string {
	var titles []string
	for _, a := range agent.Hooked() {
		if a.Hook.Protocol.Approves {
			titles = append(titles, a.Title)
		}
	}
	which := "which takes"
	if len(titles) > 1 {
		which = "which take"
	}
	return "A reference never decides who approves an edit: for " + andList(titles) + ", " + which +
		" a rewritten edit only together with an approval that skips asking you, the hook refuses every edit" +
		" with a reference (the model writes the text out), and for every agent it refuses a reference in an" +
		" edit of a file that decides what runs: an agent's settings, hooks and commands (.claude/, .gemini/," +
		" .qwen/, .codex/, .opencode/, crush.json, opencode.json, .mcp.json, ...), git's directory and hook" +
		" managers (.git/, .husky/, .githooks/), .envrc, and any hidden file or directory of your home" +
		" (~/.bashrc, ~/.zshrc, ~/.profile, ~/.ssh, ~/.config), judged through symbolic links."
}

// hookReadRules are the agents' own read rules the hook honours, as each
// agent's hook describes them (agent.Hook.RulesAbout).
func hookReadRules() []string {
	var rules []string
	for _, a := range agent.Hooked() {
		if a.Hook.ReadRules != nil {
			rules = append(rules, a.Hook.RulesAbout)
		}
	}
	return rules
}

func runHook(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return c.usagef("want the agent: %s", agent.Names(agent.Hooked(), "or"))
	}
	a := agent.Find(fs.Arg(0))
	if a == nil || a.Hook == nil {
		return usagef("no hook for %q (there are hooks for %s)", fs.Arg(0), agent.Names(agent.Hooked(), "and"))
	}
	// One byte over the limit is enough for the hook to deny the call: the
	// rest is not read.
	p := &a.Hook.Protocol
	in, err := io.ReadAll(io.LimitReader(std.in, fileref.MaxHookInput+1))
	if err != nil {
		return hookRefused(std, p, err)
	}
	out, err := p.Answer(in, hookScope(cfg, a))
	var denial *fileref.Denial
	switch {
	case errors.As(err, &denial):
		// An agent that reads a denial from the exit status alone.
		fmt.Fprintln(std.err, denial.Reason)
		return quietExit(2)
	case err != nil:
		return hookRefused(std, p, err)
	}
	if _, err := std.out.Write(out); err != nil {
		// An answer lost on the way would let the call through with its
		// references unexpanded: block it instead.
		return hookRefused(std, p, err)
	}
	return nil
}

// hookScope is where the hook reads files besides the agent's working
// directory: pbwrap's paste root, as configured, the earlier default root
// while it is the default (see earlierRoot: a conversation begun before
// the upgrade cites it), and the root of the pbwrap session the agent runs
// in, each only if it passes the store's
// root checks and only in its sessions; the directories the user allowed;
// with the user's home directory and the agent's own read rules kept out.
func hookScope(cfg *config, a *agent.Agent) fileref.Scope {
	sc := fileref.Scope{Session: store.IsSessionID, Allow: cfg.hookAllow}
	if home, err := os.UserHomeDir(); err == nil {
		sc.Home = home
	}
	var roots []string
	if root, err := store.ResolveRoot(cfg.root); err == nil {
		roots = append(roots, readRoots(cfg, root)...)
	}
	if dir := os.Getenv("PBWRAP_SESSION_DIR"); filepath.IsAbs(dir) && store.IsSessionID(filepath.Base(dir)) {
		roots = append(roots, filepath.Dir(filepath.Clean(dir)))
	}
	for _, root := range roots {
		if store.UsableRoot(root) == nil && !slices.Contains(sc.Roots, root) {
			sc.Roots = append(sc.Roots, root)
		}
	}
	if a.Hook.ReadRules != nil {
		sc.Deny = a.Hook.ReadRules(agent.OS())
	}
	return sc
}

// hookRefused blocks the tool call: exit status 2, the reason on stderr,
// which the agents show to the model (and pbwrap's Pi extension gives Pi
// as the reason), and for an agent that runs a call whose hook failed,
// the answer that stops it (fileref.Protocol.Refusal).
func hookRefused(std *streams, p *fileref.Protocol, err error) error {
	reason := fmt.Sprintf("pbwrap hook: %v", err)
	fmt.Fprintln(std.err, reason)
	_, _ = std.out.Write(p.Refusal(reason)) // Best effort: the exit status says it too.
	return quietExit(2)
}
