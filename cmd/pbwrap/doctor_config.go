package main

import (
	"fmt"
	"os"
	"strings"
)

// checkConfigFile says where the config file is, and each of its lines
// that is left out, with the reason: a problem each, which pbwrap also
// says at every start (config.warnings).
func (d *doctor) checkConfigFile(cfg *config) {
	switch {
	case cfg.file == "":
		fmt.Fprintln(d.out, "  config file: none (neither XDG_CONFIG_HOME nor HOME is set)")
	case cfg.fileErr != nil:
		fmt.Fprintf(d.out, "  FAIL  %v\n", printableError(cfg.fileErr))
		d.problem(fmt.Sprintf("the config file cannot be read, so none of it applies: %v", printableError(cfg.fileErr)),
			"make "+printable(cfg.file)+" a readable file of at most 64 KiB, or remove it")
	default:
		if _, err := os.Stat(cfg.file); err != nil {
			fmt.Fprintf(d.out, "  config file: %s (none there)\n", printable(cfg.file))
		} else {
			fmt.Fprintf(d.out, "  config file: %s\n", printable(cfg.file))
		}
	}
	for _, issue := range cfg.fileIssues {
		fmt.Fprintf(d.out, "  FAIL  %s\n", printable(issue))
		where, _, _ := strings.Cut(issue, ": ")
		d.problem("config file: "+printable(issue), "correct or remove the line "+printable(where)+" (pbwrap help config says what a line may hold)")
	}
}

// checkVariables reports the PBWRAP_ variables of the environment that
// are no setting: a problem for each that looks like a setting misspelt,
// and a line for the others (pbwrap's tools set some of their own).
func (d *doctor) checkVariables(cfg *config) {
	for _, typo := range cfg.envTypos {
		fmt.Fprintf(d.out, "  FAIL  %s\n", printable(typo))
		d.problem(printable(typo), "correct the variable's name where it is set (your shell's startup file)")
	}
	if others := otherVariables(os.Environ()); len(others) > 0 {
		fmt.Fprintf(d.out, "  ignored, not settings of pbwrap: %s\n", printable(strings.Join(others, " ")))
	}
}
