package main

import (
	"errors"
	"flag"
	"fmt"
)

// run parses the command line and does what it asks. The error, if any,
// says how pbwrap should exit (see exitCode).
func run(args []string) error {
	cfg, rest, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Print(helpText())
		return nil
	}
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("missing COMMAND")
	}
	afterDashDash := len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"
	if c := findCommand(rest[0]); c != nil && !afterDashDash {
		return c.run(c, cfg, rest[1:])
	}
	return wrap(cfg, rest)
}
