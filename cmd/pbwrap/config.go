package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/capture"
	"github.com/pbwrap/pbwrap/store"
)

// source says where a setting's value came from, for pbwrap doctor.
type source string

const (
	fromDefault source = "default"
	fromEnv     source = "env"
	fromFlag    source = "flag"
)

// setting is one configuration value as given, before it is checked.
type setting struct {
	flag, env string // --flag and its environment variable
	value     string
	from      source
	isBool    bool
}

// config is pbwrap's configuration: flags over environment over defaults,
// checked before anything runs.
type config struct {
	settings []*setting

	off         bool
	noAgentArgs bool
	debug       bool
	root        string // as given; resolved by the store
	minBytes    int
	minLines    int
	refFormat   capture.RefFormat
	logPath     string
	ttl         time.Duration
}

// newSettings lists every setting with its default.
func newSettings() []*setting {
	return []*setting{
		{flag: "off", env: "PBWRAP_OFF", value: "0", isBool: true},
		{flag: "no-agent-args", env: "PBWRAP_NO_AGENT_ARGS", value: "0", isBool: true},
		{flag: "debug", env: "PBWRAP_DEBUG", value: "0", isBool: true},
		{flag: "root", env: "PBWRAP_ROOT", value: store.DefaultRoot()},
		{flag: "min-bytes", env: "PBWRAP_MIN_BYTES", value: strconv.Itoa(capture.DefaultMinBytes)},
		{flag: "min-lines", env: "PBWRAP_MIN_LINES", value: strconv.Itoa(capture.DefaultMinLines)},
		{flag: "ref-format", env: "PBWRAP_REF_FORMAT", value: capture.DefaultRefFormat},
		{flag: "log", env: "PBWRAP_LOG", value: ""},
		{flag: "ttl", env: "PBWRAP_TTL", value: store.DefaultTTL.String()},
	}
}

// parseFlags reads the global flags from args, stopping at the first word
// that is not a flag, and returns the rest. The environment fills in what
// the flags leave unset.
func parseFlags(args []string) (*config, []string, error) {
	cfg := &config{settings: newSettings()}
	fs := flag.NewFlagSet("pbwrap", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, s := range cfg.settings {
		if s.isBool {
			fs.Var(boolFlag{s}, s.flag, "")
		} else {
			fs.Var(stringFlag{s}, s.flag, "")
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		return nil, nil, usagef("%v", err)
	}
	for _, s := range cfg.settings {
		if s.from == fromDefault || s.from == "" {
			s.from = fromDefault
			if v, ok := os.LookupEnv(s.env); ok && v != "" {
				s.value, s.from = v, fromEnv
			}
		}
	}
	if err := cfg.check(); err != nil {
		return nil, nil, err
	}
	return cfg, fs.Args(), nil
}

// check turns the settings into values, refusing bad ones with a one-line
// usage error that names the flag or variable and the value.
func (cfg *config) check() error {
	var err error
	for _, s := range cfg.settings {
		switch s.flag {
		case "off":
			cfg.off, err = s.bool()
		case "no-agent-args":
			cfg.noAgentArgs, err = s.bool()
		case "debug":
			cfg.debug, err = s.bool()
		case "root":
			if s.value == "" {
				err = usagef("%s: empty path", s.name())
			}
			cfg.root = s.value
		case "min-bytes":
			cfg.minBytes, err = s.positive("bytes")
		case "min-lines":
			cfg.minLines, err = s.positive("lines")
		case "ref-format":
			var perr error
			if cfg.refFormat, perr = capture.ParseRefFormat(s.value); perr != nil {
				err = usagef("%s: %v", s.name(), perr)
			}
		case "log":
			cfg.logPath = s.value
		case "ttl":
			cfg.ttl, err = s.duration()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// name is how an error refers to the setting: the flag or the variable,
// whichever gave the value.
func (s *setting) name() string {
	if s.from == fromEnv {
		return s.env
	}
	return "--" + s.flag
}

func (s *setting) bool() (bool, error) {
	switch strings.ToLower(s.value) {
	case "", "0", "false", "no", "off":
		return false, nil
	case "1", "true", "yes", "on":
		return true, nil
	}
	return false, usagef("%s=%q: want 1 or 0", s.name(), s.value)
}

func (s *setting) duration() (time.Duration, error) {
	d, err := parseDuration(s.value)
	if err != nil {
		return 0, usagef("%s=%q: %v", s.name(), s.value, err)
	}
	return d, nil
}

// parseDuration reads a positive Go duration ("168h", "90m").
func parseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 168h or 30m")
	}
	return d, nil
}

func (s *setting) positive(unit string) (int, error) {
	n, err := strconv.Atoi(s.value)
	if err != nil || n < 1 {
		return 0, usagef("%s=%q: want a whole number of %s, at least 1", s.name(), s.value, unit)
	}
	return n, nil
}

// find returns the setting of a flag.
func (cfg *config) find(flag string) *setting {
	for _, s := range cfg.settings {
		if s.flag == flag {
			return s
		}
	}
	panic("no setting " + flag)
}

type stringFlag struct{ s *setting }

func (f stringFlag) String() string { return "" }
func (f stringFlag) Set(v string) error {
	f.s.value, f.s.from = v, fromFlag
	return nil
}

type boolFlag struct{ s *setting }

func (f boolFlag) String() string   { return "" }
func (f boolFlag) IsBoolFlag() bool { return true }
func (f boolFlag) Set(v string) error {
	f.s.value, f.s.from = v, fromFlag
	if _, err := f.s.bool(); err != nil {
		return fmt.Errorf("want true or false")
	}
	return nil
}
