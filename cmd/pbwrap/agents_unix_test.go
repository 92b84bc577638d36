//go:build darwin || freebsd || linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
