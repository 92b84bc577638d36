package agent

import (
	"strings"
	"testing"
)

// The hash and key Codex 0.171.0 wrote when its user trusted the hook
// pbwrap setup codex installs ("Trust all and continue"), for HOME
// /tmp/cx/home: setup must write the same record.
const codexHooksJSON = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "^apply_patch$",
        "hooks": [
          {
            "type": "command",
            "command": "pbwrap hook codex",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`

func TestCodexHash(t *testing.T) {
	hooks, err := codexHandlers([]byte(codexHooksJSON))
	if err != nil || len(hooks) != 1 {
		t.Fatalf("codexHooks = %v, %v", hooks, err)
	}
	const want = "sha256:01994fba73eaeb8a20e7387d7ebf30d8f81c06903b0fe36fc219242f4e8aeff1"
	if h := hooks[0]; !h.ours || h.hash != want || h.key("/tmp/cx/home/.codex/hooks.json") != "/tmp/cx/home/.codex/hooks.json:pre_tool_use:0:0" {
		t.Errorf("got %+v, key %s; want ours, hash %s", h, h.key("/tmp/cx/home/.codex/hooks.json"), want)
	}
	out, err := codexTrustInstall(nil, []byte(codexHooksJSON), "/tmp/cx/home/.codex/hooks.json")
	wantTOML := "[hooks.state.\"/tmp/cx/home/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"" + want + "\"\n"
	if err != nil || string(out) != wantTOML {
		t.Errorf("install = %q, %v; want %q", out, err, wantTOML)
	}
}

// The trust record goes in the user's config.toml with every other line
// kept, replaces a stale one in place, and goes again with --remove; the
// records of the hooks after pbwrap's move with them.
func TestCodexTrustEdits(t *testing.T) {
	const keyPath = "/h/.codex/hooks.json"
	hooks := []byte(codexHooksJSON)
	found, _ := codexHandlers(hooks)
	hash := found[0].hash
	record := "[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"" + hash + "\"\n"
	for _, tc := range []struct{ name, in, want string }{
		{"a config of the user's", "model = \"o3\" # mine\n\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n",
			"model = \"o3\" # mine\n\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n" + record},
		{"codex's own, with its final blank line", "[tui]\nx = true\n\n", "[tui]\nx = true\n\n" + record},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n" + record},
		{"a stale record, in place", "[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\nenabled = true\n\n[tui]\nx = 1\n",
			"[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"" + hash + "\"\nenabled = true\n\n[tui]\nx = 1\n"},
		{"a record with no hash", "[ hooks . state . '/h/.codex/hooks.json:pre_tool_use:0:0' ] # c\n",
			"[ hooks . state . '/h/.codex/hooks.json:pre_tool_use:0:0' ] # c\ntrusted_hash = \"" + hash + "\"\n"},
		{"crlf", "a = 1\r\n", "a = 1\r\n" + strings.ReplaceAll(record, "\n", "\r\n")},
	} {
		got, err := codexTrustInstall([]byte(tc.in), hooks, keyPath)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: install(%q) = %q, %v; want %q", tc.name, tc.in, got, err, tc.want)
			continue
		}
		if again, err := codexTrustInstall(got, hooks, keyPath); err != nil || string(again) != string(got) {
			t.Errorf("%s: installed twice: %q, %v", tc.name, again, err)
		}
		removed, err := codexTrustRemove(got, hooks, nil, keyPath)
		if err != nil {
			t.Errorf("%s: remove: %v", tc.name, err)
		}
		back := tc.in
		if !strings.HasSuffix(back, "\n") {
			back += "\n" // The line setup adds a newline to stays ended.
		}
		if !strings.Contains(tc.name, "record") && string(removed) != back {
			t.Errorf("%s: install then remove = %q, want %q", tc.name, removed, back)
		}
	}

	// TOML the edit would break, or change elsewhere, is refused.
	for _, in := range []string{
		"hooks.state = {}\n",   // an inline table: a header would define it twice
		"[hooks]\nstate = 1\n", // not a table
		"a = \"\"\"\n[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\n\"\"\"\n", // the header inside a string
		"a = [\n", // not TOML
	} {
		if out, err := codexTrustInstall([]byte(in), hooks, keyPath); err == nil {
			t.Errorf("install(%q) = %q, want an error", in, out)
		}
	}

	// pbwrap's entry first, the user's after it: removing pbwrap's moves
	// the user's from place 1 to 0, and its record with it.
	before := []byte(`{"hooks":{"PreToolUse":[{"matcher":"^apply_patch$","hooks":[{"type":"command","command":"pbwrap hook codex","timeout":30}]},{"hooks":[{"type":"command","command":"audit"}]}]}}`)
	after := []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"audit"}]}]}}`)
	in := record + "[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:aa\"\n"
	got, err := codexTrustRemove([]byte(in), before, after, keyPath)
	want := "[hooks.state.\"/h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:aa\"\n"
	if err != nil || string(got) != want {
		t.Errorf("remove with a hook after pbwrap's = %q, %v; want %q", got, err, want)
	}
}

// pbwrap doctor counts the hooks Codex would ask about at its next start.
func TestCodexUntrusted(t *testing.T) {
	hooks := []byte(codexHooksJSON)
	trusted, _ := codexTrustInstall(nil, hooks, "/h/.codex/hooks.json")
	for _, tc := range []struct {
		config string
		want   int
	}{
		{"", 1},
		{string(trusted), 0},
		{strings.Replace(string(trusted), "sha256:0", "sha256:1", 1), 1},
	} {
		if got, err := codexUntrusted([]byte(tc.config), hooks, "/h/.codex/hooks.json"); err != nil || got != tc.want {
			t.Errorf("codexUntrusted(%q) = %d, %v; want %d", tc.config, got, err, tc.want)
		}
	}
}
