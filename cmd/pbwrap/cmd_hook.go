package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pbwrap/pbwrap/pasteref"
	"github.com/pbwrap/pbwrap/store"
)

var hookCommand = &command{
	name:    "hook",
	usage:   "hook claude|codex|gemini|pi",
	summary: "expand {{file:...}} references in an agent's edits, as its hook (claude, codex, gemini, pi)",
	help: `pbwrap hook claude is a Claude Code PreToolUse hook. It reads the tool call
Claude Code sends on standard input and, for Write (content), Edit
(new_string), MultiEdit (edits[].new_string) and NotebookEdit (new_source),
expands {{file:/abs/path:START:END}} references (see pbwrap help expand):

- no reference, or another tool: it prints nothing, and the call goes on
  unchanged;
- references that all expand: it answers with the whole tool input,
  expanded, and no permission decision, so Claude Code asks exactly as it
  would have (an edit that would have asked the user still asks);
- a bad reference: it denies the call with the reason, which the model sees
  and can act on. Nothing is written.

The hook runs with all of your rights, outside the agent's sandbox and read
rules, so it is stricter than pbwrap expand:

- it expands only files below the agent's working directory and pbwrap's
  paste root (--root, PBWRAP_ROOT); a working directory of / counts for
  nothing. Those directories may be reached through symbolic links (/tmp on
  macOS); they are resolved once and opened;
- below them it follows no symbolic link at all, even one that points
  inside: refer to the file by its real path. Each file is opened once,
  component by component from the directory (openat2 on Linux, an O_NOFOLLOW
  walk elsewhere), and read from that descriptor, so a link swapped in
  meanwhile cannot lead it elsewhere;
- below the working directory it refuses a file with more than one hard
  link, which may be a file from outside (ln ~/.ssh/id_ed25519 x);
- it passes on only valid UTF-8 text (a hook passes text as JSON strings).

It reads each file once per tool call, across all of the call's fields, and
within limits that keep its answer far inside the 30 s timeout below: an
input over 16 MiB, more than 10000 references, more than 256 MiB read from
files, or an answer over 64 MiB (the text escaped for JSON, where a control
character takes 6 bytes) denies the call, with the reason.

Install it in ~/.claude/settings.json (or the project's .claude/settings.json):

  {
    "hooks": {
      "PreToolUse": [
        {
          "matcher": "Write|Edit|MultiEdit|NotebookEdit",
          "hooks": [{"type": "command", "command": "pbwrap hook claude", "timeout": 30}]
        }
      ]
    }
  }

pbwrap hook codex does the same for Codex's apply_patch, whose patch writes a
file's content as lines that start with "+": there a reference must be a
whole added line, +{{file:/abs/path:START:END}}, and becomes one added line
per line of the range. Codex takes a rewritten input only with
permissionDecision "allow", which carries the rewrite and nothing else: the
patch still goes through Codex's approval policy and sandbox. Install it in
~/.codex/hooks.json (and trust it in Codex's /hooks):

  {
    "hooks": {
      "PreToolUse": [
        {
          "matcher": "^apply_patch$",
          "hooks": [{"type": "command", "command": "pbwrap hook codex", "timeout": 30}]
        }
      ]
    }
  }

pbwrap hook gemini is a Gemini CLI BeforeTool hook for write_file (content)
and replace (new_string). It answers with the whole tool input, expanded, as
hookSpecificOutput.tool_input, since Gemini CLI builds the call anew from
that object alone, and no decision, so Gemini CLI's policy asks as it would
have; a bad reference denies the call ("decision": "deny") with the reason.
Install it in ~/.gemini/settings.json (the timeout is in milliseconds):

  {
    "hooks": {
      "BeforeTool": [
        {
          "matcher": "^(write_file|replace)$",
          "hooks": [{"type": "command", "command": "pbwrap hook gemini", "timeout": 30000}]
        }
      ]
    }
  }

pbwrap hook pi speaks the same protocol for Pi's write (content) and edit
(edits[].newText), as the tool_call event of a small Pi extension that
replaces the tool's input with the answer or blocks the call with the reason:
pbwrap help agents pi-extension prints the extension, to save as
~/.pi/agent/extensions/pbwrap.ts.

Input it cannot read is refused with exit status 2, which blocks the call:
letting it through could write an unexpanded reference into a file. A bad
pbwrap setting (say PBWRAP_MIN_BYTES=abc) does not stop the hook, which would
block every edit: the setting keeps its default here, and the wrapper and
pbwrap doctor report it.`,
	run:     runHook,
	globals: []string{"root"},
	lenient: true,
}

func runHook(c *command, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return c.usagef("want the agent: claude, codex, gemini or pi")
	}
	var handle func([]byte, []string) ([]byte, error)
	switch fs.Arg(0) {
	case "claude":
		handle = pasteref.ClaudeHook
	case "codex":
		handle = pasteref.CodexHook
	case "gemini":
		handle = pasteref.GeminiHook
	case "pi":
		handle = pasteref.PiHook
	default:
		return usagef("no hook for %q (there are hooks for claude, codex, gemini and pi)", fs.Arg(0))
	}
	// One byte over the limit is enough for the hook to deny the call: the
	// rest is not read.
	in, err := io.ReadAll(io.LimitReader(os.Stdin, pasteref.MaxHookInput+1))
	if err != nil {
		return hookRefused(err)
	}
	out, err := handle(in, hookDirs(cfg))
	if err != nil {
		return hookRefused(err)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		// An answer lost on the way would let the call through with its
		// references unexpanded: block it instead.
		return hookRefused(err)
	}
	return nil
}

// hookDirs are the directories besides the agent's working directory
// whose files a hook expands: pbwrap's paste root, as configured, and the
// root of the pbwrap session the agent runs in.
func hookDirs(cfg *config) []string {
	var dirs []string
	if root, err := store.ResolveRoot(cfg.root); err == nil {
		dirs = append(dirs, root)
	}
	if dir := os.Getenv("PBWRAP_SESSION_DIR"); filepath.IsAbs(dir) {
		dirs = append(dirs, filepath.Dir(dir))
	}
	return dirs
}

// hookRefused blocks the tool call: exit status 2, the reason on stderr,
// which Claude Code, Codex and Gemini CLI show to the model (and pbwrap's
// Pi extension gives Pi as the reason).
func hookRefused(err error) error {
	fmt.Fprintf(os.Stderr, "pbwrap hook: %v\n", err)
	return quietExit(2)
}
