package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/pbwrap/pbwrap/store"
)

var statsCommand = &command{
	name:    "stats",
	usage:   "stats",
	summary: "count the pastes kept out of the agents' context, per agent and in total",
	help: `A paste counts each time a reference went to the agent in its place, a reused
file included. The tokens are an estimate: bytes divided by 4, the usual rule of
thumb for English text and code with the tokenizers agents use (real counts
vary with the text and the model: logs and minified code run higher, prose
lower). Pastes that went in as text (small, repeated, or after a failure) are
counted apart. Only sessions still under the root count: pbwrap clean and the
TTL remove the others.`,
	run:     runStats,
	globals: []string{"root"},
}

// bytesPerToken is the rule of thumb for the token estimate.
const bytesPerToken = 4

type tally struct {
	agent    string
	saved    int
	bytes    int64
	inline   int
	fallback int
}

func runStats(c *command, cfg *config, args []string) error {
	if err := c.parse(cfg, c.flags(cfg), args, 0); err != nil {
		return err
	}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return err
	}
	sessions, err := listSessions(root)
	if err != nil {
		return err
	}
	rows, total := tallySessions(sessions)
	if total.saved+total.inline+total.fallback == 0 {
		fmt.Printf("no pastes recorded under %s\n", printable(root))
		return nil
	}
	return printTallies(append(rows, total))
}

// tallySessions counts the pastes of every session by outcome, per agent,
// most bytes kept out first, and in total.
func tallySessions(sessions []store.SessionSummary) (rows []*tally, total *tally) {
	byAgent := map[string]*tally{}
	total = &tally{agent: "total"}
	for _, s := range sessions {
		if s.Manifest == nil {
			continue
		}
		t := byAgent[s.Manifest.Argv0]
		if t == nil {
			t = &tally{agent: s.Manifest.Argv0}
			byAgent[s.Manifest.Argv0] = t
			rows = append(rows, t)
		}
		for _, r := range s.Manifest.Pastes {
			t.add(r)
			total.add(r)
		}
	}
	slices.SortStableFunc(rows, func(a, b *tally) int { return cmp.Compare(b.bytes, a.bytes) }) // Ties: newest session first.
	return rows, total
}

// add counts one paste.
func (t *tally) add(r store.PasteRecord) {
	switch r.Outcome {
	case store.OutcomeSaved:
		t.saved++
		t.bytes += r.Bytes
	case store.OutcomeInline:
		t.inline++
	case store.OutcomeFallback:
		t.fallback++
	}
}

// printTallies prints the table of pbwrap stats.
func printTallies(rows []*tally) error {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "AGENT\tSAVED\tKEPT OUT\t≈TOKENS\tAS TEXT\tFALLBACKS\t")
	for _, t := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t\n", printable(t.agent), t.saved, humanBytes(t.bytes), humanCount(t.bytes/bytesPerToken), t.inline, t.fallback)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Printf("\n≈tokens = bytes / %d\n", bytesPerToken)
	return nil
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
