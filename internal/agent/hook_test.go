package agent

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/jsonc"
	"github.com/pbwrap/pbwrap/internal/shellword"
)

func TestSetupInstall(t *testing.T) {
	h := claude.Hook
	tests := []struct {
		name, in, want string
	}{
		{
			name: "one line stays one line",
			in:   `{"a":1,"hooks":{"Stop":[]}}`,
			want: `{"a":1,"hooks":{"Stop":[],"PreToolUse":[{"matcher":"Write|Edit|MultiEdit|NotebookEdit","hooks":[{"type":"command","command":"pbwrap hook claude","timeout":30}]}]}}`,
		},
		{
			name: "tabs, no final newline",
			in:   "{\n\t\"b\": [\n\t\t1\n\t]\n}",
			want: "{\n\t\"b\": [\n\t\t1\n\t],\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"Write|Edit|MultiEdit|NotebookEdit\",\n" +
				"\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"pbwrap hook claude\",\n" +
				"\t\t\t\t\t\t\"timeout\": 30\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}",
		},
		{
			name: "null hooks, values kept as written",
			in:   "{\"hooks\": null, \"n\": 1e3, \"s\": \"\\u00e9<>\"}\n",
			want: `{"hooks": {"PreToolUse":[{"matcher":"Write|Edit|MultiEdit|NotebookEdit","hooks":[{"type":"command","command":"pbwrap hook claude","timeout":30}]}]}, "n": 1e3, "s": "\u00e9<>"}` + "\n",
		},
		{
			name: "entries laid out as in the README stay as they are",
			in: "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n" +
				"        \"hooks\": [{ \"type\": \"command\", \"command\": \"x\" }]\n      }\n    ]\n  }\n}\n",
			want: "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n" +
				"        \"hooks\": [{ \"type\": \"command\", \"command\": \"x\" }]\n      },\n      {\n" +
				"        \"matcher\": \"Write|Edit|MultiEdit|NotebookEdit\",\n        \"hooks\": [\n          {\n" +
				"            \"type\": \"command\",\n            \"command\": \"pbwrap hook claude\",\n            \"timeout\": 30\n" +
				"          }\n        ]\n      }\n    ]\n  }\n}\n",
		},
		{
			name: "an element on the bracket's line, an empty hooks",
			in:   "{\n  \"a\": [{\n    \"b\": 1\n  }],\n  \"hooks\": {}\n}\n",
			want: "{\n  \"a\": [{\n    \"b\": 1\n  }],\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n" +
				"        \"matcher\": \"Write|Edit|MultiEdit|NotebookEdit\",\n        \"hooks\": [\n          {\n" +
				"            \"type\": \"command\",\n            \"command\": \"pbwrap hook claude\",\n            \"timeout\": 30\n" +
				"          }\n        ]\n      }\n    ]\n  }\n}\n",
		},
		{
			name: "another binary's hook: its command alone changes",
			in:   `{"hooks":{"PreToolUse":[{"matcher":"Write","hooks":[{"command":"'/my dir/pbwrap' hook claude","type":"command","x":1}]}]}}`,
			want: `{"hooks":{"PreToolUse":[{"matcher":"Write","hooks":[{"command":"pbwrap hook claude","type":"command","x":1}]}]}}`,
		},
		{
			name: "another agent's hook is not ours",
			in:   `{"hooks":{"PreToolUse":[{"hooks":[{"command":"pbwrap hook codex"}]}]}}`,
			want: `{"hooks":{"PreToolUse":[{"hooks":[{"command":"pbwrap hook codex"}]},{"matcher":"Write|Edit|MultiEdit|NotebookEdit","hooks":[{"type":"command","command":"pbwrap hook claude","timeout":30}]}]}}`,
		},
	}
	for _, tt := range tests {
		got, changed, err := h.install([]byte(tt.in), "pbwrap")
		if err != nil || !changed || string(got) != tt.want {
			t.Errorf("%s: install(%q) = %q, %t, %v; want %q", tt.name, tt.in, got, changed, err, tt.want)
			continue
		}
		again, changed, err := h.install(got, "pbwrap")
		if err != nil || changed || string(again) != string(got) {
			t.Errorf("%s: installed twice: %q, changed %t, %v", tt.name, again, changed, err)
		}
	}
}

func TestSetupInstallRefuses(t *testing.T) {
	h := claude.Hook
	for _, in := range []string{`[]`, `{"a":1} {}`, `{"a":}`, `{"hooks":[]}`, `{"hooks":{"PreToolUse":{}}}`, `// c` + "\n{}"} {
		if out, _, err := h.install([]byte(in), "pbwrap"); err == nil {
			t.Errorf("install(%q) = %q, want an error", in, out)
		}
	}
}

func TestProgramOfCommand(t *testing.T) {
	for _, prog := range []string{"pbwrap", "/usr/local/bin/pbwrap", "/a b/pbwrap", "/it's/pbwrap", `/x"$y\/pbwrap`} {
		c := shellword.Quote(prog) + " hook gemini"
		got, ok := programOf(c, "gemini")
		if !ok || got != prog {
			t.Errorf("programOf(%q) = %q, %t; want %q", c, got, ok, prog)
		}
	}
	for _, c := range []string{"pbwrap hook", "pbwrap hook claude x", "other hook claude", "pbwrap hook 'claude", "pbwrap hook gemini"} {
		if prog, ok := programOf(c, "claude"); ok {
			t.Errorf("programOf(%q, claude) = %q, want not pbwrap's", c, prog)
		}
	}
}

func TestPiExtensionFor(t *testing.T) {
	if got := string(pi.Hook.Extension.forProg("pbwrap")); got != piExtension {
		t.Error("pi.Hook.Extension.forProg(pbwrap) is not the extension pbwrap help agents pi-extension prints")
	}
	for _, prog := range []string{"pbwrap", `/a "b"/pbwrap`} {
		got, ok := pi.Hook.Extension.programOf(pi.Hook.Extension.forProg(prog))
		if !ok || got != prog {
			t.Errorf("pi.Hook.Extension.programOf(pi.Hook.Extension.forProg(%q)) = %q, %t", prog, got, ok)
		}
	}
	if !strings.Contains(string(pi.Hook.Extension.forProg("/x/pbwrap")), `spawn("/x/pbwrap", ["hook", "pi"]`) {
		t.Error("piExtensionFor does not run the program it is given")
	}
}

// Comments, where the agent reads them (Gemini CLI), stay where they are.
func TestSetupInstallKeepsComments(t *testing.T) {
	h := gemini.Hook
	in := "{\n  // mine\n  \"a\": [1, /* two */ 2] // last\n}\n"
	want := "{\n  // mine\n  \"a\": [1, /* two */ 2],\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\n" +
		"        \"matcher\": \"^(write_file|replace)$\",\n        \"hooks\": [\n          {\n" +
		"            \"type\": \"command\",\n            \"command\": \"pbwrap hook gemini\",\n            \"timeout\": 30000\n" +
		"          }\n        ]\n      }\n    ]\n  } // last\n}\n"
	got, changed, err := h.install([]byte(in), "pbwrap")
	if err != nil || !changed || string(got) != want {
		t.Fatalf("install(%q) = %q, %t, %v; want %q", in, got, changed, err, want)
	}
	if again, changed, err := h.install(got, "pbwrap"); err != nil || changed || string(again) != want {
		t.Errorf("installed twice: %q, %t, %v", again, changed, err)
	}
	// Claude Code's settings are plain JSON: a comment is an error there.
	if _, _, err := claude.Hook.install([]byte(in), "pbwrap"); err == nil {
		t.Error("claude: a settings file with comments was taken")
	}
}

// Regression (review finding 7): a Gemini CLI settings file of comments
// only was taken for no file, and replaced: its comments were lost. They
// stay, and the object follows them; a file that ends inside a /* comment
// is left alone, since an object after it would be part of the comment.
func TestSetupInstallAfterComments(t *testing.T) {
	h := gemini.Hook
	object, _, err := h.install(nil, "pbwrap")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"// my gemini settings\n// {\"theme\": \"dark\"}\n", "// my gemini settings\n// {\"theme\": \"dark\"}\n" + string(object)},
		{"/* mine */", "/* mine */\n" + string(object)},
		{"// no final newline", "// no final newline\n" + string(object)},
		{"// crlf\r\n", "// crlf\r\n" + strings.ReplaceAll(string(object), "\n", "\r\n")},
		{"\n \n", string(object)},
	} {
		got, changed, err := h.install([]byte(tc.in), "pbwrap")
		if err != nil || !changed || string(got) != tc.want {
			t.Errorf("install(%q) = %q, %t, %v; want %q", tc.in, got, changed, err, tc.want)
			continue
		}
		if again, changed, err := h.install(got, "pbwrap"); err != nil || changed || string(again) != tc.want {
			t.Errorf("install(%q) twice: %q, %t, %v", tc.in, again, changed, err)
		}
	}
	if out, _, err := h.install([]byte("/* not closed\n"), "pbwrap"); err == nil {
		t.Errorf("install into an unclosed comment = %q, want an error", out)
	}
}

// Regression (review finding 7): what setup added to a file with CRLF line
// endings ended its lines with LF alone, a mix. It ends them as the file
// does.
func TestSetupInstallKeepsCRLF(t *testing.T) {
	for _, tc := range []struct {
		agent, in string
	}{
		{"claude", "{\n  \"model\": \"opus\"\n}\n"},
		{"claude", "{\n  \"hooks\": null\n}\n"},
		{"claude", "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"hooks\": []\n      }\n    ]\n  }\n}"},
		{"gemini", "{\n  // mine\n  \"a\": [1, /* two */ 2] // last\n}\n"},
	} {
		s := Find(tc.agent).Hook
		lf, _, err := s.install([]byte(tc.in), "pbwrap")
		if err != nil {
			t.Fatalf("%s: install(%q): %v", tc.agent, tc.in, err)
		}
		in := strings.ReplaceAll(tc.in, "\n", "\r\n")
		want := strings.ReplaceAll(string(lf), "\n", "\r\n")
		got, changed, err := s.install([]byte(in), "pbwrap")
		if err != nil || !changed || string(got) != want {
			t.Errorf("%s: install(%q) = %q, %t, %v; want %q", tc.agent, in, got, changed, err, want)
		}
	}
}

// Whatever settings setup takes, what it writes is valid, holds the hook
// once, and a second run changes nothing.
func FuzzSetupInstall(f *testing.F) {
	for _, seed := range []string{
		"", "{}", `{"hooks":null}`, "{\n  \"a\": [\n    1\n  ]\n}\n", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"x"}]}]}}`,
		"{\n\t\"hooks\": {\n\t\t\"PreToolUse\": []\n\t}\n}", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"/o/pbwrap hook claude"}]},7]}}`,
		"{ // c\n\"a\": {} /* d */ }", "// c", "/* c", "{\r\n  \"a\": [\r\n    1\r\n  ]\r\n}\r\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, s := range []*Hook{claude.Hook, gemini.Hook} {
			out, _, err := s.install([]byte(in), "pbwrap")
			if err != nil {
				continue
			}
			var v any
			if err := json.Unmarshal(jsonc.StripComments(out), &v); err != nil {
				t.Fatalf("%s: install(%q) wrote %q, not JSON: %v", s.agent, in, out, err)
			}
			commands, err := s.commands(out)
			if err != nil || len(commands) == 0 {
				t.Fatalf("%s: install(%q) wrote %q, where the hook is not found (%v)", s.agent, in, out, err)
			}
			again, changed, err := s.install(out, "pbwrap")
			if err != nil || changed || string(again) != string(out) {
				t.Fatalf("%s: install twice from %q: %q, changed %t, %v", s.agent, in, again, changed, err)
			}
			checkRemove(t, s, []byte(in), out)
		}
	})
}

// checkRemove checks setup --remove on out, what install made of in:
// the hook is gone, a second removal changes nothing, and when in had no
// hooks at all, what is left is in, byte for byte.
func checkRemove(t *testing.T, s *Hook, in, out []byte) {
	t.Helper()
	removed, err := s.uninstall(out)
	if err != nil {
		t.Fatalf("%s: remove from %q: %v", s.agent, out, err)
	}
	if removed != nil {
		if commands, err := s.commands(removed); err != nil || len(commands) > 0 {
			t.Fatalf("%s: remove from %q left %q, with hooks %q (%v)", s.agent, out, removed, commands, err)
		}
		if again, err := s.uninstall(removed); err != nil || string(again) != string(removed) {
			t.Fatalf("%s: removed twice from %q: %q, %v", s.agent, out, again, err)
		}
	}
	plain := in
	if s.comments {
		plain = jsonc.StripComments(in)
	}
	top, err := jsonc.ParseObject(plain)
	if err != nil || top.Get("hooks") != nil || len(top) == 0 {
		return // Blank, or a hooks of its own: what remove leaves differs.
	}
	if string(removed) != string(in) {
		t.Fatalf("%s: install then remove: %q became %q", s.agent, in, removed)
	}
}

// setup --remove takes out what install put in, and only that: in a file
// that had no hooks the file is as it was; other hooks stay, each byte.
func TestSetupRemove(t *testing.T) {
	h := claude.Hook
	ours := `{"type":"command","command":"pbwrap hook claude","timeout":30}`
	for _, tc := range []struct{ name, in, want string }{
		{"ours alone, one line", `{"a":1,"hooks":{"PreToolUse":[{"matcher":"W","hooks":[` + ours + `]}]}}`, `{"a":1}`},
		{"ours among others in its entry", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"x"},` + ours + `]}]}}`,
			`{"hooks":{"PreToolUse":[{"hooks":[{"command":"x"}]}]}}`},
		{"ours first in its entry", `{"hooks":{"PreToolUse":[{"hooks":[` + ours + `, {"command":"x"}]}]}}`,
			`{"hooks":{"PreToolUse":[{"hooks":[{"command":"x"}]}]}}`},
		{"ours an entry among others", "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"hooks\": [" + ours + "]},\n      {\"hooks\": []}\n    ]\n  }\n}\n",
			"{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"hooks\": []}\n    ]\n  }\n}\n"},
		{"another event stays", `{"hooks":{"Stop":[],"PreToolUse":[{"hooks":[` + ours + `]}]}}`, `{"hooks":{"Stop":[]}}`},
		{"twice, and another binary's", `{"hooks":{"PreToolUse":[{"hooks":[` + ours + `]},{"hooks":[{"command":"/o/pbwrap hook claude"}]}]}}`, ``},
		{"another agent's hook is not ours", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"pbwrap hook codex"}]}]}}`,
			`{"hooks":{"PreToolUse":[{"hooks":[{"command":"pbwrap hook codex"}]}]}}`},
		{"nothing of ours", `{"hooks":7}`, `{"hooks":7}`},
	} {
		got, err := h.uninstall([]byte(tc.in))
		if err != nil || string(got) != tc.want || (got == nil) != (tc.want == "") {
			t.Errorf("%s: remove(%q) = %q, %v; want %q", tc.name, tc.in, got, err, tc.want)
		}
	}
	if got, err := h.uninstall([]byte(`{"a":`)); err == nil {
		t.Errorf("remove from a broken file = %q, want an error", got)
	}
	// pbwrap's Pi extension goes; a file of that name that is not pbwrap's stays.
	if got, err := pi.Hook.uninstall(pi.Hook.Extension.forProg("pbwrap")); err != nil || got != nil {
		t.Errorf("pi: remove the extension = %q, %v; want the file removed", got, err)
	}
	if got, err := pi.Hook.uninstall([]byte("// mine\n")); err != nil || string(got) != "// mine\n" {
		t.Errorf("pi: remove from a file of the user's = %q, %v; want it as it was", got, err)
	}
}

// Gemini CLI's trusted folders: the root's rule is added where no rule
// trusts it, and removed as added; the user's rules stay.
func TestGeminiTrust(t *testing.T) {
	root := t.TempDir()
	q := string(jsonc.String(root))
	for _, tc := range []struct{ in, want string }{
		{"", "{\n  " + q + ": \"TRUST_FOLDER\"\n}\n"},
		{"{\n  \"/src\": \"TRUST_FOLDER\"\n}\n", "{\n  \"/src\": \"TRUST_FOLDER\",\n  " + q + ": \"TRUST_FOLDER\"\n}\n"},
		{"{" + q + ": \"DO_NOT_TRUST\"}", "{" + q + ": \"TRUST_FOLDER\"}"},
		{"// mine\n{\"/x/y\": \"TRUST_PARENT\"}", "// mine\n{\"/x/y\": \"TRUST_PARENT\", " + q + ": \"TRUST_FOLDER\"}"},
		// A rule that trusts it already: nothing to add.
		{"{" + string(jsonc.String(filepath.Dir(root))) + ": \"TRUST_FOLDER\"}", "{" + string(jsonc.String(filepath.Dir(root))) + ": \"TRUST_FOLDER\"}"},
	} {
		got, err := geminiTrustInstall([]byte(tc.in), root)
		if err != nil || string(got) != tc.want {
			t.Errorf("install(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			continue
		}
		if again, err := geminiTrustInstall(got, root); err != nil || string(again) != string(got) {
			t.Errorf("install(%q) twice = %q, %v", tc.in, again, err)
		}
		removed, err := geminiTrustRemove(got, root)
		if err != nil {
			t.Errorf("remove(%q): %v", got, err)
		}
		if tc.in == "" && removed != nil || strings.Contains(tc.in, "/src") && string(removed) != tc.in {
			t.Errorf("remove(%q) = %q, want %q", got, removed, tc.in)
		}
	}
	if _, err := geminiTrustInstall([]byte(`{"/x": 3}`), root); err == nil {
		t.Error("install into a file with a bad level: no error")
	}
}
