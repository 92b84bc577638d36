package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

var update = flag.Bool("update", false, "rewrite the golden hook answers (testdata/hook/AGENT/*.out.json)")

// goldenSource is the file the golden hook calls refer to, under @DIR@.
const goldenSource = "line 1 <&>\nline 2\nline 3\nline 4, last\n"

// TestHookGoldens runs each agent's golden calls, testdata/hook/AGENT/
// *.in.json, the calls as the agent sends them, through the registry's
// protocol for that agent, and compares the answer with the .out.json
// beside each (empty: no answer, the call goes on unchanged; a denial by
// exit status is written {"exit_status": 2, "stderr": REASON}). @DIR@
// stands for a directory, the paste root of the call, that holds src.txt.
// It fails when an agent with a hook has no goldens, when a tool of its
// protocol (an edit or a read) has no golden that calls it, and when a
// directory of goldens names no agent with a hook: a new agent adds its
// goldens beside its file, and nothing else.
//
// The directory is not resolved: on macOS t.TempDir is under /var, a
// symlink to /private/var, and a reference may spell the hook's
// directories as they are given.
func TestHookGoldens(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "src.txt"), []byte(goldenSource), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, a := range All() {
		inputs, err := filepath.Glob(filepath.Join("testdata", "hook", a.Name, "*.in.json"))
		if err != nil {
			t.Fatal(err)
		}
		if a.Hook == nil {
			if len(inputs) > 0 {
				t.Errorf("%s has no hook but golden calls in testdata/hook/%s", a.Name, a.Name)
			}
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			if len(inputs) == 0 {
				t.Fatalf("no golden calls: add testdata/hook/%s/TOOL.in.json, the call as %s sends it, and run go test -run TestHookGoldens -update", a.Name, a.Title)
			}
			called := map[string]bool{}
			for _, in := range inputs {
				name := strings.TrimSuffix(filepath.Base(in), ".in.json")
				t.Run(name, func(t *testing.T) {
					raw, err := os.ReadFile(in)
					if err != nil {
						t.Fatal(err)
					}
					called[goldenTool(raw)] = true
					got := goldenAnswer(t, &a.Hook.Protocol, bytes.ReplaceAll(raw, []byte("@DIR@"), []byte(dir)), dir)
					got = bytes.ReplaceAll(got, []byte(dir), []byte("@DIR@"))
					golden := strings.TrimSuffix(in, ".in.json") + ".out.json"
					if *update {
						if err := os.WriteFile(golden, got, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					want, err := os.ReadFile(golden)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("got:\n%s\nwant:\n%s", got, want)
					}
					if len(got) > 0 && !json.Valid(got) {
						t.Errorf("answer is not JSON: %s", got)
					}
				})
			}
			for _, tool := range slices.Concat(a.Hook.Protocol.Tools, a.Hook.Protocol.Reads) {
				if !called[tool.Name] {
					t.Errorf("no golden call of its tool %s in testdata/hook/%s", tool.Name, a.Name)
				}
			}
		})
	}
	dirs, err := os.ReadDir(filepath.Join("testdata", "hook"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if a := Find(d.Name()); a == nil || a.Hook == nil {
			t.Errorf("testdata/hook/%s: no agent with a hook is called %s", d.Name(), d.Name())
		}
	}
}

// goldenAnswer is the hook's answer to the call in, with dir its paste
// root, as pbwrap hook writes it; a denial by exit status (DenyByExit)
// as {"exit_status": 2, "stderr": REASON}.
func goldenAnswer(t *testing.T, p *fileref.Protocol, in []byte, dir string) []byte {
	t.Helper()
	out, err := p.Answer(in, fileref.Scope{Roots: []string{dir}})
	var denial *fileref.Denial
	switch {
	case errors.As(err, &denial):
		out, err = json.Marshal(map[string]any{"exit_status": 2, "stderr": denial.Reason})
		if err != nil {
			t.Fatal(err)
		}
		return append(out, '\n')
	case err != nil:
		t.Fatalf("hook: %v", err)
	}
	return out
}

// goldenTool is the tool a golden call calls, in any agent's names:
// tool_name, Copilot CLI's toolName, Cline's tool_call.name.
func goldenTool(in []byte) string {
	var call struct {
		ToolName  string `json:"tool_name"`
		ToolName2 string `json:"toolName"`
		ToolCall  struct {
			Name string `json:"name"`
		} `json:"tool_call"`
	}
	if json.Unmarshal(in, &call) != nil {
		return ""
	}
	return call.ToolName + call.ToolName2 + call.ToolCall.Name
}
