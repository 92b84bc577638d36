package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// Every agent in the registry is whole: a name the command is found by, a
// title, what it reads; an agent with a hook has a hook that installs,
// is found again, expands a reference in each of its tools' fields, and
// comes out without a trace; the end-to-end suite starts every agent, or
// says why it cannot.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range All() {
		if a.Name == "" || a.Title == "" || a.Reads == "" || seen[a.Name] {
			t.Errorf("%q: a name (unique), a title and what it reads, please", a.Name)
		}
		seen[a.Name] = true
		if (a.E2E.Ready == "") == (a.E2E.Unavailable == "") {
			t.Errorf("%s: the end-to-end suite needs how to start it (E2E.Ready), or why it cannot (E2E.Unavailable)", a.Name)
		}
		if forCommand("/usr/local/bin/"+a.Name) != a {
			t.Errorf("%s: not found by its command", a.Name)
		}
		if a.Hook == nil {
			if len(a.Trust) > 0 {
				t.Errorf("%s: trust records but no hook", a.Name)
			}
			continue
		}
		t.Run(a.Name, func(t *testing.T) { checkHook(t, a) })
	}
}

func checkHook(t *testing.T, a *Agent) {
	h := a.Hook
	if h.Where == "" || h.About == "" || h.After == "" || h.AfterRemove == "" || len(h.Protocol.Tools) == 0 {
		t.Fatalf("the hook needs where it goes, what it does, when it takes effect and its tools: %+v", h)
	}
	if (h.ReadRules == nil) != (h.RulesAbout == "") {
		t.Errorf("the hook honours the agent's read rules (ReadRules) exactly when help says which (RulesAbout): %q", h.RulesAbout)
	}
	if h.Extension == nil && (h.Timeout <= 0 || h.TimeoutUnit == "" || h.Protocol.Event == "") {
		t.Fatalf("a hook in settings needs an event and a timeout: %+v", h)
	}
	snippet := h.Snippet("/opt/my bin/pbwrap")
	commands, err := h.commands(snippet)
	if err != nil || len(commands) != 1 || commands[0] != `'/opt/my bin/pbwrap' hook `+a.Name {
		t.Errorf("the snippet's hook is found as %q, %v", commands, err)
	}
	if h.Extension == nil {
		var v struct {
			Hooks map[string][]struct {
				Matcher string
				Hooks   []struct{ Command string }
			}
		}
		if err := json.Unmarshal(snippet, &v); err != nil || len(v.Hooks[h.Protocol.Event]) != 1 ||
			v.Hooks[h.Protocol.Event][0].Matcher != h.matcher() {
			t.Errorf("the snippet is not the hook's entry for %s: %s (%v)", h.Protocol.Event, snippet, err)
		}
		for _, tool := range h.Protocol.Tools {
			if !strings.Contains(h.matcher(), tool.Name) {
				t.Errorf("the matcher %q leaves out %s", h.matcher(), tool.Name)
			}
		}
	}
	if out, err := h.uninstall(snippet); err != nil || out != nil {
		t.Errorf("removing the snippet leaves %q, %v; want no file", out, err)
	}
	if !strings.Contains(Instructions(a), "{{file:") {
		t.Error("pbwrap help agents does not teach it references")
	}
	// Each field of each tool expands a reference, through the answer the
	// agent reads.
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ref := "{{file:" + src + ":2:2}}"
	for _, tool := range h.Protocol.Tools {
		var inputs []map[string]any
		for _, f := range tool.Fields {
			text := "x\n" + ref
			if tool.Patch {
				text = "*** Begin Patch\n*** Add File: " + dir + "/new\n+" + ref + "\n*** End Patch\n"
			}
			input := map[string]any{f: text, "keep": 1}
			if tool.Target != "" {
				input[tool.Target] = filepath.Join(dir, "out.txt")
			}
			inputs = append(inputs, input)
			if tool.Numbered {
				inputs = append(inputs, map[string]any{f + "_1": text, f + "_2": text, "keep": 1})
			}
		}
		if tool.List != "" {
			input := map[string]any{tool.List: []any{map[string]any{tool.Item: ref, "keep": 1}}}
			if tool.Target != "" {
				input[tool.Target] = filepath.Join(dir, "out.txt")
			}
			inputs = append(inputs, input)
		}
		for _, input := range inputs {
			in, _ := json.Marshal(map[string]any{"hook_event_name": h.Protocol.Event, "tool_name": tool.Name, "tool_input": input, "cwd": dir})
			switch h.Protocol.Reply {
			case fileref.ModifiedArgs: // Copilot CLI's names.
				in, _ = json.Marshal(map[string]any{"toolName": tool.Name, "toolArgs": input, "cwd": dir})
			case fileref.OverrideInput: // Cline's.
				in, _ = json.Marshal(map[string]any{"hookName": "tool_call", "workspaceRoots": []string{dir},
					"tool_call": map[string]any{"name": tool.Name, "input": input}})
			}
			out, err := h.Protocol.Answer(in, fileref.Scope{})
			if h.Protocol.Approves {
				// Its rewrite would approve the edit for the user: refused.
				if err != nil || !strings.Contains(string(out), "deny") || !strings.Contains(string(out), "skip asking") {
					t.Errorf("%s %v: answered %s, %v; want it refused", tool.Name, input, out, err)
				}
				continue
			}
			if err != nil || !strings.Contains(string(out), "two") || strings.Contains(string(out), "{{file:") ||
				!strings.Contains(string(out), `"keep":1`) || strings.Contains(string(out), "deny") {
				t.Errorf("%s %v: answered %s, %v; want the input whole, expanded", tool.Name, input, out, err)
			}
		}
	}
}
