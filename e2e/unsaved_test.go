//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/capture"
)

// A paste pbwrap cannot save, into the real agent: the root is under a
// regular file, so that no session can be made. The paste must reach the
// model whole, as it would natively, and the note that says it was not
// saved must show in the agent's input right after the paste (not hidden
// under the agent's screen, not folded into its placeholder), and reach
// the model after the paste when sent as it is (before it, for an agent
// that attaches a large paste after what was typed: Crush).
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
			if a.pasteMark != "" {
				rows = append(rows, savesItself(t, srv, s, a, note))
				return
			}
			screen := s.waitScreen("[pbwrap: not saved (", 20*time.Second)
			line := screenLine(screen, "[pbwrap: not saved (")
			s.settle() // As a person reads it first: Gemini CLI takes an Enter too soon after a paste for part of it.
			s.keys("Enter")
			var text string
			if !wait(60*time.Second, func() bool { text = userText(srv.requests(), sentinel); return text != "" }) {
				t.Fatalf("no request carried the paste")
			}
			// Line ends as the agent sends them: the terminal's CR (Cline), or LF.
			lf := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
			where := "the note last"
			switch {
			case !strings.Contains(lf, strings.TrimSpace(pasteText())):
				t.Errorf("the user message does not carry the paste whole: %d bytes, its end is %q", len(text), text[max(0, len(text)-200):])
			case a.pasteAttached:
				// The paste goes after what was typed, the note with it.
				where = "the note, then the paste attached"
				if i := strings.Index(text, note); i < 0 || i > strings.Index(text, sentinel) {
					t.Errorf("the user message does not carry the note before the paste it attaches: its start is %q", text[:min(len(text), 300)])
				}
			case !strings.HasSuffix(strings.TrimSpace(text), note) || strings.Index(text, note) < strings.Index(text, sentinel):
				t.Errorf("the user message does not end with the note, after the paste: its end is %q", text[max(0, len(text)-200):])
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | `%s` | %d bytes, %s |", a.name, agentVersion(t, a.name), strings.TrimSpace(line), len(text), where))
		})
	}
	t.Cleanup(func() {
		fmt.Printf("\n| agent | version | its input after the paste | the user message sent |\n|---|---|---|---|\n%s\n", strings.Join(rows, "\n"))
	})
}

// savesItself is TestUnsavedPaste for an agent that saves a large paste
// itself (a.pasteMark): Copilot CLI takes whatever comes within about a
// second of a paste, typed or pasted, for more of it, so the note goes
// into the paste and not onto the screen after its placeholder. It sends
// the model the paste as text, or a mention of the file it saved, as it
// does natively; either way the paste is whole and the note comes last.
func savesItself(t *testing.T, srv *server, s *tmux, a agentCase, note string) string {
	t.Helper()
	s.settle()
	line := screenLine(s.screen(), "Look at this: ")
	s.keys("Enter")
	var text string
	if !wait(60*time.Second, func() bool {
		text = userText(srv.requests(), a.pasteMark)
		if text == "" {
			text = userText(srv.requests(), sentinel)
		}
		return text != ""
	}) {
		t.Fatalf("no request carried the paste or the agent's mention of it")
	}
	got, sent := text, "as text"
	if m := regexp.MustCompile(regexp.QuoteMeta(a.pasteMark) + `"([^"]+)"`).FindStringSubmatch(text); m != nil {
		saved, err := os.ReadFile(m[1])
		if err != nil {
			t.Fatalf("the agent's file of the paste: %v", err)
		}
		got, sent = strings.ReplaceAll(string(saved), "\r", ""), "as a mention of its file"
	}
	if !strings.Contains(got, strings.TrimSpace(pasteText())) || !strings.HasSuffix(strings.TrimSpace(got), note) {
		t.Errorf("the paste sent %s is not whole, then the note: its end is %q", sent, got[max(0, len(got)-200):])
	}
	return fmt.Sprintf("| %s | %s | `%s` (the note is in the paste it saved) | %d bytes, the paste %s, the note last |",
		a.name, agentVersion(t, a.name), strings.TrimSpace(line), len(text), sent)
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
