//go:build darwin || freebsd || linux

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// doctorJSON is doctor --json's document, as its help describes it.
type doctorJSON struct {
	Format   int           `json:"format"`
	OK       bool          `json:"ok"`
	Problems int           `json:"problems"`
	Findings []jsonFinding `json:"findings"`
}

// decodeDoctorJSON decodes out as one doctor --json document, failing the
// test on a field the help does not describe or anything after it.
func decodeDoctorJSON(t *testing.T, out string) doctorJSON {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var doc doctorJSON
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("pbwrap doctor --json: %v; output:\n%s", err, out)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("pbwrap doctor --json wrote more than one JSON value (%v); output:\n%s", err, out)
	}
	return doc
}

// freeSpace is the part of doctor's free-space line that other processes
// change between two runs.
var freeSpace = regexp.MustCompile(`free space: [^ ]+ on`)

// doctor --json holds the findings the text report prints, in its order,
// with its exit status: the report printed from the JSON's findings is the
// text report, on set-ups where all is well, where settings are bad and
// hostile, and where an agent's settings cannot be read.
func TestDoctorJSONHasTheTextReportsFindings(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(t *testing.T) []string
		code int
	}{
		{"all is well", func(t *testing.T) []string {
			return []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "PATH=" + t.TempDir(),
				"TERM=xterm", "PBWRAP_ROOT=" + filepath.Join(t.TempDir(), "r")}
		}, 0},
		{"hostile settings", hostileDoctorEnv, 1},
		{"an agent's settings are a named pipe", func(t *testing.T) []string {
			home := t.TempDir()
			if err := os.Mkdir(filepath.Join(home, ".claude"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(home, ".claude", "settings.json"), 0o600); err != nil {
				t.Fatal(err)
			}
			return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + t.TempDir(), "PATH=" + fakeAgents(t, "claude"),
				"PBWRAP_ROOT=" + filepath.Join(t.TempDir(), "r")}
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env(t)
			text, textCode := runDoctorCmd(t, env)
			out, code := runDoctorCmd(t, env, "--json")
			if textCode != tc.code || code != tc.code {
				t.Errorf("pbwrap doctor exited %d, and with --json %d; want %d", textCode, code, tc.code)
			}
			doc := decodeDoctorJSON(t, out)
			back := make(findings, 0, len(doc.Findings))
			problems := 0
			for i, f := range doc.Findings {
				s := slices.Index(statusNames[:], f.Status)
				if s < 0 || !slices.Contains([]string{"root", "terminal", "config", "agents"}, f.Check) || f.Depth < 0 {
					t.Errorf("finding %d: %+v: a status, check or depth the help does not describe", i, f)
				}
				if f.Problem != "" {
					problems++
				}
				back = append(back, finding{depth: f.Depth, status: status(s), line: f.Message, problem: f.Problem, fix: f.Fix})
			}
			if doc.Format != 1 || doc.OK != (tc.code == 0) || doc.Problems != problems {
				t.Errorf("format %d, ok %v, problems %d; want 1, %v, %d", doc.Format, doc.OK, doc.Problems, tc.code == 0, problems)
			}
			var b bytes.Buffer
			_ = report(&b, back) // Its error is the exit status, checked above.
			got, want := freeSpace.ReplaceAllString(b.String(), "free space: N on"), freeSpace.ReplaceAllString(text, "free space: N on")
			if got != want {
				t.Errorf("the report from doctor --json's findings is not the text report: %s", firstDifference(got, want))
			}
		})
	}
}

// doctor --json escapes what it shows as the text report does: neither
// its bytes nor the strings they decode to hold a control character or
// U+202E from a hostile root, setting, TERM or agent's settings, and the
// values are there, escaped as in the report.
func TestDoctorJSONEscapesWhatItShows(t *testing.T) {
	out, code := runDoctorCmd(t, hostileDoctorEnv(t), "--json")
	if code != 1 {
		t.Errorf("pbwrap doctor --json exited %d, want 1 (bad settings); output:\n%s", code, out)
	}
	if r, ok := controlIn(out); ok {
		t.Errorf("pbwrap doctor --json wrote %U as it is:\n%s", r, out)
	}
	var all strings.Builder
	for _, f := range decodeDoctorJSON(t, out).Findings {
		for _, s := range []string{f.Message, f.Problem, f.Fix} {
			if r, ok := controlIn(s); ok {
				t.Errorf("a finding of doctor --json holds %U once decoded: %+v", r, f)
			}
			all.WriteString(s + "\n")
		}
	}
	for _, want := range []string{
		`--ttl                  "1\x1b]0;pwned\a`,
		`/r\x1b]0;pwned\a\x1b[2J\u202e\xff"`, // The root, from the config file.
		`runs "'/x\x1b]0;pwned\a\x1b[2J/pbwrap' hook claude"`,
		`TERM="xterm\x1b]0;pwned`,
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("doctor --json's findings have no %q:\n%s", want, all.String())
		}
	}
}

// doctor --paste --json, away from a terminal, says as one JSON document
// that the paste check needs one, and exits 1 as the text report does.
func TestDoctorPasteJSONWithoutATerminal(t *testing.T) {
	out, code := runDoctorCmd(t, []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}, "--paste", "--json")
	doc := decodeDoctorJSON(t, out)
	if code != 1 || doc.OK || doc.Problems != 1 {
		t.Fatalf("exit %d, ok %v, problems %d; want 1, false, 1; output:\n%s", code, doc.OK, doc.Problems, out)
	}
	last := doc.Findings[len(doc.Findings)-1]
	if last.Check != "paste" || !strings.Contains(last.Problem, "the paste check needs the terminal") || last.Fix == "" {
		t.Errorf("the last finding is %+v, want the paste check's problem, with its fix", last)
	}
}
