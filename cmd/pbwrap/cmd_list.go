package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/pbwrap/pbwrap/store"
)

var listCommand = &command{
	name:    "list",
	usage:   "list [--json]",
	summary: "list the saved pastes, newest first",
	help: `Each line gives the time of the paste, its session (the last 8 characters of
the session id, enough for pbwrap show), its number in the session, its lines,
its size and the path of its file.

--json prints {"format": 1, "root": ROOT, "pastes": [...]} where each paste is
  {"time": RFC 3339, "session": full id, "short": last 8 characters of the id,
   "agent": the wrapped command's name, "n": number in the session,
   "lines": lines, "bytes": size in bytes, "sha256": hex digest of the text,
   "path": absolute path, "live": whether its session is still running}.
The format number changes only when a field changes meaning or goes away.`,
	run: runList,
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

func runList(c *command, cfg *config, args []string) error {
	fs := c.flags()
	asJSON := fs.Bool("json", false, "")
	if err := c.parse(fs, args, 0); err != nil {
		return err
	}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return err
	}
	pastes, _, err := loadPastes(root)
	if err != nil {
		return err
	}
	if *asJSON {
		if pastes == nil {
			pastes = []savedPaste{}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Format int          `json:"format"`
			Root   string       `json:"root"`
			Pastes []savedPaste `json:"pastes"`
		}{listFormat, root, pastes})
	}
	if len(pastes) == 0 {
		fmt.Printf("no saved pastes under %s\n", root)
		return nil
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TIME\tSESSION\tN\tLINES\tSIZE\t PATH")
	for _, p := range pastes {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t %s\n", p.Time.Local().Format("2006-01-02 15:04:05"), p.Short, p.N, p.Lines, humanBytes(p.Bytes), p.Path)
	}
	return tw.Flush()
}

// loadPastes reads every session's manifest under root and returns the
// saved paste files that still exist, newest first, one entry per file
// (a file reused for the same text is listed at its latest use).
func loadPastes(root string) ([]savedPaste, []store.SessionSummary, error) {
	sessions, err := store.ListSessions(root)
	if err != nil {
		return nil, nil, err
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
