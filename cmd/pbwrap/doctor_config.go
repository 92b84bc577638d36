package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/pbwrap/pbwrap/internal/printable"
)

// checkConfigFile says where the config file is, and each of its lines
// that is left out, with the reason: a problem each, which pbwrap also
// says at every start (config.warnings).
func checkConfigFile(cfg *config) findings {
	var r findings
	switch {
	case cfg.file == "":
		r.fact(1, "config file: none (neither XDG_CONFIG_HOME nor HOME is set)")
	case cfg.fileErr != nil:
		r.fail(1, printable.Error(cfg.fileErr).Error(), fmt.Sprintf("the config file cannot be read, so none of it applies: %v", printable.Error(cfg.fileErr)),
			"make "+printable.Quote(cfg.file)+" a readable file of at most 64 KiB, or remove it")
	default:
		if _, err := os.Stat(cfg.file); err != nil {
			r.fact(1, "config file: %s (none there)", printable.Quote(cfg.file))
		} else {
			r.fact(1, "config file: %s", printable.Quote(cfg.file))
		}
	}
	for _, issue := range cfg.fileIssues {
		where, _, _ := strings.Cut(issue, ": ")
		r.fail(1, printable.Quote(issue), "config file: "+printable.Quote(issue), "correct or remove the line "+printable.Quote(where)+" (pbwrap help config says what a line may hold)")
	}
	return r
}

// checkVariables reports the PBWRAP_ variables of the environment that
// are no setting: a problem for each that looks like a setting misspelt,
// and a line for the others (pbwrap's tools set some of their own).
func checkVariables(cfg *config) findings {
	var r findings
	for _, typo := range cfg.envTypos {
		r.fail(1, printable.Quote(typo), printable.Quote(typo), "correct the variable's name where it is set (your shell's startup file)")
	}
	if others := otherVariables(os.Environ()); len(others) > 0 {
		r.fact(1, "ignored, not settings of pbwrap: %s", printable.Quote(strings.Join(others, " ")))
	}
	return r
}
