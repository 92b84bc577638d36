package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/store"
)

var cleanCommand = &command{
	name:    "clean",
	usage:   "clean [--all [--yes]] [--older-than DURATION] [--dry-run]",
	summary: "remove saved pastes whose session ended longer ago than the TTL",
	help: `A session is removed when it ended longer ago than the TTL (--ttl or
PBWRAP_TTL, default 30d), and never while its pbwrap still runs: the TTL
counts from the end of a session, its last write. Then, while the sessions
left hold more than the cap (--max-store or PBWRAP_MAX_STORE, default 1GiB),
the ended session written to longest ago is removed, and the next: trimmed.
pbwrap also does this quietly when it starts, at most once an hour. Only what pbwrap created is
removed; the root itself stays. The temp files that a pbwrap killed mid-paste
left in a session that no longer runs are removed at once; the session itself
stays until its TTL. The temp file that a pbwrap killed while it wrote the
counters (see pbwrap stats) left in the root is removed too, once it is ten
minutes old and no pbwrap is writing the counters. While the root is the
default, the root of earlier builds ($TMPDIR/pbwrap-UID), which pbwrap list
and show still read, is cleaned the same way after it.

  --all                  remove every session that is not running, whatever its age
  --yes                  with --all, remove without asking
  --older-than DURATION  use this age instead of the TTL (36h, 90m, 2d)
  --dry-run              say what would be removed, remove nothing

--all asks first: on a terminal it lists the sessions it would remove and
asks before removing them (answer y). Then it removes only the sessions it
listed, and of those only the ones still not running and not written to
since: a session that ended, or began, while the question was open is not
removed without being asked about. Any other answer removes nothing and is
not an error: exit status 0, as when there is nothing to remove (a "no" is
an answer, not a failure). Without a terminal to ask on (a script, a pipe)
it removes nothing and fails with exit status 2 unless --yes is given, so
that what a script does never depends on whether a terminal happens to be
attached. --yes skips the question in both cases; --dry-run never needs it.`,
	run:       runClean,
	warns:     true,
	globals:   []string{"root", "ttl", "max-store"},
	flagDecls: []flagDecl{{name: "all"}, {name: "yes"}, {name: "older-than", arg: "DURATION"}, {name: "dry-run"}},
}

func runClean(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 0); err != nil {
		return err
	}
	all, dryRun, yes := switchOn(fs, "all"), switchOn(fs, "dry-run"), switchOn(fs, "yes")
	olderThan := valueOf(fs, "older-than")
	ask := all && !dryRun && !yes
	if ask && !std.inTerminal() {
		return c.usagef("--all removes every session that is not running: add --yes to do it without a terminal to ask on (--dry-run shows what it would remove)")
	}
	ttl := cfg.ttl
	if olderThan != "" {
		d, err := parseDuration(olderThan)
		if err != nil {
			return usagef("--older-than=%q: %v", olderThan, err)
		}
		ttl = d
	}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return err
	}
	// The earlier builds' root too, while list and show read it: what
	// they list, clean removes. A problem there is said, not fatal: the
	// user's own root was cleaned.
	answers := bufio.NewReader(std.in) // One reader for every question.
	roots := readRoots(cfg, root)
	if err := cleanRoot(std, answers, cfg, roots[0], ttl, all, dryRun, ask); err != nil {
		return err
	}
	for _, r := range roots[1:] {
		fmt.Fprintf(std.out, "under the earlier root %s, which pbwrap list and show read too:\n", printable.Quote(r))
		if err := cleanRoot(std, answers, cfg, r, ttl, all, dryRun, ask); err != nil {
			fmt.Fprintf(std.err, "pbwrap: left the earlier root alone: %s\n", printable.Inline(err.Error()))
		}
	}
	return nil
}

// cleanRoot runs clean's cleanup of one root and says what it did.
func cleanRoot(std *streams, answers io.Reader, cfg *config, root string, ttl time.Duration, all, dryRun, ask bool) error {
	cl := &store.Cleaner{Root: root, TTL: ttl, MaxBytes: cfg.maxStore, All: all, DryRun: dryRun}
	if ask {
		only, err := confirmClean(root, ttl, answers, std.err)
		if err != nil || only == nil {
			return err
		}
		cl.Only = only
	}
	report, err := cl.Clean()
	if errors.Is(err, store.ErrCleanupBusy) {
		fmt.Fprintln(std.out, "another pbwrap is cleaning this root right now; nothing done")
		return nil
	}
	if err != nil {
		return err
	}
	printCleanReport(std, report, root, dryRun)
	return nil
}

// confirmClean asks the user, on w, before clean --all removes the
// sessions that no pbwrap runs: it lists them (a dry run) and reads the
// answer, a line, from r. It returns the sessions to remove, each with the
// modification time it was listed with, for Cleaner.Only: those listed
// when the answer is y or yes, none (an empty map, not nil) when there
// was nothing to list. Anything else, the end of input included, is no:
// it says that nothing was removed and returns nil. The cleanup that
// follows removes only what was listed, so that a session that ended
// while the user read the list, or began after it, is not removed
// without being asked about.
func confirmClean(root string, ttl time.Duration, r io.Reader, w io.Writer) (map[string]time.Time, error) {
	report, err := (&store.Cleaner{Root: root, TTL: ttl, All: true, DryRun: true}).Clean()
	if err != nil {
		return nil, err
	}
	only := make(map[string]time.Time, len(report.Removed))
	for _, s := range report.Removed {
		only[s.ID] = s.ModTime
	}
	if len(only) == 0 {
		return only, nil // The cleanup says there is nothing to remove.
	}
	now := time.Now()
	for _, s := range report.Removed {
		fmt.Fprintf(w, "session %s: %s, %s, idle %s\n", printable.Quote(s.ID), pasteCount(s), humanBytes(s.Bytes), age(now, s.ModTime))
	}
	fmt.Fprintf(w, "remove %s (%s), which no pbwrap runs? [y/N] ", plural(len(report.Removed), "session"), humanBytes(report.Bytes))
	answer, _ := bufio.NewReader(r).ReadString('\n') // An error is no answer: no.
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return only, nil
	}
	if !strings.HasSuffix(answer, "\n") {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "nothing removed")
	return nil, nil
}

// printCleanReport says what a cleanup removed (or, in a dry run, would
// remove), kept and left alone.
func printCleanReport(std *streams, report *store.CleanReport, root string, dryRun bool) {
	verb, freed := "removed", "freed"
	if dryRun {
		verb, freed = "would remove", "would free"
	}
	now := time.Now()
	for _, s := range report.Removed {
		fmt.Fprintf(std.out, "%s session %s: %s, %s, idle %s\n", verb, printable.Quote(s.ID), pasteCount(s), humanBytes(s.Bytes), age(now, s.ModTime))
	}
	for _, s := range report.Trimmed {
		fmt.Fprintf(std.out, "%s session %s: %s, %s, idle %s, to keep under --max-store\n", verb, printable.Quote(s.ID), pasteCount(s), humanBytes(s.Bytes), age(now, s.ModTime))
	}
	for _, s := range report.Live {
		fmt.Fprintf(std.out, "kept session %s: still running, idle %s\n", printable.Quote(s.ID), age(now, s.ModTime))
	}
	if report.Temps > 0 {
		fmt.Fprintf(std.out, "%s %s that a crash left in ended sessions\n", verb, plural(report.Temps, "temp file"))
	}
	if report.RootTemps > 0 {
		fmt.Fprintf(std.out, "%s %s of the counters that a crash left in the root\n", verb, plural(report.RootTemps, "temp file"))
	}
	for _, why := range report.Skipped {
		fmt.Fprintf(std.err, "pbwrap: left alone: %s\n", printable.Quote(why))
	}
	switch n := len(report.Removed) + len(report.Trimmed); {
	case n == 0 && report.Temps == 0 && report.RootTemps == 0:
		fmt.Fprintf(std.out, "nothing to remove under %s\n", printable.Quote(root))
	case n == 0:
		fmt.Fprintf(std.out, "%s %s\n", freed, humanBytes(report.Bytes))
	default:
		fmt.Fprintf(std.out, "%s %s in %d sessions\n", freed, humanBytes(report.Bytes), n)
	}
}

// plural says n things: "1 temp file", "2 temp files".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func pasteCount(s store.SessionSummary) string {
	n := 0
	if s.Manifest != nil {
		seen := map[int]bool{}
		for _, r := range s.Manifest.Pastes {
			if r.Outcome == store.OutcomeSaved && !seen[r.N] {
				seen[r.N] = true
				n++
			}
		}
	}
	if n == 1 {
		return "1 paste"
	}
	return fmt.Sprintf("%d pastes", n)
}

// age writes how long ago t was, roughly: 3d4h, 5h12m, 40s.
func age(now, t time.Time) string {
	d := now.Sub(t).Round(time.Second)
	switch {
	case d >= 24*time.Hour:
		return fmt.Sprintf("%dd%dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
	case d >= time.Hour:
		return fmt.Sprintf("%dh%dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	default:
		return d.String()
	}
}
