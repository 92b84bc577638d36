package main

import (
	"errors"
	"flag"
	"fmt"
)

// version is pbwrap's version, set at release time with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const shortUsage = "usage: pbwrap [flags] [--] COMMAND [ARGS...]; pbwrap --help for more\n"

const helpText = `pbwrap runs an AI coding agent, or any command, inside a pseudo-terminal and
keeps large pastes out of the agent's context: a paste of 8 KiB or 200 lines
or more is saved to a private file (0600) and the agent gets a one-line
reference instead, [paste saved: PATH], which it reads when it needs to.
Everything else passes through unchanged: keystrokes, small pastes, output,
window size, Ctrl-C, Ctrl-Z and the exit status.

Usage:
  pbwrap [flags] [--] COMMAND [ARGS...]   run COMMAND wrapped
  pbwrap list [--json]                    list the saved pastes, newest first
  pbwrap show [last | SESSION[:N] | PATH] print a saved paste
  pbwrap stats                            count what was kept out of context
  pbwrap clean [--all] [--older-than D] [--dry-run]
                                          remove old saved pastes
  pbwrap doctor                           check the root, terminal and agents
  pbwrap version                          print pbwrap's version
  pbwrap help [COMMAND]                   print this help, or a command's

Flags stop at the first word that is not a flag: in "pbwrap claude --resume"
the --resume is claude's. To wrap a program named like one of pbwrap's own
commands, put -- before it: pbwrap -- version.

Flags (each also set by its environment variable; a flag wins):
  --root DIR          where pastes are saved            PBWRAP_ROOT
                      (default $TMPDIR/pbwrap-UID; must be yours, not a symlink)
  --min-bytes N       a paste this long is large        PBWRAP_MIN_BYTES (8192)
  --min-lines N       ... or with this many lines       PBWRAP_MIN_LINES (200)
  --ref-format TMPL   the reference typed instead       PBWRAP_REF_FORMAT
                      (default "[paste saved: {path}]"; also {bytes} {lines}
                      {sha256} {n}; no newlines)
  --log FILE          log decisions and fallbacks here  PBWRAP_LOG
  --debug             log per-paste sizes and paths too PBWRAP_DEBUG=1
                      (to the session's debug.log without --log; never text)
  --ttl DURATION      keep ended sessions this long   PBWRAP_TTL (168h)
                      (older ones are removed at start and by pbwrap clean)
  --no-agent-args     do not add the flag that lets a   PBWRAP_NO_AGENT_ARGS=1
                      known agent read the saved pastes (claude --add-dir=ROOT,
                      gemini and qwen --include-directories ROOT)
  --off               run COMMAND directly, wrapping nothing  PBWRAP_OFF=1
  -h, --help          print this help

The same text pasted again within a minute goes in as text. If saving fails
(disk full, unsafe root), the paste goes in as text, exactly as pasted.

The wrapped command gets PBWRAP_SESSION (the session id) and
PBWRAP_SESSION_DIR (where its pastes are). pbwrap runs the command directly,
unwrapped, when PBWRAP_SESSION is already set (pbwrap inside pbwrap) and
when standard input or standard output is not a terminal.

Example, in ~/.bashrc or ~/.zshrc:
  alias claude='pbwrap claude'
`

// run parses the command line and does what it asks. The error, if any,
// says how pbwrap should exit (see exitCode).
func run(args []string) error {
	cfg, rest, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Print(helpText)
		return nil
	}
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("missing COMMAND")
	}
	afterDashDash := len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"
	if c := findCommand(rest[0]); c != nil && !afterDashDash {
		return c.run(c, cfg, rest[1:])
	}
	return wrap(cfg, rest)
}
