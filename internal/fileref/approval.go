package fileref

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A reference never changes who approves an edit. The hooks answer a
// rewritten call with no decision of their own, so that the agent asks
// the user as it would have; where the agent takes a rewrite only
// together with an approval that skips its user's (Protocol.Approves),
// the hook rewrites nothing and refuses the call instead. And an edit of
// a file that decides what runs (an agent's settings and hooks, git's
// directory, the user's startup files) is refused when it carries a
// reference: a model that cannot see the text it writes there could be
// led to plant a command, which the text written out, in front of the
// user, would show.

// errApproval: the agent takes a rewritten call only with the hook's
// approval, which would answer the user's question for them.
var errApproval = errors.New("this agent takes an expanded edit only together with an approval from the hook, " +
	"which would skip asking the user: pbwrap expands no reference here")

// errGuarded: the edit writes a file that decides what runs.
var errGuarded = errors.New("the edit writes a file that decides what runs (an agent's settings or hooks, " +
	"git's directory, a startup file of your home directory): a hook expands no reference into it")

// Actions said to the model when a call is refused for who approves it.
const (
	approvalAction = "Tool call denied: nothing was written. Write the text out instead of the reference; " +
		"the user is asked about the edit as usual."
)

// guardedDirs are the directories, at any depth, whose files decide what
// an agent or git runs: the agents' project settings, hooks, commands
// and skills, and git's own directory and hook managers.
var guardedDirs = []string{
	".git", ".claude", ".gemini", ".qwen", ".codex", ".opencode", ".crush", ".pi", ".copilot", ".cursor",
	".vscode", ".idea", ".husky", ".githooks", ".devcontainer", ".agents", ".kilocode", ".clinerules",
	".continue", ".factory", ".augment", ".letta",
}

// guardedNames are the files, at any depth, that decide what an agent,
// a shell or git runs.
var guardedNames = []string{
	"crush.json", ".crush.json", "opencode.json", "opencode.jsonc", ".mcp.json", ".envrc", ".gitattributes",
	".gitmodules", ".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml",
}

// guarded reports why an edit of target may not carry a reference: it
// decides what runs. target is absolute, or relative to cwd. It is
// judged as written and with its symbolic links resolved (an agent's
// write tool follows them: a link in the project may lead to ~/.bashrc),
// names compared without case (as macOS's file systems do).
func guarded(target, cwd, home string) (string, bool) {
	if !filepath.IsAbs(target) {
		if !filepath.IsAbs(cwd) {
			return "a relative path with no working directory", true
		}
		target = filepath.Join(cwd, target)
	}
	target = filepath.Clean(target)
	spellings := []string{target}
	if real := resolveExisting(target); real != target {
		spellings = append(spellings, real)
	}
	homes := []string{}
	if filepath.IsAbs(home) {
		homes = append(homes, filepath.Clean(home))
		if real, err := filepath.EvalSymlinks(home); err == nil && real != homes[0] {
			homes = append(homes, real)
		}
	}
	for _, p := range spellings {
		names := strings.Split(strings.TrimPrefix(p, "/"), "/")
		for i, n := range names {
			for _, g := range guardedDirs {
				if i < len(names)-1 && strings.EqualFold(n, g) {
					return fmt.Sprintf("%s is in %s", p, g), true
				}
			}
			if i == len(names)-1 {
				for _, g := range guardedNames {
					if strings.EqualFold(n, g) {
						return fmt.Sprintf("%s is %s", p, g), true
					}
				}
			}
			if i+1 < len(names) && strings.EqualFold(n, ".github") && strings.EqualFold(names[i+1], "hooks") {
				return fmt.Sprintf("%s is in .github/hooks", p), true
			}
		}
		for _, h := range homes {
			rel, err := filepath.Rel(h, p)
			if err == nil && rel != "." && !strings.HasPrefix(rel, "..") && strings.HasPrefix(rel, ".") {
				return fmt.Sprintf("%s is a hidden file or directory of your home directory", p), true
			}
		}
	}
	return "", false
}

// resolveExisting resolves the symbolic links along p, a link that
// leads nowhere yet included (the write would create its target), and
// returns where a write to p lands.
func resolveExisting(p string) string {
	out, rest := "/", strings.Split(strings.TrimPrefix(p, "/"), "/")
	for hops := 0; len(rest) > 0; {
		next := filepath.Join(out, rest[0])
		rest = rest[1:]
		if fi, err := os.Lstat(next); err == nil && fi.Mode()&fs.ModeSymlink != 0 && hops < 40 {
			if target, err := os.Readlink(next); err == nil {
				hops++
				if !filepath.IsAbs(target) {
					target = filepath.Join(out, target)
				}
				rest = append(strings.Split(strings.TrimPrefix(filepath.Clean(target), "/"), "/"), rest...)
				out = "/"
				continue
			}
		}
		out = next
	}
	return out
}

// targets returns the files the call of t writes: its Target member
// (none when the call has none, or the tool names no Target), or, for a
// patch, the files its headers name. ok is false when they cannot be
// told: a Target that is not a string, a patch that names no file.
func (t *Tool) targets(input *object, fields []field) (paths []string, ok bool) {
	if t.Patch {
		for _, f := range fields {
			paths = append(paths, patchTargets(f.doc.src)...)
		}
		return paths, len(paths) > 0
	}
	raw, present := input.members[t.Target]
	if t.Target == "" || !present {
		// No file named: the agent's tool, which needs one, writes none.
		return nil, true
	}
	var p string
	if json.Unmarshal(raw, &p) != nil || p == "" {
		return nil, false
	}
	return []string{p}, true
}

// patchHeaders begin the lines of an apply_patch patch that name a file.
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// patchTargets lists the files a patch names.
func patchTargets(patch []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(nil, MaxHookInput)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for _, h := range patchHeaders {
			if name, ok := strings.CutPrefix(line, strings.TrimSpace(h)); ok {
				out = append(out, strings.TrimSpace(name))
			}
		}
	}
	return out
}

// checkApproval refuses a call with references that the hook may not
// rewrite: for every call when the agent's rewrite is an approval, and
// one that writes a guarded file.
func (p *Protocol) checkApproval(t *Tool, input *object, fields []field, cwd, home string) *Error {
	if p.Approves {
		return &Error{Err: errApproval}
	}
	targets, ok := t.targets(input, fields)
	if !ok {
		return &Error{Err: fmt.Errorf("%w (%s names no file pbwrap can judge)", errGuarded, t.Name)}
	}
	for _, target := range targets {
		if why, bad := guarded(target, cwd, home); bad {
			return &Error{Err: fmt.Errorf("%w: %s", errGuarded, why)}
		}
	}
	return nil
}
