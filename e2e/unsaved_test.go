//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/capture"
)

// A paste pbwrap cannot save, into the real agent: the root is under a
// regular file, so that no session can be made. The paste must reach the
// model whole, as it would natively, and the note that says it was not
// saved must show in the agent's input right after the paste (not hidden
// under the agent's screen, not folded into its placeholder), and reach
// the model after the paste when sent as it is.
func TestUnsavedPaste(t *testing.T) {
	if prefix == "" {
		t.Skip("opt-in: scripts/e2e-agents installs the agents and sets PBWRAP_E2E_PREFIX")
	}
	srv := startServer(t)
	note := capture.UnsavedNote("a part of the root's path is not a directory")
	var rows []string
	for _, a := range agentCases {
		if only != "" && !strings.Contains(","+only+",", ","+a.name+",") {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(prefix, "node_modules", ".bin", a.name)); err != nil {
				t.Skipf("not installed in %s (scripts/e2e-agents says why)", prefix)
			}
			r := newRun(t, srv, a, false, false)
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			r.env["PBWRAP_ROOT"] = filepath.Join(file, "root")
			r.setup(a)
			srv.reset(scenario{})
			s := r.start(a, true)
			defer s.kill()
			s.keys("-l", "Look at this: ")
			s.paste(pasteFile(t))
			screen := s.waitScreen("[pbwrap: not saved (", 20*time.Second)
			line := screenLine(screen, "[pbwrap: not saved (")
			time.Sleep(personsPause)
			s.keys("Enter")
			mark := sentinel
			if a.pasteMark != "" {
				mark = a.pasteMark
			}
			var text string
			if !wait(60*time.Second, func() bool { text = userText(srv.requests(), mark); return text != "" }) {
				t.Fatalf("no request carried the paste")
			}
			switch {
			case !strings.HasSuffix(strings.TrimSpace(text), note) || strings.Index(text, note) < strings.Index(text, mark):
				t.Errorf("the user message does not end with the note, after the paste: its end is %q", text[max(0, len(text)-200):])
			case a.pasteMark == "" && !strings.Contains(text, pasteText()[:200]):
				t.Errorf("the user message does not carry the paste whole")
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | `%s` | %d bytes, the note last |", a.name, agentVersion(t, a.name), strings.TrimSpace(line), len(text)))
		})
	}
	t.Cleanup(func() {
		fmt.Printf("\n| agent | version | its input after the paste | the user message sent |\n|---|---|---|---|\n%s\n", strings.Join(rows, "\n"))
	})
}

// screenLine is the line of screen that holds want.
func screenLine(screen, want string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, want) {
			return l
		}
	}
	return ""
}

// userText is the first user text of the requests that holds want.
func userText(reqs []*request, want string) string {
	for _, req := range reqs {
		for _, m := range req.msgs {
			if m.role != "user" {
				continue
			}
			for _, text := range m.texts {
				if strings.Contains(text, want) {
					return text
				}
			}
		}
	}
	return ""
}
