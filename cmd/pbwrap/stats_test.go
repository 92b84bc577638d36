package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/store"
)

func TestTallyCounts(t *testing.T) {
	counts := []store.Count{
		{Day: "2026-10-30", Agent: "claude", Saved: 1, Bytes: 4000, Inline: 1},
		{Day: "2026-11-01", Agent: "bash", Inline: 7, Fallback: 1},
		{Day: "2026-11-01", Agent: "claude", Saved: 2, Bytes: 100},
		{Day: "2026-11-01", Agent: "pi", Saved: 1, Bytes: 1000},
		{Day: "2026-11-02", Agent: "codex", Saved: 1, Bytes: 1000},
	}
	for _, tc := range []struct {
		since, first string
		rows         []tally // bash, which never saved, never has one
		total        tally
	}{
		{"", "2026-10-30",
			[]tally{{Agent: "claude", Saved: 3, Bytes: 4100, Tokens: 1025, Inline: 1}, {Agent: "codex", Saved: 1, Bytes: 1000, Tokens: 250}, {Agent: "pi", Saved: 1, Bytes: 1000, Tokens: 250}},
			tally{Saved: 5, Bytes: 6100, Tokens: 1525, Inline: 8, Fallback: 1}},
		{"2026-11-01", "2026-11-01",
			[]tally{{Agent: "codex", Saved: 1, Bytes: 1000, Tokens: 250}, {Agent: "pi", Saved: 1, Bytes: 1000, Tokens: 250}, {Agent: "claude", Saved: 2, Bytes: 100, Tokens: 25}},
			tally{Saved: 4, Bytes: 2100, Tokens: 525, Inline: 7, Fallback: 1}},
		{"2026-11-03", "", nil, tally{}},
	} {
		rows, total, first := tallyCounts(counts, tc.since)
		if first != tc.first || *total != tc.total || len(rows) != len(tc.rows) {
			t.Errorf("since %q: first %q, total %+v, %d rows; want %q, %+v, %d", tc.since, first, *total, len(rows), tc.first, tc.total, len(tc.rows))
			continue
		}
		for i, r := range rows {
			if *r != tc.rows[i] {
				t.Errorf("since %q: row %d = %+v, want %+v", tc.since, i, *r, tc.rows[i])
			}
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.Local)
	for in, want := range map[string]string{
		"2026-11-01": "2026-11-01",
		"1h":         "2026-11-30",
		"2h":         "2026-11-29", // The day it reaches back to, counted whole.
		"72h":        "2026-11-27",
	} {
		if got, err := parseSince(in, now); err != nil || got != want {
			t.Errorf("parseSince(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "soon", "2026-13-01", "-1h", "0"} {
		if got, err := parseSince(in, now); err == nil {
			t.Errorf("parseSince(%q) = %q; want an error", in, got)
		}
	}
}

// TestTallyCountsSaturate: a counters file that passes the store's checks
// can hold counts whose sum is more than an int64 holds (10000 rows of
// up to 2^50 each). The sums stop at the largest int64 instead of
// wrapping to a negative number, and a row that saved pastes never
// vanishes from the table.
func TestTallyCountsSaturate(t *testing.T) {
	const big = 1 << 50
	var counts []store.Count
	day := time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 9000 {
		counts = append(counts, store.Count{Day: day.AddDate(0, 0, i).Format(store.DayLayout), Agent: "claude",
			Saved: big, Bytes: big, Inline: big, Fallback: big})
	}
	rows, total, _ := tallyCounts(counts, "")
	want := tally{Saved: math.MaxInt64, Bytes: math.MaxInt64, Tokens: math.MaxInt64 / bytesPerToken, Inline: math.MaxInt64, Fallback: math.MaxInt64}
	if *total != want {
		t.Errorf("total = %+v, want %+v", *total, want)
	}
	want.Agent = "claude"
	if len(rows) != 1 || *rows[0] != want {
		t.Fatalf("rows = %v, want one, %+v", rows, want)
	}
	var out strings.Builder
	if err := printTallies(&out, append(rows, total), "2001-01-01", ""); err != nil || strings.Contains(out.String(), " -") {
		t.Errorf("printTallies: %v\n%s\nwant no negative number", err, out.String())
	}
}
