//go:build darwin || freebsd || linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 37: sudo pbwrap setup followed links the user planted and
// rewrote the root-owned files they pointed to (9 of 9 cases, five
// agents), and a read-only directory did not stop it. Run as root with
// SUDO_UID and SUDO_GID, as sudo runs it, setup now acts as the user, so
// each of these stops with the reason and no file of root's changes; the
// same setup in a home without traps writes the user's files, owned by
// the user. Needs root (CI runs as root).
func TestSetupUnderSudo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: sudo pbwrap setup")
	}
	const uid, gid = 54321, 54321
	dir := realDir(t)
	for _, d := range []string{filepath.Dir(dir), dir} { // The user must reach the homes in it.
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rootDir := filepath.Join(dir, "root-owned") // root's, 0755: the user may not write in it
	if err := os.Mkdir(rootDir, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := func(name string) string {
		p := filepath.Join(rootDir, name)
		text := `{"/srv/root's": "TRUST_FOLDER"}` + "\n" // What the agent would read there, so that only the trap can stop setup.
		if strings.HasSuffix(name, ".toml") {
			text = "# root's\n"
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// home makes a home of the user's with the traps laid by lay.
	n := 0
	home := func(lay func(h string)) string {
		n++
		h := filepath.Join(dir, "home"+string(rune('a'+n)))
		if err := os.Mkdir(h, 0o755); err != nil {
			t.Fatal(err)
		}
		lay(h)
		// Everything in it is the user's, links included.
		if err := filepath.Walk(h, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, uid, gid)
		}); err != nil {
			t.Fatal(err)
		}
		return h
	}
	mkdir := func(p string) string {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, name string) {
		mkdir(filepath.Dir(name))
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	setup := func(h, agentName string) (string, error) {
		cmd := exec.Command(pbwrapBin, "setup", "--yes", agentName)
		cmd.Env = []string{"HOME=" + h, "PATH=" + os.Getenv("PATH"), "SUDO_UID=54321", "SUDO_GID=54321",
			"PBWRAP_ROOT=" + filepath.Join(h, "pbwrap-root")}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	cases := []struct {
		name, agent string
		lay         func(h string)
	}{
		{"claude: settings.json a link to root's file", "claude", func(h string) {
			link(victim("a"), filepath.Join(h, ".claude", "settings.json"))
		}},
		{"claude: ~/.claude a link to root's directory", "claude", func(h string) {
			victim("settings.json")
			link(rootDir, filepath.Join(h, ".claude"))
		}},
		{"gemini: settings.json a link to root's file", "gemini", func(h string) {
			link(victim("b"), filepath.Join(h, ".gemini", "settings.json"))
		}},
		{"gemini: trustedFolders.json a link to root's file", "gemini", func(h string) {
			mkdir(filepath.Join(h, ".gemini"))
			link(victim("c"), filepath.Join(h, ".gemini", "trustedFolders.json"))
		}},
		{"codex: hooks.json a link to root's file", "codex", func(h string) {
			link(victim("d"), filepath.Join(h, ".codex", "hooks.json"))
		}},
		{"codex: config.toml a link to root's file", "codex", func(h string) {
			mkdir(filepath.Join(h, ".codex"))
			link(victim("e.toml"), filepath.Join(h, ".codex", "config.toml"))
		}},
		{"qwen: a read-only directory", "qwen", func(h string) {
			d := mkdir(filepath.Join(h, ".qwen"))
			if err := os.WriteFile(filepath.Join(d, "settings.json"), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(d, 0o700) })
			defer func() { _ = os.Chmod(d, 0o500) }() // after the chown below
		}},
		{"copilot: the hooks directory a link to root's", "copilot", func(h string) {
			link(rootDir, filepath.Join(h, ".copilot", "hooks"))
		}},
		{"opencode: the plugin directory a link to root's", "opencode", func(h string) {
			link(rootDir, filepath.Join(h, ".config", "opencode", "plugin"))
		}},
	}
	before := map[string]string{}
	snapshot := func() map[string]string {
		m := map[string]string{}
		entries, _ := os.ReadDir(rootDir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(rootDir, e.Name()))
			m[e.Name()] = string(b)
		}
		return m
	}
	stopped := 0
	for _, c := range cases {
		h := home(c.lay)
		if c.agent == "qwen" {
			if err := os.Chmod(filepath.Join(h, ".qwen"), 0o500); err != nil {
				t.Fatal(err)
			}
		}
		before = snapshot()
		out, err := setup(h, c.agent)
		after := snapshot()
		for name, text := range after {
			if before[name] != text {
				t.Errorf("%s: root's %s changed (or appeared): %q\n%s", c.name, name, text, out)
			}
		}
		if err == nil {
			t.Errorf("%s: setup succeeded:\n%s", c.name, out)
			continue
		}
		if !strings.Contains(out, "permission denied") && !strings.Contains(out, "owned by uid") {
			t.Errorf("%s: setup failed, but not for the trap:\n%s", c.name, out)
		}
		if c.agent == "qwen" {
			if b, _ := os.ReadFile(filepath.Join(h, ".qwen", "settings.json")); string(b) != "{}\n" {
				t.Errorf("%s: the file in the read-only directory changed: %q", c.name, b)
			}
		}
		stopped++
	}
	t.Logf("%d of %d traps stopped", stopped, len(cases))

	// No traps: the user's files, the user's.
	h := home(func(string) {})
	if out, err := setup(h, "claude"); err != nil {
		t.Fatalf("setup in a plain home: %v\n%s", err, out)
	}
	fi, err := os.Stat(filepath.Join(h, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != uid || st.Gid != gid {
		t.Errorf("the new settings file is owned by %d:%d, want the user's %d:%d", st.Uid, st.Gid, uid, gid)
	}
}
