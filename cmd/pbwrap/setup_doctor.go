package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// checkHook says, for pbwrap doctor, whether pbwrap's hook for the agent
// is installed in its user settings and which binary it runs; a hook that
// runs a missing binary, or a binary other than this pbwrap, is a
// problem, since the agent's edits with references would fail, or be
// expanded by another version's rules.
func (d *doctor) checkHook(agent string) {
	s := findHookSpec(agent)
	if s == nil {
		return
	}
	file, err := s.file()
	if err != nil {
		fmt.Printf("      hook: not looked for (%v)\n", err)
		return
	}
	text, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Printf("      hook: not installed (pbwrap setup %s installs it)\n", agent)
		return
	}
	if err != nil {
		fmt.Printf("      hook: %s cannot be read: %v\n", file, err)
		return
	}
	commands, err := s.hookCommands(text)
	if err != nil {
		fmt.Printf("      hook: not found in %s (%v)\n", file, err)
		return
	}
	if len(commands) == 0 {
		fmt.Printf("      hook: not installed in %s (pbwrap setup %s installs it)\n", file, agent)
		return
	}
	for _, c := range commands {
		prog, _ := hookProgramOf(c, agent) // hookCommands found it.
		d.checkHookProgram(agent, file, c, prog)
	}
}

// checkHookProgram says which binary the hook command c, found in file,
// runs (prog, looked up on PATH when it is a bare name), and whether it is
// this pbwrap.
func (d *doctor) checkHookProgram(agent, file, c, prog string) {
	fix := fmt.Sprintf("pbwrap setup %s, which makes it run this pbwrap", agent)
	path := prog
	if filepath.Base(prog) == prog {
		found, err := exec.LookPath(prog)
		if err != nil {
			fmt.Printf("      hook: in %s, runs %s, which is NOT on PATH\n", file, c)
			d.problem(fmt.Sprintf("%s's hook (%s, in %s) runs %s, which is not on PATH: edits with {{file:...}} references fail",
				agent, c, file, prog), fix)
			return
		}
		path = found
	}
	if _, err := os.Stat(path); err != nil {
		fmt.Printf("      hook: in %s, runs %s, which is MISSING (%v)\n", file, c, err)
		d.problem(fmt.Sprintf("%s's hook (%s, in %s) runs %s, which cannot be run: edits with {{file:...}} references fail",
			agent, c, file, path), fix)
		return
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil || !sameProgram(path, self) {
		fmt.Printf("      hook: in %s, runs %s: %s, ANOTHER binary than this pbwrap\n", file, c, path)
		d.problem(fmt.Sprintf("%s's hook (%s, in %s) runs %s, not this pbwrap (%s)", agent, c, file, path, self), fix)
		return
	}
	fmt.Printf("      hook: in %s, runs %s: %s (this pbwrap)\n", file, c, path)
}
