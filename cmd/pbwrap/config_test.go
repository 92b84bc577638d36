package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"168h", 168 * time.Hour, ""},
		{"90m", 90 * time.Minute, ""},
		{"7d", 7 * 24 * time.Hour, ""},
		{"1d12h", 36 * time.Hour, ""},
		{"0d30m", 30 * time.Minute, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"0", 0, "want a positive duration"},
		{"0d", 0, "want a positive duration"},
		{"-1h", 0, "want a positive duration"},
		{"-1d", 0, "want a positive duration"},
		{"d", 0, "want a positive duration"},
		{"soon", 0, "want a positive duration"},
		{"7 d", 0, "want a positive duration"},
		{"", 0, "want a positive duration"},
		{"106751d", 106751 * 24 * time.Hour, ""},
		{"106752d", 0, "too large"},
		{"99999999999999999999d", 0, "too large"},
		{"9999999999h", 0, "too large"},
		{"106751d24h", 0, "too large"},
	} {
		got, err := parseDuration(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("parseDuration(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseDuration(%q) = %v, %v, want an error with %q", tc.in, got, err, tc.err)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		words []string
		check bool
		root  string
	}{
		{nil, nil, false, ""},
		{[]string{"a.md", "--check"}, []string{"a.md"}, true, ""},
		{[]string{"--check", "a.md"}, []string{"a.md"}, true, ""},
		{[]string{"a", "--root", "/r", "b"}, []string{"a", "b"}, false, "/r"},
		{[]string{"a", "--", "--check", "b"}, []string{"a", "--check", "b"}, false, ""},
		{[]string{"--", "--check"}, []string{"--check"}, false, ""},
		{[]string{"-", "--check"}, []string{"-"}, true, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		check := new(bool)
		fs.Var(switchValue{check}, "check", "")
		root := fs.String("root", "", "")
		words, err := parseInterspersed(fs, tc.args)
		if err != nil || !slices.Equal(words, tc.words) || *check != tc.check || *root != tc.root {
			t.Errorf("parseInterspersed(%q) = %q, %v, check %v, root %q; want %q, check %v, root %q",
				tc.args, words, err, *check, *root, tc.words, tc.check, tc.root)
		}
	}
}

// The config file: comments, blanks, spaces and quotes; every bad line an
// error naming the file and the line.
func TestReadConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		path := filepath.Join(dir, "config")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	path := write("# comment\n\n  PBWRAP_MIN_BYTES = 100 \nPBWRAP_REF_FORMAT='<{path}>'\nPBWRAP_LOG=\"\"\n")
	values, err := readConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fileValue{
		"PBWRAP_MIN_BYTES":  {"100", path + ":3"},
		"PBWRAP_REF_FORMAT": {"<{path}>", path + ":4"},
		"PBWRAP_LOG":        {"", path + ":5"},
	} {
		if got := values[name]; got != want {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
	for text, want := range map[string]string{
		"PBWRAP_OFF=1\nPBWRAP_NOPE=1\n":                         ":2: unknown setting \"PBWRAP_NOPE\"",
		"\n\nPBWRAP_OFF\n":                                      ":3: want NAME=VALUE",
		"PBWRAP_OFF=1\n# x\nPBWRAP_OFF=0\n":                     ":3: PBWRAP_OFF is set again (first at " + path + ":1)",
		"export PBWRAP_OFF=1\n":                                 ":1: unknown setting \"export PBWRAP_OFF\"",
		"PBWRAP_MIN_BYTES=" + strings.Repeat("9", 70000) + "\n": "read " + path,
	} {
		write(text)
		if _, err := readConfigFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %.40q: error %v, want one with %q", text, err, want)
		}
	}
	if values, err := readConfigFile(filepath.Join(dir, "none")); err != nil || len(values) != 0 {
		t.Errorf("a missing config file: %v, %v; want nothing and no error", values, err)
	}
	// A directory: one line, the path once (review finding 4).
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	want := "config file: " + sub + " is a directory, not a regular file"
	if _, err := readConfigFile(sub); err == nil || err.Error() != want {
		t.Errorf("a directory as config file: error %v, want %q", err, want)
	}
}

// The wrapped command's environment: PBWRAP_ROOT always, the settings not
// at their default, the rest of the environment as it was.
func TestChildEnv(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PBWRAP_TTL", "2d")
	cfg := newConfig()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	cfg.addFlags(fs, nil)
	if err := fs.Parse([]string{"--min-bytes", "100", "--off", "--root", "/some/root"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.load(); err != nil {
		t.Fatal(err)
	}
	got := cfg.childEnv([]string{"HOME=/h", "PBWRAP_ROOT=/old", "PBWRAP_TTL=2d", "PBWRAP_MIN_BYTES=5"}, "/resolved/root")
	want := []string{"HOME=/h", "PBWRAP_ROOT=/resolved/root", "PBWRAP_MIN_BYTES=100", "PBWRAP_TTL=2d", "PBWRAP_OFF=true"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}

// A default that is refused is an error, never a panic (review finding 2:
// a relative TMPDIR made the default root relative, and every command,
// pbwrap hook included, panicked).
func TestRefusedDefault(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PBWRAP_ROOT", "")
	for _, from := range []source{fromDefault, fromFlag} {
		cfg := newConfig()
		root := cfg.find("root")
		root.def, root.value = "rel/pbwrap-1", "rel/pbwrap-1"
		if from == fromFlag {
			root.value, root.from = "other/rel", fromFlag
		}
		err := cfg.load()
		if err == nil || !strings.Contains(err.Error(), "want an absolute path") {
			t.Errorf("root %q from %s, default %q: error %v, want one saying it is not absolute", root.value, from, root.def, err)
		}
		if cfg.root != "" {
			t.Errorf("root %q from %s: config root %q, want none", root.value, from, cfg.root)
		}
	}
}

// A config file of maxConfigFile bytes is read, a larger one refused
// (review finding 4: no size cap).
func TestReadConfigFileCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	text := "# " + strings.Repeat("x", maxConfigFile-3) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readConfigFile(path); err != nil {
		t.Errorf("a config file of %d bytes: %v, want no error", len(text), err)
	}
	if err := os.WriteFile(path, []byte(text+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "config file: read " + path + ": larger than 64 KiB"
	if _, err := readConfigFile(path); err == nil || err.Error() != want {
		t.Errorf("a config file of %d bytes: error %v, want %q", len(text)+1, err, want)
	}
}

// A setting given empty does not let the parent's variable through to the
// command (review finding 8: --log= kept PBWRAP_LOG, --debug= kept
// PBWRAP_DEBUG=1 though debug was off).
func TestChildEnvEmptyFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PBWRAP_LOG", "/tmp/l1")
	t.Setenv("PBWRAP_DEBUG", "1")
	cfg := newConfig()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	cfg.addFlags(fs, nil)
	if err := fs.Parse([]string{"--log=", "--debug="}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.load(); err != nil {
		t.Fatal(err)
	}
	if cfg.logPath != "" || cfg.debug {
		t.Fatalf("--log= --debug=: log %q, debug %v; want no log, no debug", cfg.logPath, cfg.debug)
	}
	got := cfg.childEnv([]string{"HOME=/h", "PBWRAP_LOG=/tmp/l1", "PBWRAP_DEBUG=1"}, "/r")
	want := []string{"HOME=/h", "PBWRAP_ROOT=/r", "PBWRAP_DEBUG=0"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}

// --hook-allow takes absolute directories, colon-separated; a relative
// one, or "/", is refused with the reason, and the hooks then read no
// more than by default.
func TestHookAllowSetting(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tt := range []struct {
		value string
		want  []string
		err   string
	}{
		{"/a:/b/", []string{"/a", "/b"}, ""},
		{"/a::", []string{"/a"}, ""},
		{"/a:rel", nil, `"rel" is not an absolute path`},
		{"/a:/", nil, "would let hooks expand every file"},
	} {
		t.Setenv("PBWRAP_HOOK_ALLOW", tt.value)
		cfg := newConfig()
		err := cfg.load()
		switch {
		case tt.err == "" && err != nil, tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("PBWRAP_HOOK_ALLOW=%q: error %v, want %q", tt.value, err, tt.err)
		case !slices.Equal(cfg.hookAllow, tt.want):
			t.Errorf("PBWRAP_HOOK_ALLOW=%q: %q, want %q", tt.value, cfg.hookAllow, tt.want)
		}
	}
}

// --max-store takes bytes or a size in powers of 1024; 0 is no cap.
func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"1048576", 1 << 20, true}, {"512B", 512, true},
		{"1K", 1 << 10, true}, {"1KiB", 1 << 10, true}, {"500M", 500 << 20, true}, {"1GiB", 1 << 30, true},
		{"1.5G", 3 << 29, true}, {"2T", 2 << 40, true}, {"2TiB", 2 << 40, true},
		{"", 0, false}, {"G", 0, false}, {"1GB", 0, false}, {"1g", 0, false}, {"-1", 0, false}, {"1e3", 0, false},
		{"1 G", 0, false}, {"NaN", 0, false}, {"9000000T", 0, false}, {"1..2G", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
