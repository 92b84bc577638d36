package main

import (
	"fmt"
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
		fmt.Printf("      hook: not looked for (%v)\n", printableError(err))
		return
	}
	text, _, err := readSettings(file)
	if err != nil {
		// The error names the file. Read as setup reads it: a named pipe
		// or a device there is refused, not waited for or read whole.
		fmt.Printf("      hook: cannot be read: %v\n", printableError(err))
		d.problem(fmt.Sprintf("%s's settings cannot be read: %v", agent, printableError(err)),
			fmt.Sprintf("replace it with a regular file, or remove it; then pbwrap setup %s installs the hook", agent))
		return
	}
	if text == nil {
		fmt.Printf("      hook: not installed (pbwrap setup %s installs it)\n", agent)
		return
	}
	commands, err := s.hookCommands(text)
	if err != nil {
		fmt.Printf("      hook: not found in %s (%v)\n", printable(file), printableError(err))
		return
	}
	if len(commands) == 0 {
		fmt.Printf("      hook: not installed in %s (pbwrap setup %s installs it)\n", printable(file), agent)
		return
	}
	for _, c := range commands {
		prog, _ := hookProgramOf(c, agent) // hookCommands found it.
		d.checkHookProgram(agent, file, c, prog)
	}
	if agent == "codex" {
		d.checkCodexTrust(text)
	}
}

// checkCodexTrust says whether Codex trusts pbwrap's hook in hooks, the
// text of its hooks file: one it does not trust it asks about at every
// start ("Hooks need review"), and does not run.
func (d *doctor) checkCodexTrust(hooks []byte) {
	file, err := codexConfigPath()
	if err == nil {
		var keyPath string
		if keyPath, err = codexKeyPath(); err == nil {
			var config []byte
			if config, _, err = readSettings(file); err == nil {
				var n int
				if n, err = codexUntrusted(config, hooks, keyPath); err == nil && n == 0 {
					fmt.Printf("      hook: trusted in %s\n", printable(file))
					return
				} else if err == nil {
					fmt.Printf("      hook: NOT trusted in %s\n", printable(file))
					d.problem(fmt.Sprintf("Codex asks at every start about pbwrap's hook (\"Hooks need review\"), and does not run it: "+
						"%s holds no current trust record for it", printable(file)), "pbwrap setup codex, which writes the record")
					return
				}
			}
		}
	}
	fmt.Printf("      hook: its trust not looked for (%v)\n", printableError(err))
}

// checkHookProgram says which binary the hook command c, found in file,
// runs (prog, looked up on PATH when it is a bare name), and whether it is
// this pbwrap.
func (d *doctor) checkHookProgram(agent, file, c, prog string) {
	fix := fmt.Sprintf("pbwrap setup %s, which makes it run this pbwrap", agent)
	// What the settings file holds is printed escaped: an agent can write
	// it, and a control character would reach the terminal.
	file, c = printable(file), printable(c)
	path := prog
	if filepath.Base(prog) == prog {
		found, err := exec.LookPath(prog)
		if err != nil {
			fmt.Printf("      hook: in %s, runs %s, which is NOT on PATH\n", file, c)
			d.problem(fmt.Sprintf("%s's hook (%s, in %s) runs %s, which is not on PATH: edits with {{file:...}} references fail",
				agent, c, file, printable(prog)), fix)
			return
		}
		path = found
	}
	if _, err := os.Stat(path); err != nil {
		fmt.Printf("      hook: in %s, runs %s, which is MISSING (%v)\n", file, c, printableError(err))
		d.problem(fmt.Sprintf("%s's hook (%s, in %s) runs %s, which cannot be run: edits with {{file:...}} references fail",
			agent, c, file, printable(path)), fix)
		return
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil || !sameProgram(path, self) {
		fmt.Printf("      hook: in %s, runs %s: %s, ANOTHER binary than this pbwrap\n", file, c, printable(path))
		d.problem(fmt.Sprintf("%s's hook (%s, in %s) runs %s, not this pbwrap (%s)", agent, c, file, printable(path), printable(self)), fix)
		return
	}
	fmt.Printf("      hook: in %s, runs %s: %s (this pbwrap)\n", file, c, printable(path))
}
