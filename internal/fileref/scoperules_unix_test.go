//go:build darwin || freebsd || linux

package fileref

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 28: what a hostile agent (or a careless setting) can name in a
// reference, against the scope's rules: the home directory as a working
// directory, its hidden directories, a root that is not pbwrap's, files in
// the root outside a session, and the agent's own read rules. Each row is
// one reference; why is "" when it must expand, else part of the reason
// the model must be shown. The secret never comes out of a denied row.
func TestHookScopeRules(t *testing.T) {
	openers(t, func(t *testing.T) {
		home := realDir(t)
		const sid = "0190b5a0-7c3e-7d2a-9f00-0123456789ab"
		secret := func(p string) string { writeFile(t, p, "SECRET\n"); return p }
		mkdir := func(p string) string {
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			return p
		}
		proj := mkdir(filepath.Join(home, "proj"))
		writeFile(t, filepath.Join(proj, "main.go"), "package main\n")
		writeFile(t, filepath.Join(proj, ".env.example"), "KEY=\n")
		secret(filepath.Join(proj, ".env"))
		secret(filepath.Join(proj, "secrets", "db.txt"))
		key := secret(filepath.Join(mkdir(filepath.Join(home, ".ssh")), "id_ed25519"))
		nvim := mkdir(filepath.Join(home, ".config", "nvim"))
		writeFile(t, filepath.Join(nvim, "init.lua"), "-- init\n")
		secret(filepath.Join(home, ".config", "gh", "hosts.yml"))
		writeFile(t, filepath.Join(home, "notes.txt"), "notes\n")
		root := mkdir(filepath.Join(home, ".local", "state", "pbwrap"))
		writeFile(t, filepath.Join(mkdir(filepath.Join(root, sid)), "paste-1.txt"), "a paste\n")
		secret(filepath.Join(root, "planted.txt"))
		secret(filepath.Join(mkdir(filepath.Join(root, "not-a-session")), "x.txt"))

		session := func(name string) bool { return len(name) == len(sid) && strings.Count(name, "-") == 4 }
		deny := func(cwd, path string) (string, bool) {
			if filepath.Base(path) == ".env" || strings.Contains(path, "/secrets/") {
				return "Read(./.env) in " + cwd + "/.claude/settings.json", true
			}
			return "", false
		}
		base := Scope{Roots: []string{root}, Session: session, Home: home, Deny: deny}
		allowHome := base
		allowHome.Allow = []string{home}
		sshRoot := base
		sshRoot.Roots = []string{filepath.Join(home, ".ssh")}
		allowSSH := allowHome
		allowSSH.Allow = []string{home, filepath.Join(home, ".ssh")}

		// The working directory through a symbolic link, the agent's rule
		// written for that spelling, the reference for the real one.
		linkCwd := filepath.Join(realDir(t), "work")
		if err := os.Symlink(proj, linkCwd); err != nil {
			t.Fatal(err)
		}
		spelt := base
		spelt.Deny = func(cwd, path string) (string, bool) {
			return "Read(./.env)", path == filepath.Join(linkCwd, ".env")
		}
		// The home directory named through a symbolic link.
		linkHome := filepath.Join(realDir(t), "home")
		if err := os.Symlink(home, linkHome); err != nil {
			t.Fatal(err)
		}
		viaLink := allowHome
		viaLink.Home = linkHome
		inState := filepath.Join(home, ".local", "state")

		tests := []struct {
			name string
			cwd  string
			sc   Scope
			path string
			why  string
		}{
			{"a project file", proj, base, filepath.Join(proj, "main.go"), ""},
			{"a hidden file of the project", proj, base, filepath.Join(proj, ".env.example"), ""},
			{"a paste in a session", proj, base, filepath.Join(root, sid, "paste-1.txt"), ""},
			{"the agent's deny rule", proj, base, filepath.Join(proj, ".env"), "the agent's settings deny reading it (Read(./.env) in"},
			{"the agent's deny rule below", proj, base, filepath.Join(proj, "secrets", "db.txt"), "deny reading it"},
			{"cwd is home", home, base, key, "your home directory or above it"},
			{"cwd is home, a plain file", home, base, filepath.Join(home, "notes.txt"), "your home directory or above it"},
			{"cwd is above home", filepath.Dir(home), base, key, "your home directory or above it"},
			{"home allowed, a plain file", home, allowHome, filepath.Join(home, "notes.txt"), ""},
			{"home allowed, its ~/.ssh", home, allowHome, key, "hidden directory of your home"},
			{"home allowed, its ~/.config", home, allowHome, filepath.Join(home, ".config", "gh", "hosts.yml"), "hidden directory"},
			{"home allowed, .. into ~/.ssh", home, allowHome, home + "/proj/../.ssh/id_ed25519", "hidden directory"},
			{"~/.ssh allowed by name", home, allowSSH, key, ""},
			{"cwd inside ~/.config/nvim", nvim, base, filepath.Join(nvim, "init.lua"), ""},
			{"cwd inside ~/.config/nvim, a sibling", nvim, base, filepath.Join(home, ".config", "gh", "hosts.yml"), "outside the working directory"},
			{"a file planted in the root", proj, base, filepath.Join(root, "planted.txt"), "only the files of a session directory"},
			{"a directory in the root that is no session", proj, base, filepath.Join(root, "not-a-session", "x.txt"), "session directory"},
			{"out of a session by ..", proj, base, filepath.Join(root, sid) + "/../planted.txt", "session directory"},
			{"PBWRAP_ROOT=~/.ssh", proj, sshRoot, key, "session directory"},
			{"into the root by .. from the cwd above it", inState, base, inState + "/x/../pbwrap/planted.txt", "session directory"},
			{"a deny rule for the cwd's other spelling", linkCwd, spelt, filepath.Join(proj, ".env"), "deny reading it"},
			{"home named through a link, cwd the real home", home, Scope{Home: linkHome}, filepath.Join(home, "notes.txt"), "your home directory or above it"},
			{"home named through a link, its ~/.ssh", home, viaLink, key, "hidden directory"},
		}
		for _, tt := range tests {
			out, err := writeProto.Answer(claudeWrite(tt.cwd, "{{file:"+tt.path+":1:1}}"), tt.sc)
			switch {
			case err != nil:
				t.Errorf("%s: %v", tt.name, err)
			case tt.why != "" && bytes.Contains(out, []byte("SECRET")):
				t.Errorf("%s: %s: the secret came out", tt.name, out)
			case tt.why == "" && !bytes.Contains(out, []byte("updatedInput")):
				t.Errorf("%s: %s, want it expanded", tt.name, out)
			case tt.why != "" && !denied(out, tt.why):
				t.Errorf("%s: %s, want it denied saying %q", tt.name, out, tt.why)
			}
		}
	})
}
