package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/store"
)

var listCommand = &command{
	name:    "list",
	usage:   "list [--json]",
	summary: "list the saved pastes, newest first",
	help: `Each line gives the time of the paste, its session (the last 8 characters of
the session id, enough for pbwrap show), its number in the session, its lines,
its size and the path of its file. With the default root, the pastes that
earlier builds saved under $TMPDIR/pbwrap-UID are listed too, until they
expire.

--json prints {"format": 1, "root": ROOT, "pastes": [...]} where each paste is
  {"time": RFC 3339, "session": full id, "short": last 8 characters of the id,
   "agent": the wrapped command's name, "n": number in the session,
   "lines": lines, "bytes": size in bytes, "sha256": hex digest of the text,
   "path": absolute path, "live": whether its session is still running}.
The format number changes only when a field changes meaning or goes away.

A session whose manifest is missing, unreadable, larger than any pbwrap writes,
or holds what pbwrap would not have written (a path outside its session, a
negative size) is skipped, with one line on stderr saying why; so does show.
Values that do not print (escape sequences) are shown escaped.`,
	run:       runList,
	warns:     true,
	globals:   []string{"root"},
	flagDecls: []flagDecl{{name: "json"}},
}

// listFormat is the version of list's JSON schema.
const listFormat = 1

// savedPaste is one saved paste file, as list and show see it.
type savedPaste struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Short   string    `json:"short"`
	Agent   string    `json:"agent"`
	N       int       `json:"n"`
	Lines   int64     `json:"lines"`
	Bytes   int64     `json:"bytes"`
	SHA256  string    `json:"sha256"`
	Path    string    `json:"path"`
	Live    bool      `json:"live"`
}

func runList(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 0); err != nil {
		return err
	}
	asJSON := switchOn(fs, "json")
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return err
	}
	pastes, _, err := loadPastes(std, readRoots(cfg, root))
	if err != nil {
		return err
	}
	if asJSON {
		return printPastesJSON(std.out, root, pastes)
	}
	if len(pastes) == 0 {
		fmt.Fprintf(std.out, "no saved pastes under %s\n", printable.Quote(root))
		return nil
	}
	tw := tabwriter.NewWriter(std.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TIME\tSESSION\tN\tLINES\tSIZE\t PATH")
	for _, p := range pastes {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t %s\n", p.Time.Local().Format("2006-01-02 15:04:05"), printable.Quote(p.Short), p.N, p.Lines, humanBytes(p.Bytes), printable.Quote(p.Path))
	}
	return tw.Flush()
}

// printPastesJSON writes list --json to w, with every character that is
// not printable escaped (see printable.JSON).
func printPastesJSON(w io.Writer, root string, pastes []savedPaste) error {
	if pastes == nil {
		pastes = []savedPaste{}
	}
	data, err := json.MarshalIndent(struct {
		Format int          `json:"format"`
		Root   string       `json:"root"`
		Pastes []savedPaste `json:"pastes"`
	}{listFormat, root, pastes}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(printable.JSON(data), '\n'))
	return err
}

// loadPastes reads every session's manifest under roots and returns the
// saved paste files that still exist, newest first, one entry per file
// (a file reused for the same text is listed at its latest use), and the
// sessions. The sessions whose manifest cannot be used are named on
// stderr (see listSessions). A root after the first (the earlier default
// root: readRoots) that cannot be read is named on stderr and skipped.
func loadPastes(std *streams, roots []string) ([]savedPaste, []store.SessionSummary, error) {
	var sessions []store.SessionSummary
	for i, root := range roots {
		more, err := listSessions(std, root)
		switch {
		case err != nil && i == 0:
			return nil, nil, err
		case err != nil:
			fmt.Fprintf(std.err, "pbwrap: skipped the earlier root %s: %s\n", printable.Quote(root), printable.Quote(err.Error()))
		}
		sessions = append(sessions, more...)
	}
	var pastes []savedPaste
	for _, s := range sessions {
		if s.Manifest == nil {
			continue
		}
		latest := map[int]int{} // n → index in pastes
		for _, r := range s.Manifest.Pastes {
			if r.Outcome != store.OutcomeSaved || r.Path == "" {
				continue
			}
			if fi, err := os.Lstat(r.Path); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			p := savedPaste{
				Time: r.Time, Session: s.ID, Short: shortID(s.ID), Agent: s.Manifest.Argv0,
				N: r.N, Lines: r.Lines, Bytes: r.Bytes, SHA256: r.SHA256, Path: r.Path, Live: s.Live,
			}
			if i, ok := latest[r.N]; ok {
				pastes[i] = p
				continue
			}
			latest[r.N] = len(pastes)
			pastes = append(pastes, p)
		}
	}
	slices.SortStableFunc(pastes, func(a, b savedPaste) int { return b.Time.Compare(a.Time) })
	return pastes, sessions, nil
}

// listSessions lists the sessions under root, as store.ListSessions does,
// and says on stderr, one line each, which sessions list, show and stats
// leave out and why: a manifest that is missing, cannot be read, or that
// store.ReadManifest refused (forged, too large, malformed). A session
// being made (live, its manifest not yet written) is left out silently.
func listSessions(std *streams, root string) ([]store.SessionSummary, error) {
	sessions, err := store.ListSessions(root)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		if s.Manifest != nil || (s.Live && errors.Is(s.Err, fs.ErrNotExist)) {
			continue
		}
		why := "no manifest"
		if s.Err != nil {
			why = s.Err.Error()
		}
		fmt.Fprintf(std.err, "pbwrap: skipped session %s: %s\n", printable.Quote(s.ID), printable.Quote(why))
	}
	return sessions, nil
}

// shortID is the part of a session id list shows: the last 8 characters.
// A UUIDv7 starts with the time, so sessions started within a minute share
// their first characters; the last ones are random.
func shortID(id string) string {
	if len(id) < 8 {
		return id
	}
	return id[len(id)-8:]
}

// humanBytes writes a size for people: 512B, 16.3KiB, 1.2MiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f%ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
