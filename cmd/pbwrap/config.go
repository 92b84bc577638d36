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

	"github.com/pbwrap/pbwrap/bracketed"
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

// A setting is one configuration value: its flag, its environment
// variable, its help, and how it parses itself into the config.
type setting struct {
	flag, env string // --flag and its environment variable
	arg       string // the value's name in help ("DIR"); "" for a switch, which takes no value
	help      string // for pbwrap --help: what it does
	shown     string // the default as help shows it, when not the value itself

	value string // as given, before it is checked
	from  source

	// apply checks value and stores it in the config; its error is a
	// one-line usage error naming the flag or variable (see name).
	apply func(s *setting, cfg *config) error
}

// config is pbwrap's configuration: flags over environment over defaults,
// checked before anything runs.
type config struct {
	settings []*setting

	off          bool
	noAgentArgs  bool
	debug        bool
	root         string // as given; resolved by the store
	minBytes     int
	minLines     int
	refFormat    capture.RefFormat
	logPath      string
	ttl          time.Duration
	pasteTimeout time.Duration
	burst        capture.BurstMode

	allowClipboardRead bool
}

// newSettings lists every setting with its default, in the order help
// and doctor show them.
func newSettings() []*setting {
	return []*setting{
		{flag: "root", env: "PBWRAP_ROOT", arg: "DIR", value: store.DefaultRoot(), shown: "$TMPDIR/pbwrap-UID; macOS: ~/Library/Caches/pbwrap",
			help: "where pastes are saved (must be yours, not a symlink)", apply: applyRoot},
		{flag: "min-bytes", env: "PBWRAP_MIN_BYTES", arg: "N", value: strconv.Itoa(capture.DefaultMinBytes),
			help: "a paste this long is large", apply: positive("bytes", func(c *config) *int { return &c.minBytes })},
		{flag: "min-lines", env: "PBWRAP_MIN_LINES", arg: "N", value: strconv.Itoa(capture.DefaultMinLines),
			help: "... or with this many lines", apply: positive("lines", func(c *config) *int { return &c.minLines })},
		{flag: "ref-format", env: "PBWRAP_REF_FORMAT", arg: "TMPL", value: capture.DefaultRefFormat,
			help: "the reference typed instead (also {bytes} {lines} {sha256} {n}; no newlines)", apply: applyRefFormat},
		{flag: "paste-timeout", env: "PBWRAP_PASTE_TIMEOUT", arg: "DURATION", value: shortDuration(bracketed.PasteSilence),
			help:  "end a paste whose end marker has not come after this long without input (a slow link may pause longer)",
			apply: duration(func(c *config) *time.Duration { return &c.pasteTimeout })},
		{flag: "burst", env: "PBWRAP_BURST", arg: "MODE", value: capture.BurstAuto.String(),
			help: "treat input that comes faster than typing as a paste, for terminals that do not bracket pastes: auto (until the terminal brackets one), on or off",
			apply: func(s *setting, c *config) error {
				m, err := capture.ParseBurstMode(s.value)
				if err != nil {
					return usagef("%s: %v", s.name(), err)
				}
				c.burst = m
				return nil
			}},
		{flag: "log", env: "PBWRAP_LOG", arg: "FILE", help: "log decisions and fallbacks here",
			apply: func(s *setting, c *config) error { c.logPath = s.value; return nil }},
		{flag: "debug", env: "PBWRAP_DEBUG", value: "0",
			help:  "log per-paste sizes and paths too, never text (to the session's debug.log without --log)",
			apply: boolean(func(c *config) *bool { return &c.debug })},
		{flag: "ttl", env: "PBWRAP_TTL", arg: "DURATION", value: shortDuration(store.DefaultTTL),
			help:  "keep ended sessions this long (older ones are removed at start and by pbwrap clean)",
			apply: duration(func(c *config) *time.Duration { return &c.ttl })},
		{flag: "no-agent-args", env: "PBWRAP_NO_AGENT_ARGS", value: "0",
			help:  "do not add the flag that lets a known agent read the saved pastes (claude --add-dir=ROOT, gemini and qwen --include-directories ROOT)",
			apply: boolean(func(c *config) *bool { return &c.noAgentArgs })},
		{flag: "allow-clipboard-read", env: "PBWRAP_ALLOW_CLIPBOARD_READ", value: "0",
			help:  "let COMMAND read the terminal's clipboard (OSC 52 and 5522 reads are dropped otherwise: text a tool prints could make the terminal type the clipboard into the agent)",
			apply: boolean(func(c *config) *bool { return &c.allowClipboardRead })},
		{flag: "off", env: "PBWRAP_OFF", value: "0", help: "run COMMAND directly, wrapping nothing",
			apply: boolean(func(c *config) *bool { return &c.off })},
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
		fs.Var(flagValue{s}, s.flag, "")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		return nil, nil, usagef("%v", err)
	}
	for _, s := range cfg.settings {
		if s.from != fromFlag {
			s.from = fromDefault
			if v, ok := os.LookupEnv(s.env); ok && v != "" {
				s.value, s.from = v, fromEnv
			}
		}
	}
	if err := cfg.apply(); err != nil {
		return nil, nil, err
	}
	return cfg, fs.Args(), nil
}

// apply has every setting check and store its value, stopping at the
// first bad one.
func (cfg *config) apply() error {
	for _, s := range cfg.settings {
		if err := s.apply(s, cfg); err != nil {
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

func (s *setting) isSwitch() bool { return s.arg == "" }

// find returns the setting of a flag.
func (cfg *config) find(flag string) *setting {
	for _, s := range cfg.settings {
		if s.flag == flag {
			return s
		}
	}
	panic("no setting " + flag)
}

func applyRoot(s *setting, c *config) error {
	if s.value == "" {
		return usagef("%s: empty path", s.name())
	}
	c.root = s.value
	return nil
}

func applyRefFormat(s *setting, c *config) error {
	f, err := capture.ParseRefFormat(s.value)
	if err != nil {
		return usagef("%s: %v", s.name(), err)
	}
	c.refFormat = f
	return nil
}

// boolean parses a switch into the field of the config that field returns.
func boolean(field func(*config) *bool) func(*setting, *config) error {
	return func(s *setting, c *config) error {
		v, ok := parseBool(s.value)
		if !ok {
			return usagef("%s=%q: want 1 or 0", s.name(), s.value)
		}
		*field(c) = v
		return nil
	}
}

// parseBool reads a switch's value as the environment gives it.
func parseBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "", "0", "false", "no", "off":
		return false, true
	case "1", "true", "yes", "on":
		return true, true
	}
	return false, false
}

// positive parses a whole number of units, at least 1.
func positive(unit string, field func(*config) *int) func(*setting, *config) error {
	return func(s *setting, c *config) error {
		n, err := strconv.Atoi(s.value)
		if err != nil || n < 1 {
			return usagef("%s=%q: want a whole number of %s, at least 1", s.name(), s.value, unit)
		}
		*field(c) = n
		return nil
	}
}

// duration parses a positive duration.
func duration(field func(*config) *time.Duration) func(*setting, *config) error {
	return func(s *setting, c *config) error {
		d, err := parseDuration(s.value)
		if err != nil {
			return usagef("%s=%q: %v", s.name(), s.value, err)
		}
		*field(c) = d
		return nil
	}
}

// shortDuration writes d as a person would: 168h, not 168h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// parseDuration reads a positive Go duration ("168h", "90m").
func parseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 168h or 30m")
	}
	return d, nil
}

// flagValue is a setting as the flag package sees it: a switch is a
// boolean flag (--off, --off=false).
type flagValue struct{ s *setting }

func (f flagValue) String() string   { return "" }
func (f flagValue) IsBoolFlag() bool { return f.s.isSwitch() }
func (f flagValue) Set(v string) error {
	if _, ok := parseBool(v); f.s.isSwitch() && !ok {
		return fmt.Errorf("want true or false")
	}
	f.s.value, f.s.from = v, fromFlag
	return nil
}
