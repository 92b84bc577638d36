package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/store"
)

var statsCommand = &command{
	name:    "stats",
	usage:   "stats [--json] [--since DURATION | DATE]",
	summary: "count the pastes kept out of the agents' context, per agent and in total",
	help: `It counts pastes, not sessions: each paste pbwrap handled, once, by what became
of it. SAVED counts those whose reference went to the agent in their place (a
reused file included), KEPT OUT their size; AS TEXT those that went in as
text because they were small or repeated, FALLBACKS those that went in as
text because saving failed. A session in which nothing was pasted counts
nowhere. The tokens are an estimate: bytes divided by 4, the usual rule of
thumb for English text and code with the tokenizers agents use (real counts
vary with the text and the model: logs and minified code run higher, prose
lower). Each command that had at least one paste saved gets a row; the total
counts every command's pastes, so the pastes a command without a row (a
shell, say) put in as text count there alone.

The counts go back to the first paste under the root (with the default root,
also under the one of earlier builds, $TMPDIR/pbwrap-UID): pbwrap keeps them
per agent and day in ROOT/.counters.json, which pbwrap clean and the TTL leave
alone. A counters file that pbwrap did not write (agents can write in the
root) is refused, with the reason; remove it to count from zero.

  --json          print the counts as JSON (below)
  --since WHEN    count from the day of WHEN: a duration back from now, as for
                  --ttl (36h), or a date (2026-11-01). Counts are kept per day
                  (local time), so a duration counts from the start of the day
                  it reaches back to.

--json prints {"format": 1, "root": ROOT, "since": first day counted
  (YYYY-MM-DD, "" when nothing was), "agents": [...], "total": {...}} where
  each agent is {"agent": the wrapped command's name, "saved": pastes kept
  out, "bytes": their size, "tokens": bytes / 4, "inline": pastes that went in
  as text, "fallback": pastes that went in as text because saving failed},
  most bytes first, and total is the same without "agent", every command
  counted. The format number changes only when a field changes meaning or
  goes away.`,
	run:       runStats,
	warns:     true,
	globals:   []string{"root"},
	flagDecls: []flagDecl{{name: "json"}, {name: "since", arg: "DURATION"}},
}

// bytesPerToken is the rule of thumb for the token estimate.
const bytesPerToken = 4

// statsFormat is the version of stats' JSON schema.
const statsFormat = 1

// A tally is what one agent's pastes, or all of them, came to.
type tally struct {
	Agent    string `json:"agent,omitempty"`
	Saved    int64  `json:"saved"`
	Bytes    int64  `json:"bytes"`
	Tokens   int64  `json:"tokens"`
	Inline   int64  `json:"inline"`
	Fallback int64  `json:"fallback"`
}

func runStats(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 0); err != nil {
		return err
	}
	asJSON, sinceArg := switchOn(fs, "json"), valueOf(fs, "since")
	since := ""
	if sinceArg != "" {
		var err error
		if since, err = parseSince(sinceArg, time.Now()); err != nil {
			return c.usagef("--since=%q: %v", sinceArg, err)
		}
	}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return err
	}
	counters, err := store.ReadCounters(root)
	if err != nil {
		return printable.Error(err)
	}
	// The earlier default root's counts too, so that upgrading does not
	// start the count again (see earlierRoot); unreadable, it is left out.
	if old := earlierRoot(cfg, root); old != "" {
		if more, err := store.ReadCounters(old); err == nil {
			counters.Counts = append(counters.Counts, more.Counts...)
		} else {
			fmt.Fprintf(std.err, "pbwrap: left out the counts of the earlier root: %s\n", printable.Quote(err.Error()))
		}
	}
	rows, total, first := tallyCounts(counters.Counts, since)
	if asJSON {
		return printStatsJSON(std.out, root, first, rows, total)
	}
	if first == "" {
		fmt.Fprintf(std.out, "no pastes recorded under %s%s\n", printable.Quote(root), sinceText(since))
		return nil
	}
	return printTallies(std.out, append(rows, total), first, since)
}

// parseSince turns --since into the first day to count (store.DayLayout,
// local time): a date as it is, or the day a duration back from now falls
// on.
func parseSince(v string, now time.Time) (string, error) {
	if day, err := time.ParseInLocation(store.DayLayout, v, time.Local); err == nil {
		return day.Format(store.DayLayout), nil
	}
	d, err := parseDuration(v)
	if err != nil {
		return "", fmt.Errorf("want a duration such as 36h or a date such as 2026-11-01")
	}
	return now.Add(-d).Format(store.DayLayout), nil
}

func sinceText(since string) string {
	if since == "" {
		return ""
	}
	return " since " + since
}

// tallyCounts adds up the counts from the day since on ("" for all), per
// agent, most bytes kept out first, leaving out the agents that never had
// a paste saved, and in total, all of them. first is the first day counted,
// "" when there was none.
func tallyCounts(counts []store.Count, since string) (rows []*tally, total *tally, first string) {
	byAgent := map[string]*tally{}
	total = &tally{}
	for _, n := range counts {
		if n.Day < since { // Days sort as text.
			continue
		}
		if first == "" || n.Day < first {
			first = n.Day
		}
		t := byAgent[n.Agent]
		if t == nil {
			t = &tally{Agent: n.Agent}
			byAgent[n.Agent] = t
		}
		t.add(n)
		total.add(n)
	}
	for _, t := range byAgent {
		if t.Saved > 0 {
			rows = append(rows, t)
		}
	}
	slices.SortFunc(rows, func(a, b *tally) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Agent, b.Agent))
	})
	return rows, total, first
}

// add counts one agent's day. The sums stop at the largest int64: the
// store checks each number of the counters file (at most 2^50), not their
// sum, and 10000 rows of such numbers are more than an int64 holds.
// Stopping there keeps a total from wrapping to a negative number, and a
// row that saved pastes from vanishing.
func (t *tally) add(n store.Count) {
	t.Saved = addSaturating(t.Saved, n.Saved)
	t.Bytes = addSaturating(t.Bytes, n.Bytes)
	t.Tokens = t.Bytes / bytesPerToken
	t.Inline = addSaturating(t.Inline, n.Inline)
	t.Fallback = addSaturating(t.Fallback, n.Fallback)
}

// addSaturating returns a+b for counts a, b >= 0, or the largest int64
// when the sum is more.
func addSaturating(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// printTallies prints the table of pbwrap stats, the last row the total.
func printTallies(w io.Writer, rows []*tally, first, since string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "AGENT\tSAVED\tKEPT OUT\t≈TOKENS\tAS TEXT\tFALLBACKS\t")
	for i, t := range rows {
		agent := printable.Quote(t.Agent)
		if i == len(rows)-1 {
			agent = "total"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t\n", agent, t.Saved, humanBytes(t.Bytes), humanCount(t.Tokens), t.Inline, t.Fallback)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if since == "" {
		fmt.Fprintf(w, "\nsince %s, the first paste counted\n", first)
	} else {
		fmt.Fprintf(w, "\nsince %s\n", since)
	}
	_, err := fmt.Fprintf(w, "≈tokens = bytes / %d\n", bytesPerToken)
	return err
}

// printStatsJSON writes stats --json to w, with every character that is
// not printable escaped (see printable.JSON).
func printStatsJSON(w io.Writer, root, first string, rows []*tally, total *tally) error {
	if rows == nil {
		rows = []*tally{}
	}
	data, err := json.MarshalIndent(struct {
		Format int      `json:"format"`
		Root   string   `json:"root"`
		Since  string   `json:"since"`
		Agents []*tally `json:"agents"`
		Total  *tally   `json:"total"`
	}{statsFormat, root, first, rows, total}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(printable.JSON(data), '\n'))
	return err
}

// humanCount writes a count for people: 950, 12.5k, 3.1M.
func humanCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1000000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}
