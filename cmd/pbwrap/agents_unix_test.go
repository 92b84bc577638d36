//go:build darwin || freebsd || linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// opencode, wrapped, gets the root as an allowed external directory in
// OPENCODE_CONFIG_CONTENT, merged into the user's value; a value that is
// not JSON reaches it as it was, and the log says why; --no-agent-args
// and a run that is not interactive get nothing.
func TestOpencodeEnv(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opencode := filepath.Join(t.TempDir(), "opencode")
	if err := os.Symlink(self, opencode); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(realDir(t), "root")
	allow := `"external_directory":{"` + root + `/**":"allow"}`
	for _, tc := range []struct {
		name, user string
		flags      []string
		args       []string
		want, log  string
	}{
		{name: "unset", want: `{"permission":{` + allow + `}}`},
		{name: "merged", user: `{"theme": "x"}`, want: `{"theme":"x","permission":{` + allow + `}}`},
		{name: "not JSON", user: `{theme}`, want: `{theme}`,
			log: "opencode: left OPENCODE_CONFIG_CONTENT as it was, so opencode may ask before reading the saved pastes: its value is not a JSON object"},
		{name: "--no-agent-args", user: `{}`, flags: []string{"--no-agent-args"}, want: `{}`},
		{name: "not interactive", args: []string{"--version"}, want: ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "log")
			env := []string{"PBWRAP_ROOT=" + root}
			if tc.user != "" {
				env = append(env, "OPENCODE_CONFIG_CONTENT="+tc.user)
			}
			command := append(append([]string{opencode}, tc.args...), "env:OPENCODE_CONFIG_CONTENT", "exit:0")
			term := startPbwrap(t, ptytest.Job{Env: env, Command: command}, append([]string{"--log", logFile}, tc.flags...)...)
			term.WantExit("exit 0")
			if got := term.ReportLines("report", "env OPENCODE_CONFIG_CONTENT="); len(got) != 1 || got[0] != "env OPENCODE_CONFIG_CONTENT="+tc.want {
				t.Errorf("opencode got %q, want %q", got, tc.want)
			}
			log, _ := os.ReadFile(logFile)
			if tc.log != "" && !strings.Contains(string(log), tc.log) || tc.log == "" && len(log) > 0 {
				t.Errorf("log: %q, want %q", log, tc.log)
			}
		})
	}
}

// An agent that will ask because of pbwrap whatever pbwrap adds to its
// start is named, with the command that fixes it, in one line on the
// terminal before the agent starts (here Crush, which asks before each
// read of the root until pbwrap's hook is in its settings); once fixed,
// nothing is said; --no-agent-args, which adds nothing, says nothing.
func TestStartNote(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	crush := filepath.Join(t.TempDir(), "crush")
	if err := os.Symlink(self, crush); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(realDir(t), "root")
	const note = "pbwrap: Crush asks before reading each saved paste: pbwrap setup crush lets it read them without asking\r\n"
	for _, tc := range []struct {
		name  string
		hook  bool
		flags []string
		want  bool
	}{
		{name: "not set up", want: true},
		{name: "set up", hook: true},
		{name: "--no-agent-args", flags: []string{"--no-agent-args"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.hook {
				dir := filepath.Join(home, ".config", "crush")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				snippet := agent.Find("crush").Hook.Snippet("pbwrap")
				if err := os.WriteFile(filepath.Join(dir, "crush.json"), snippet, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{"PBWRAP_ROOT=" + root, "HOME=" + home, "XDG_CONFIG_HOME=", "CRUSH_GLOBAL_CONFIG="}
			term := startPbwrap(t, ptytest.Job{Env: env, Command: []string{crush, "ready", "exit:0"}}, tc.flags...)
			term.WaitOutput("READY")
			term.WantExit("exit 0")
			// The note comes first, before pbwrap takes the terminal (its
			// first escape sequence), and once.
			out := string(term.Output())
			if got := strings.Count(out, "pbwrap: "); tc.want && (!strings.HasPrefix(out, note) || got != 1) || !tc.want && got != 0 {
				t.Errorf("the terminal showed %q; want the note %q first and once: %v", out, note, tc.want)
			}
		})
	}
}
