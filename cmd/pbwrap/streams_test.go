package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/agent"
)

// testStreams are streams for running a command in the test: input from
// in, on a terminal when terminal is set, output and errors kept.
func testStreams(in string, terminal bool) (*streams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &streams{in: strings.NewReader(in), out: &out, err: &errOut, inTerminal: func() bool { return terminal }}, &out, &errOut
}

// Commands take their input and output as values: run in the test's
// process, pbwrap help agents writes the instructions to its output and
// the note for the user to its errors, and pbwrap setup asks its question
// on its output, reads the answer from its input, and writes or not.
func TestCommandsTakeTheirStreams(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	std, out, errOut := testStreams("", false)
	if err := run(std, []string{"help", "agents", "claude"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != agent.Instructions(agent.Find("claude")) || !strings.Contains(errOut.String(), "pbwrap setup claude installs it") {
		t.Errorf("pbwrap help agents claude wrote\n%s\nand on its errors\n%s", out, errOut)
	}

	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	settings := filepath.Join(home, ".claude", "settings.json")
	for _, tc := range []struct {
		answer   string
		terminal bool
		written  bool
		err      string
	}{
		{"n\n", true, false, ""},
		{"", false, false, "not written: standard input is not a terminal to ask on"},
		{"yes\n", true, true, ""},
	} {
		std, out, _ := testStreams(tc.answer, tc.terminal)
		err := run(std, []string{"setup", "claude"})
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("setup claude, answer %q, terminal %t: %v, want %q", tc.answer, tc.terminal, err, tc.err)
		}
		_, statErr := os.Stat(settings)
		if written := statErr == nil; written != tc.written {
			t.Errorf("setup claude, answer %q: written %t, want %t; output:\n%s", tc.answer, written, tc.written, out)
		}
		if tc.terminal && !strings.Contains(out.String(), "Write this change to "+settings+"? [y/N] ") {
			t.Errorf("setup claude did not ask on its output:\n%s", out)
		}
	}
}
