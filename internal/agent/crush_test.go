package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Crush's hook entries are flat, {"matcher", "command", "timeout"}
// (internal/config/config.go, HookConfig): setup adds one beside the
// user's, finds it again whatever its matcher, changes only the command
// of one running another pbwrap, and removes it alone.
func TestCrushHookFlat(t *testing.T) {
	h := crush.Hook
	mine := `{"name":"no-rm-rf","matcher":"^bash$","command":"./hooks/no-rm-rf.sh"}`
	ours := `{"matcher":"^(write|edit|multiedit|view)$","command":"pbwrap hook crush","timeout":30}`
	for _, tc := range []struct{ name, in, want string }{
		{"beside the user's", `{"hooks":{"PreToolUse":[` + mine + `]}}`, `{"hooks":{"PreToolUse":[` + mine + `,` + ours + `]}}`},
		{"another pbwrap's", `{"hooks":{"PreToolUse":[{"matcher":"write","command":"/opt/pbwrap hook crush"}]}}`,
			`{"hooks":{"PreToolUse":[{"matcher":"write","command":"pbwrap hook crush"}]}}`},
		{"no hooks yet", `{"models":{}}`, `{"models":{},"hooks":{"PreToolUse":[` + ours + `]}}`},
	} {
		got, _, err := h.install([]byte(tc.in), "pbwrap")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: install(%q) = %q, %v; want %q", tc.name, tc.in, got, err, tc.want)
			continue
		}
		if commands, err := h.commands(got); err != nil || len(commands) != 1 {
			t.Errorf("%s: found %q, %v; want our one hook", tc.name, commands, err)
		}
		checkRemove(t, h, []byte(tc.in), got)
	}
	got, err := h.uninstall([]byte(`{"hooks":{"PreToolUse":[` + mine + `,` + ours + `]}}`))
	if want := `{"hooks":{"PreToolUse":[` + mine + `]}}`; err != nil || string(got) != want {
		t.Errorf("remove beside the user's = %q, %v; want %q", got, err, want)
	}
	// A Claude Code entry naming pbwrap's hook is not a Crush entry: Crush
	// would refuse it (no command), so it is not taken for pbwrap's.
	nested := `{"hooks":{"PreToolUse":[{"matcher":"x","hooks":[{"type":"command","command":"pbwrap hook crush"}]}]}}`
	if commands, err := h.commands([]byte(nested)); err != nil || len(commands) != 0 {
		t.Errorf("a nested entry: found %q, %v; want none", commands, err)
	}
}

// Crush's settings file, as its GlobalConfig finds it.
func TestCrushConfig(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CRUSH_GLOBAL_CONFIG": "/g", "XDG_CONFIG_HOME": "/x"}, "/g/crush.json"},
		{map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/crush/crush.json"},
		{map[string]string{"HOME": "/h"}, "/h/.config/crush/crush.json"},
	} {
		env := Env{Getenv: func(k string) string { return tc.env[k] }}
		if got, err := crushConfig(env); err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}

// pbwrap doctor says Crush asks before reading the root until pbwrap's
// hook is in its settings.
func TestCheckCrushReads(t *testing.T) {
	dir := t.TempDir()
	env := Env{Getenv: func(k string) string {
		if k == "CRUSH_GLOBAL_CONFIG" {
			return dir
		}
		return ""
	}}
	if f := checkCrushReads(env, "/r"); len(f) != 1 || f[0].Problem.IsZero() {
		t.Errorf("no settings: %+v; want a problem", f)
	}
	if err := os.WriteFile(filepath.Join(dir, "crush.json"), crush.Hook.Snippet("pbwrap"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := checkCrushReads(env, "/r")
	if len(f) != 1 || !f[0].Problem.IsZero() || !strings.Contains(f[0].Line.Format, "without asking") {
		t.Errorf("with the hook: %+v; want no problem", f)
	}
}
