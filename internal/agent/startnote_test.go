package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testEnv is an Env of the given variables alone.
func testEnv(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }}
}

// Gemini CLI's note says what its start will ask because of pbwrap: in a
// trusted folder, or one it is yet to ask about, the question about the
// root, unless a rule trusts the root, folder trust is off, or the folder
// is one it does not trust (where it adds the root without asking).
func TestGeminiNote(t *testing.T) {
	home := realDir(t)
	work := filepath.Join(home, "work")
	root := filepath.Join(home, ".local", "state", "pbwrap")
	for _, d := range []string{work, root, filepath.Join(home, ".gemini")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	trust := func(rules string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(rules), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	settings := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, rules, settings string
		vars                  map[string]string
		want                  string // in the note; "" for none
	}{
		{"nothing trusted yet", "", "", nil, "pbwrap setup gemini"},
		{"the folder trusted", `{"` + work + `": "TRUST_FOLDER"}`, "", nil, "whether to trust " + root},
		{"the root trusted", `{"` + work + `": "TRUST_FOLDER", "` + root + `": "TRUST_FOLDER"}`, "", nil, ""},
		{"the home trusted", `{"` + home + `": "TRUST_FOLDER"}`, "", nil, ""},
		{"the root not to be trusted", `{"` + root + `": "DO_NOT_TRUST"}`, "", nil, "will not read the saved pastes"},
		{"the folder not trusted", `{"` + work + `": "DO_NOT_TRUST"}`, "", nil, ""},
		{"the folder not trusted, but the workspace by variable", `{"` + work + `": "DO_NOT_TRUST"}`, "",
			map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}, "pbwrap setup gemini"},
		{"the workspace untrusted by variable", "", "", map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "false"}, ""},
		{"folder trust off", "", `{"security": {"folderTrust": {"enabled": false}}}`, nil, ""},
		{"folder trust on", "", `{"security": {"folderTrust": {"enabled": true}}}`, nil, "pbwrap setup gemini"},
		{"a broken trusted folders file", `{"/x": "YES"}`, "", nil, ""},
	} {
		trust(tc.rules)
		settings(tc.settings)
		vars := map[string]string{"HOME": home}
		for k, v := range tc.vars {
			vars[k] = v
		}
		note := StartNote([]string{"gemini"}, testEnv(vars), work, root)
		got := note.Render(func(s string) string { return s })
		switch {
		case tc.want == "" && !note.IsZero():
			t.Errorf("%s: note %q, want none", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: note %q, want one with %q", tc.name, got, tc.want)
		}
	}
	// No note for a run that is not the interactive agent, or an agent
	// without one.
	trust("")
	vars := testEnv(map[string]string{"HOME": home})
	for _, argv := range [][]string{{"gemini", "-p", "hi"}, {"gemini", "mcp", "list"}, {"claude"}, {"nosuchagent"}} {
		if note := StartNote(argv, vars, work, root); !note.IsZero() {
			t.Errorf("%q: note %q, want none", argv, note.Render(func(s string) string { return s }))
		}
	}
}

// Crush's note stands until pbwrap's hook is in its settings.
func TestCrushNote(t *testing.T) {
	home := realDir(t)
	vars := testEnv(map[string]string{"HOME": home})
	if note := StartNote([]string{"crush"}, vars, home, "/r"); !strings.Contains(note.Format, "pbwrap setup crush") {
		t.Errorf("no hook: note %q, want the setup command", note.Format)
	}
	file, _ := crushConfig(vars)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, crushHook.Snippet("pbwrap"), 0o600); err != nil {
		t.Fatal(err)
	}
	if note := StartNote([]string{"crush"}, vars, home, "/r"); !note.IsZero() {
		t.Errorf("with the hook: note %q, want none", note.Format)
	}
}
