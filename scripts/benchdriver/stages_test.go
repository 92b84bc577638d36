//go:build darwin || freebsd || linux

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The lines pbwrap writes are read back per direction and stage; a line
// that is not one of them is refused with its number.
func TestParseStages(t *testing.T) {
	rows, err := parseStages(strings.NewReader("0 1000 3000 4000 17000 1500\n1 400 1200 2400 21000 600\n0 2000 3000 5000 17000 1500\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[0][2]; len(got) != 2 || got[0] != 4*time.Microsecond || got[1] != 5*time.Microsecond {
		t.Errorf("input read→write = %v", got)
	}
	if got := rows[1][3]; len(got) != 1 || got[0] != 21*time.Microsecond {
		t.Errorf("output write = %v", got)
	}
	for _, bad := range []string{"0 1 2 3 4\n", "2 1 2 3 4 5\n", "0 1 2 x 4 5\n"} {
		if _, err := parseStages(strings.NewReader("1 1 1 1 1 1\n" + bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: err = %v, want one about line 2", bad, err)
		}
	}
}

// The report gives each stage's median and p90, and those of the
// user-space time before the write, wake→read plus read→write step by
// step (not the sum of the two medians).
func TestReportStages(t *testing.T) {
	rows, err := parseStages(strings.NewReader("0 1000 3000 6000 17000 1500\n0 2000 3000 4000 17000 1500\n0 3000 3000 5000 17000 1500\n"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	reportStages(&out, rows)
	input := strings.Fields(strings.Split(out.String(), "\n")[1])
	want := []string{"input", "3", "2.0", "(2.0)", "3.0", "(3.0)", "5.0", "(5.0)", "17.0", "(17.0)", "1.5", "(1.5)", "7.0", "(7.0)"}
	if strings.Join(input, " ") != strings.Join(want, " ") {
		t.Errorf("input line: %q, want %q", input, want)
	}
	if output := strings.Fields(strings.Split(out.String(), "\n")[2]); len(output) < 3 || output[1] != "0" || output[2] != "-" {
		t.Errorf("output line with no steps: %q", output)
	}
}
