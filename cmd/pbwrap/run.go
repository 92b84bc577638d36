package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// run parses the command line and does what it asks. The error, if any,
// says how pbwrap should exit (see exitCode).
//
// pbwrap's flags stop at the first word that is not a flag: that word is
// one of pbwrap's commands, which takes the flags it uses after its name
// too (command.parse), or the command to wrap, whose flags are its own.
func run(std *streams, args []string) error {
	cfg := newConfig()
	fs := flag.NewFlagSet("pbwrap", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.addFlags(fs, nil)
	showVersion := fs.Bool("version", false, "")
	fs.BoolVar(showVersion, "v", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(std.out, helpText())
			return nil
		}
		return commandLinef("%s", flagError(fs, args, err))
	}
	rest := fs.Args()
	if *showVersion {
		if len(rest) > 0 {
			return commandLinef("unexpected argument %q after --version (pbwrap version takes no command)", rest[0])
		}
		printVersion(std.out)
		return nil
	}
	if len(rest) == 0 {
		return commandLinef("missing COMMAND")
	}
	afterDashDash := len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"
	if c := findCommand(rest[0]); c != nil && !afterDashDash {
		cfg.stderr = std.err
		err := c.run(c, std, cfg, rest[1:])
		if errors.Is(err, errHelpWanted) {
			c.printHelp(std.out, cfg)
			return nil
		}
		return err
	}
	if err := cfg.load(); err != nil {
		return err
	}
	return wrap(cfg, rest)
}
