package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// source says where a setting's value came from, for pbwrap doctor.
type source string

const (
	fromDefault source = "default"
	fromFile    source = "file"
	fromEnv     source = "env"
	fromFlag    source = "flag"
)

// A setting is one configuration value: its flag, its environment
// variable, its help, and how it parses itself into the config.
type setting struct {
	flag, env string   // --flag and its environment variable
	arg       string   // the value's name in help ("DIR"); "" for a switch, which takes no value
	help      string   // for pbwrap --help: what it does
	shown     string   // the default as help shows it, when not the value itself
	values    []string // every value it takes, for completion; nil when any

	value string // as given, before it is checked
	def   string // the default value
	from  source
	where string // "PATH:LINE" in the config file, when from is fromFile
	err   error  // why value was refused; the default is used instead

	// apply checks value and stores it in the config; its error is a
	// one-line usage error naming the flag or variable (see name).
	apply func(s *setting, cfg *config) error
}

// config is pbwrap's configuration: flags over environment over the
// config file over defaults, checked before anything runs.
type config struct {
	settings []*setting
	file     string // the config file's path, "" when there can be none
	fileErr  error  // why the config file could not be read as a whole: it is ignored
	// fileIssues are the config file's lines that were ignored, each with
	// the reason (see readConfigFile), and envTypos the PBWRAP_ variables
	// of the environment that look like a setting's name misspelt: what
	// warnings says, with fileErr and the file's refused values.
	fileIssues []string
	envTypos   []string
	stderr     io.Writer // where a command that warns (command.warns) says them

	off          bool
	noAgentArgs  bool
	debug        bool
	root         string // as given; resolved by the store
	minBytes     int
	minLines     int
	refFormat    capture.RefFormat
	logPath      string
	ttl          time.Duration
	maxStore     int64 // bytes; -1 for no cap, as store.Cleaner.MaxBytes takes it
	pasteTimeout time.Duration
	burst        capture.BurstMode
	imagePaste   capture.ImageMode
	repeatWindow time.Duration // 0: a paste repeated is saved like any other

	allowClipboardRead bool
	requireStore       bool
	hookAllow          []string // directories pbwrap hook may read besides
}

// newSettings lists every setting with its default, in the order help
// and doctor show them.
func newSettings() []*setting {
	return []*setting{
		{flag: "root", env: "PBWRAP_ROOT", arg: "DIR", value: store.DefaultRoot(), shown: rootShown,
			help: "where pastes are saved: an absolute path, yours, not a symlink", apply: applyRoot},
		{flag: "min-bytes", env: "PBWRAP_MIN_BYTES", arg: "N", value: strconv.Itoa(capture.DefaultMinBytes),
			help: "a paste this long is large", apply: positive("bytes", func(c *config) *int { return &c.minBytes })},
		{flag: "min-lines", env: "PBWRAP_MIN_LINES", arg: "N", value: strconv.Itoa(capture.DefaultMinLines),
			help: "... or with this many lines", apply: positive("lines", func(c *config) *int { return &c.minLines })},
		{flag: "ref-format", env: "PBWRAP_REF_FORMAT", arg: "TMPL", value: capture.DefaultRefFormat,
			help: "the reference typed instead (also {bytes} {lines} {sha256} {n}; no newlines)", apply: applyRefFormat},
		{flag: "repeat-window", env: "PBWRAP_REPEAT_WINDOW", arg: "DURATION", value: shortDuration(capture.RepeatWindow),
			help:  "the same text pasted again within this long goes in as text: the way to send a large paste inline on purpose (0: never)",
			apply: durationOrZero(func(c *config) *time.Duration { return &c.repeatWindow })},
		{flag: "paste-timeout", env: "PBWRAP_PASTE_TIMEOUT", arg: "DURATION", value: shortDuration(termproto.PasteSilence),
			help:  "end a paste whose end marker has not come after this long without input (a slow link may pause longer)",
			apply: duration(func(c *config) *time.Duration { return &c.pasteTimeout })},
		{flag: "burst", env: "PBWRAP_BURST", arg: "MODE", value: capture.BurstAuto.String(),
			values: []string{capture.BurstAuto.String(), capture.BurstOn.String(), capture.BurstOff.String()},
			help:   "look for large pastes the terminal does not mark, by what each read brings (no key waits for it): auto (only where neither what relays the keys, tmux, screen 5 or mosh, nor the terminal marks pastes), on or off",
			apply: func(s *setting, c *config) error {
				m, err := capture.ParseBurstMode(s.value)
				if err != nil {
					return usagef("%s: %v", s.name(), err)
				}
				c.burst = m
				return nil
			}},
		{flag: "image-paste", env: "PBWRAP_IMAGE_PASTE", arg: "MODE", value: capture.ImageAuto.String(),
			values: []string{capture.ImageAuto.String(), capture.ImageOn.String(), capture.ImageOff.String()},
			help:   "save an image pasted at the user's kitty (0.45 or later) as a file in the session and type its path, through kitty's paste events: auto (only over SSH, with no tmux, screen, zellij or mosh in between, and if the terminal says it has them), on or off",
			apply: func(s *setting, c *config) error {
				m, err := capture.ParseImageMode(s.value)
				if err != nil {
					return usagef("%s: %v", s.name(), err)
				}
				c.imagePaste = m
				return nil
			}},
		{flag: "log", env: "PBWRAP_LOG", arg: "FILE", help: "log decisions, fallbacks and each saved paste (where, how big; never its text) here", apply: applyLog},
		{flag: "debug", env: "PBWRAP_DEBUG", value: "0",
			help:  "also log each paste's handling and the child's mode changes, never text (to the session's debug.log without --log)",
			apply: boolean(func(c *config) *bool { return &c.debug })},
		{flag: "ttl", env: "PBWRAP_TTL", arg: "DURATION", value: fmt.Sprintf("%dd", store.DefaultTTL/(24*time.Hour)),
			help:  "remove a session this long after it ended, in the background a second after pbwrap starts and by pbwrap clean (never while it runs)",
			apply: duration(func(c *config) *time.Duration { return &c.ttl })},
		{flag: "max-store", env: "PBWRAP_MAX_STORE", arg: "SIZE", value: fmt.Sprintf("%dGiB", store.DefaultMaxBytes>>30),
			help:  "the most the saved pastes may take together (bytes, or with K, M, G, T, KiB, MiB, GiB, TiB: powers of 1024; 0: no cap); past it, the sessions that ended longest ago are removed, when --ttl's are, never a running one",
			apply: applyMaxStore},
		{flag: "no-agent-args", env: "PBWRAP_NO_AGENT_ARGS", value: "0",
			help:  "do not add the flag or variable that lets a known agent read the saved pastes (pbwrap doctor says which, for each agent on PATH)",
			apply: boolean(func(c *config) *bool { return &c.noAgentArgs })},
		{flag: "allow-clipboard-read", env: "PBWRAP_ALLOW_CLIPBOARD_READ", value: "0",
			help:  "let COMMAND read the terminal's clipboard (OSC 52 and 5522 reads are dropped otherwise: text a tool prints could make the terminal type the clipboard into the agent)",
			apply: boolean(func(c *config) *bool { return &c.allowClipboardRead })},
		{flag: "hook-allow", env: "PBWRAP_HOOK_ALLOW", arg: "DIRS",
			help:  "directories, colon-separated, whose files pbwrap hook may also expand (a working directory that is your home directory or above counts for nothing, and your home's hidden directories only when named)",
			apply: applyHookAllow},
		{flag: "require-store", env: "PBWRAP_REQUIRE_STORE", value: "0",
			help:  "refuse to run COMMAND on a terminal when pastes cannot be saved, instead of letting them go in as text",
			apply: boolean(func(c *config) *bool { return &c.requireStore })},
		{flag: "off", env: "PBWRAP_OFF", value: "0", help: "run COMMAND directly, wrapping nothing",
			apply: boolean(func(c *config) *bool { return &c.off })},
	}
}

// newConfig returns the configuration with every setting at its default,
// to be set by flags (addFlags) and then loaded (load).
func newConfig() *config {
	cfg := &config{settings: newSettings(), file: configFile()}
	for _, s := range cfg.settings {
		s.def, s.from = s.value, fromDefault
	}
	return cfg
}

// configFile returns the config file's path: $XDG_CONFIG_HOME/pbwrap/config,
// or ~/.config/pbwrap/config when XDG_CONFIG_HOME is unset or relative
// (which the XDG base directory specification says to ignore); "" when
// there is no home directory either.
func configFile() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "pbwrap", "config")
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return ""
	}
	return filepath.Join(home, ".config", "pbwrap", "config")
}

// addFlags defines the flags of the settings named in which, or of every
// setting for nil, in fs.
func (cfg *config) addFlags(fs *flag.FlagSet, which []string) {
	for _, s := range cfg.settings {
		if which == nil || slices.Contains(which, s.flag) {
			fs.Var(flagValue{s}, s.flag, "")
		}
	}
}

// load fills in what the flags left unset, from the environment, else the
// config file, else the default, and has every setting check its value. A
// setting whose value is refused keeps its default, with the reason in
// its err (pbwrap doctor shows both). load returns the first reason of a
// value from a flag or the environment, which the user chose for this
// run: a usage error. What is wrong in the config file, which every run
// reads, is no error: a line that cannot be used, or a value refused, is
// left out, the rest applies, and warnings says what was left out.
func (cfg *config) load() error {
	values, issues, err := readConfigFile(cfg.file, os.LookupEnv)
	cfg.fileErr, cfg.fileIssues = err, issues
	cfg.envTypos = envTypos(os.Environ())
	for _, s := range cfg.settings {
		if s.from == fromFlag {
			continue
		}
		if v, ok := values[s.env]; ok {
			s.value, s.from, s.where = v.value, fromFile, v.where
		}
		if v, ok := os.LookupEnv(s.env); ok && v != "" {
			s.value, s.from = v, fromEnv
		}
	}
	return cfg.apply()
}

// apply has every setting check and store its value; a setting refused
// stores its default instead. A default that is refused too (a default
// made from the environment) leaves the config's field at its zero value:
// the setting's error says what is wrong, once, and a lenient command runs
// on without it. It returns the first error of a value that did not come
// from the config file (see load).
func (cfg *config) apply() error {
	var first error
	for _, s := range cfg.settings {
		err := s.apply(s, cfg)
		if err == nil {
			continue
		}
		s.err = err
		if first == nil && s.from != fromFile {
			first = err
		}
		if s.from != fromDefault {
			def := *s
			def.value, def.from = s.def, fromDefault
			_ = def.apply(&def, cfg) // Its error is s.err's kind, and s.err is reported.
		}
	}
	return first
}

// name is how an error refers to the setting: the flag, the variable, or
// the config file's line, whichever gave the value.
func (s *setting) name() string {
	switch s.from {
	case fromEnv:
		return s.env
	case fromFile:
		return s.where + ": " + s.env
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

// childEnv is env with the effective settings in it, so that pbwrap run
// inside the wrapped command (pbwrap list in the agent's shell) sees the
// configuration of the pbwrap around it: PBWRAP_ROOT always, as root (the
// resolved root, or as configured when it cannot be resolved), and each
// other setting that is not at its default, from wherever it came. A
// setting given empty (--log=) takes the variable out of env, so that the
// command does not get the value pbwrap was told not to use; a switch
// given empty (--debug=) is off, and passed on as 0.
func (cfg *config) childEnv(env []string, root string) []string {
	if root == "" {
		root = cfg.root
	}
	set := map[string]string{"PBWRAP_ROOT": root} // "": the variable is removed.
	for _, s := range cfg.settings {
		if s.from == fromDefault || s.err != nil || s.flag == "root" {
			continue
		}
		v := s.value
		if v == "" && s.isSwitch() {
			v = "0"
		}
		set[s.env] = v
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !hasSetting(set, name) {
			out = append(out, kv)
		}
	}
	for _, s := range cfg.settings { // In the settings' order, for a stable environment.
		if v := set[s.env]; v != "" {
			out = append(out, s.env+"="+v)
		}
	}
	return out
}

// hasSetting reports whether childEnv sets, or removes, the variable name.
func hasSetting(set map[string]string, name string) bool {
	_, ok := set[name]
	return ok
}

// rootShown is the default root as help shows it.
const rootShown = "$XDG_STATE_HOME/pbwrap (~/.local/state/pbwrap); macOS: ~/Library/Caches/pbwrap"

func applyRoot(s *setting, c *config) error {
	switch {
	case s.value == "":
		return usagef("%s: empty path", s.name())
	case !filepath.IsAbs(s.value):
		return usagef("%s=%q: want an absolute path (a relative one would save pastes in whatever directory pbwrap starts in)", s.name(), s.value)
	}
	c.root = s.value
	return nil
}

// applyHookAllow takes the directories hooks may read besides, each an
// absolute path; "/" would expose every file, and is refused.
func applyHookAllow(s *setting, c *config) error {
	c.hookAllow = nil
	for dir := range strings.SplitSeq(s.value, ":") {
		switch {
		case dir == "":
			continue
		case !filepath.IsAbs(dir):
			return usagef("%s=%q: %q is not an absolute path", s.name(), s.value, dir)
		case filepath.Clean(dir) == "/":
			return usagef("%s=%q: / would let hooks expand every file", s.name(), s.value)
		}
		c.hookAllow = append(c.hookAllow, filepath.Clean(dir))
	}
	return nil
}

// applyLog takes the log file's path, made absolute (in the setting too,
// as childEnv passes it on) so that a pbwrap run in another directory,
// inside the wrapped command, logs to the same file.
func applyLog(s *setting, c *config) error {
	if s.value != "" && !filepath.IsAbs(s.value) {
		abs, err := filepath.Abs(s.value)
		if err != nil {
			return usagef("%s=%q: %v", s.name(), s.value, err)
		}
		s.value = abs
	}
	c.logPath = s.value
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

// applyMaxStore takes the store's cap: 0 is none.
func applyMaxStore(s *setting, c *config) error {
	n, err := parseSize(s.value)
	if err != nil {
		return usagef("%s=%q: %v", s.name(), s.value, err)
	}
	c.maxStore = n
	if n == 0 {
		c.maxStore = -1
	}
	return nil
}

// sizeUnits are the units parseSize takes: powers of 1024, as du -h and
// humanBytes write them.
var sizeUnits = map[string]int64{"": 1, "B": 1, "K": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20,
	"G": 1 << 30, "GiB": 1 << 30, "T": 1 << 40, "TiB": 1 << 40}

// parseSize reads a size in bytes: a number, whole or with a fraction,
// and one of sizeUnits ("1GiB", "1.5G", "500M", "1048576").
func parseSize(v string) (int64, error) {
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(v)
	}
	unit, ok := sizeUnits[v[i:]]
	n, err := strconv.ParseFloat(v[:i], 64)
	switch {
	case !ok || err != nil || i == 0:
		return 0, errors.New("want a size such as 1GiB, 500M or 0 (no cap)")
	case n*float64(unit) >= math.MaxInt64:
		return 0, errors.New("too large")
	}
	return int64(n * float64(unit)), nil
}

// boolWords is what a switch accepts, as environment conventions have it.
const boolWords = "1/0, true/false, yes/no or on/off"

// boolean parses a switch into the field of the config that field returns.
func boolean(field func(*config) *bool) func(*setting, *config) error {
	return func(s *setting, c *config) error {
		v, ok := parseBool(s.value)
		if !ok {
			return usagef("%s=%q: want %s", s.name(), s.value, boolWords)
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
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s.value, "-") {
			return usagef("%s=%q: too large (at most %d)", s.name(), s.value, math.MaxInt)
		}
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

// durationOrZero parses a duration that may be 0 ("0", "0s", "0d"), which
// turns off what it times.
func durationOrZero(field func(*config) *time.Duration) func(*setting, *config) error {
	return func(s *setting, c *config) error {
		if d, err := time.ParseDuration(strings.TrimSuffix(s.value, "d")); err == nil && d == 0 {
			*field(c) = 0
			return nil
		}
		return duration(field)(s, c)
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

// errDurationSyntax is parseDuration's error for what is not a duration.
var errDurationSyntax = errors.New("want a positive duration such as 7d, 168h or 30m")

// parseDuration reads a positive duration in Go's syntax ("168h", "90m"),
// with whole days in front too ("7d", "1d12h").
func parseDuration(v string) (time.Duration, error) {
	var days time.Duration
	if i := strings.IndexByte(v, 'd'); i > 0 {
		n, err := strconv.ParseInt(v[:i], 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange), err == nil && n > int64(math.MaxInt64/(24*time.Hour)):
			return 0, errDurationTooLarge
		case err != nil || n < 0:
			return 0, errDurationSyntax
		}
		days, v = time.Duration(n)*24*time.Hour, v[i+1:]
		if v == "" {
			v = "0"
		}
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil && goodDurationSyntax(v):
		return 0, errDurationTooLarge
	case err != nil || d < 0:
		return 0, errDurationSyntax
	case d > math.MaxInt64-days:
		return 0, errDurationTooLarge
	case d+days == 0:
		return 0, errDurationSyntax
	}
	return d + days, nil
}

// errDurationTooLarge is parseDuration's error for a duration that does not
// fit in Go's, about 292 years.
var errDurationTooLarge = fmt.Errorf("too large (at most %s)", shortDuration(math.MaxInt64/time.Hour*time.Hour))

// goodDurationSyntax reports whether v is written as a duration, numbers
// and units, so that time.ParseDuration failing on it means it is too large.
func goodDurationSyntax(v string) bool {
	units := "nsuµμmh"
	digits := false
	for i, r := range v {
		switch {
		case r >= '0' && r <= '9', r == '.':
			digits = true
		case strings.ContainsRune(units, r) && (digits || i > 0):
			digits = false
		default:
			return false
		}
	}
	return v != "" && !digits
}

// flagValue is a setting as the flag package sees it: a switch is a
// boolean flag (--off, --off=false, --off=no).
type flagValue struct{ s *setting }

func (f flagValue) String() string   { return "" }
func (f flagValue) IsBoolFlag() bool { return f.s.isSwitch() }
func (f flagValue) Set(v string) error {
	if _, ok := parseBool(v); f.s.isSwitch() && !ok {
		return fmt.Errorf("want %s", boolWords)
	}
	f.s.value, f.s.from = v, fromFlag
	return nil
}
