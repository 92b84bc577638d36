//go:build darwin || freebsd || linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/pbwrap/pbwrap/internal/agent"
)

// runDoctorCmd runs pbwrap doctor with args and only the environment env,
// in a session of its own (no terminal to ask), and returns its output and
// exit status; a doctor that does not end fails the test at the watchdog
// instead of hanging it.
func runDoctorCmd(t *testing.T, env []string, args ...string) (stdout string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(pbwrapBin, append([]string{"doctor"}, args...)...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err := runWithin(t, cmd)
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if errOut.Len() > 0 {
		t.Errorf("pbwrap doctor wrote to stderr: %q", errOut.String())
	}
	return out.String(), code
}

// fakeAgents makes a directory of programs named after agents, each a
// script that exits 0, for doctor to find on PATH.
func fakeAgents(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// controlIn returns the first character of out that is not printable on
// a terminal (a C0 or C1 control other than newline, DEL, a format
// character such as U+202E), and false when there is none.
func controlIn(out string) (rune, bool) {
	for i, r := range out {
		switch {
		case r == '\n':
		case r == utf8.RuneError && !strings.HasPrefix(out[i:], string(utf8.RuneError)):
			return r, true
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == '\u202e', r == '\u200b':
			return r, true
		}
	}
	return 0, false
}

// hostile is what the hostile set-up of doctor's tests puts in every value
// it controls: a title change, a screen clear, U+202E and a byte that is
// not UTF-8.
const hostile = "\x1b]0;pwned\a\x1b[2J\u202e\xff"

// hostileDoctorEnv is an environment for pbwrap doctor with hostile in
// every value doctor shows: an agent's settings, the config file (a root,
// a bad setting), TERM, a bad setting in the environment, the agents'
// own variables.
func hostileDoctorEnv(t *testing.T) []string {
	t.Helper()
	home, xdg, work := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A hook of pbwrap's whose program has the escapes in its name.
	write(filepath.Join(home, ".claude", "settings.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"'/x\u001b]0;pwned\u0007\u001b[2J/pbwrap' hook claude"}]}]}}`)
	// A root, a bad setting, in the config file.
	write(filepath.Join(xdg, "pbwrap", "config"),
		"PBWRAP_ROOT="+filepath.Join(work, "r"+hostile)+"\nPBWRAP_TTL=1"+hostile+"\n")
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + xdg,
		"PATH=" + fakeAgents(t, "claude", "gemini", "opencode"),
		"TERM=xterm" + hostile,
		"PBWRAP_MIN_BYTES=1" + hostile, // A bad setting from the environment.
		"OPENCODE_CONFIG_CONTENT=" + hostile,
		"GEMINI_CLI_TRUSTED_FOLDERS_PATH=" + filepath.Join(work, "t"+hostile+".json"),
	}
}

// Regression (review finding 3): pbwrap doctor printed values from an
// agent's settings, the config file and the environment as they were, so
// an agent that wrote escape sequences in its settings could set the
// terminal's title or clear its screen when the user ran doctor.
func TestDoctorEscapesWhatItShows(t *testing.T) {
	env := hostileDoctorEnv(t)
	out, code := runDoctorCmd(t, env)
	if code != 1 {
		t.Errorf("pbwrap doctor exited %d, want 1 (bad settings); output:\n%s", code, out)
	}
	if r, ok := controlIn(out); ok {
		t.Errorf("pbwrap doctor printed %U as it is:\n%s", r, out)
	}
	for _, want := range []string{
		`--ttl                  "1\x1b]0;pwned\a`,
		`env (PBWRAP_MIN_BYTES)`,
		`runs "'/x\x1b]0;pwned\a\x1b[2J/pbwrap' hook claude"`,
		`TERM="xterm\x1b]0;pwned`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pbwrap doctor's output has no %q:\n%s", want, out)
		}
	}
}

// Regression (review finding 3): pbwrap doctor read an agent's settings
// with os.ReadFile, so a named pipe there made it wait for a writer
// forever, and a link to /dev/zero read until memory ran out. It reads
// them as setup does, and says what is wrong.
func TestDoctorSettingsNotARegularFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "is not a regular file"},
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "is not a regular file"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "is not a regular file"},
		{"too large", func(p string) error {
			return os.WriteFile(p, bytes.Repeat([]byte(" "), agent.MaxSettingsBytes+1), 0o600)
		}, "is larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			settings := filepath.Join(home, ".claude", "settings.json")
			if err := os.Mkdir(filepath.Dir(settings), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(settings); err != nil {
				t.Fatal(err)
			}
			out, code := runDoctorCmd(t, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + t.TempDir(),
				"PATH=" + fakeAgents(t, "claude"), "PBWRAP_ROOT=" + filepath.Join(t.TempDir(), "r")})
			if code != 1 {
				t.Errorf("pbwrap doctor exited %d, want 1; output:\n%s", code, out)
			}
			line := "      hook: cannot be read: " + settings + " " + tc.want
			problem := "  - claude's settings cannot be read: " + settings + " " + tc.want
			if !strings.Contains(out, line) || !strings.Contains(out, problem) {
				t.Errorf("pbwrap doctor's output has no %q, or no %q:\n%s", line, problem, out)
			}
		})
	}
}
