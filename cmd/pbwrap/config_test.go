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

// The config file: what people write in such files (comments, export,
// blanks around =, quotes, ~ and $VAR) is read; each bad line is one issue
// naming the file and the line, with the setting a misspelt name most
// likely means, and the other lines apply (issue 39: one bad line stopped
// every wrapped agent).
func TestReadConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		path := filepath.Join(dir, "config")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	lookup := func(name string) (string, bool) {
		v, ok := map[string]string{"HOME": "/home/me", "XDG_STATE_HOME": "/home/me/state"}[name]
		return v, ok
	}
	path := write("\ufeff# comment\n\n  PBWRAP_MIN_BYTES = 100 # bytes\r\n" +
		"export PBWRAP_REF_FORMAT='<{path} #{n}>'\nPBWRAP_LOG=\"\"\n" +
		"PBWRAP_ROOT=~/pastes\nPBWRAP_HOOK_ALLOW=~/a:$XDG_STATE_HOME/b\n" +
		"PBWRAP_MINBYTES=5\nmin-lines=3\nPBWRAP_TTL=\"7d\nEDITOR=vi\nPBWRAP_OFF\nPBWRAP_DEBUG=$NOPE\n" +
		"PBWRAP_TTL=1d\nPBWRAP_TTL=2d\n")
	values, issues, err := readConfigFile(path, lookup)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fileValue{
		"PBWRAP_MIN_BYTES":  {"100", path + ":3"},
		"PBWRAP_REF_FORMAT": {"<{path} #{n}>", path + ":4"},
		"PBWRAP_LOG":        {"", path + ":5"},
		"PBWRAP_ROOT":       {"/home/me/pastes", path + ":6"},
		"PBWRAP_HOOK_ALLOW": {"/home/me/a:/home/me/state/b", path + ":7"},
		"PBWRAP_TTL":        {"2d", path + ":15"},
	} {
		if got := values[name]; got != want {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
	if len(values) != 6 {
		t.Errorf("values %v, want the 6 good lines' alone", values)
	}
	want := []string{
		path + ":8: unknown setting PBWRAP_MINBYTES (did you mean PBWRAP_MIN_BYTES?); the line is ignored",
		path + `:9: want NAME=VALUE: "min-lines" is not a variable name (letters, digits and _) (did you mean PBWRAP_MIN_LINES=VALUE?); the line is ignored`,
		path + ":10: a double quote is not closed on this line; the line is ignored",
		path + ":11: unknown setting EDITOR (pbwrap --help lists the PBWRAP_ variables); the line is ignored",
		path + ":12: want NAME=VALUE: no = after PBWRAP_OFF; the line is ignored",
		path + ":13: $NOPE is not set (or empty); the line is ignored",
	}
	if !slices.Equal(issues, want) {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(issues, "\n"), strings.Join(want, "\n"))
	}

	write("PBWRAP_MIN_BYTES=" + strings.Repeat("9", 70000) + "\n")
	if _, _, err := readConfigFile(path, lookup); err == nil || !strings.Contains(err.Error(), "read "+path) {
		t.Errorf("a config file over 64 KiB: error %v, want one naming it", err)
	}
	if values, issues, err := readConfigFile(filepath.Join(dir, "none"), lookup); err != nil || len(values) != 0 || issues != nil {
		t.Errorf("a missing config file: %v, %v, %v; want nothing and no error", values, issues, err)
	}
	// A directory: one line, the path once (review finding 4).
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	wantErr := "config file: " + sub + " is a directory, not a regular file"
	if _, _, err := readConfigFile(sub, lookup); err == nil || err.Error() != wantErr {
		t.Errorf("a directory as config file: error %v, want %q", err, wantErr)
	}
}

// A bad value in the config file is a warning, and the setting keeps its
// default; the same value from the environment, or a flag, is the error
// (exit status 2), as the user gave it for this run.
func TestConfigFileValueWarns(t *testing.T) {
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "pbwrap"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(xdg, "pbwrap", "config")
	if err := os.WriteFile(file, []byte("PBWRAP_MIN_LINES=many\nPBWRAP_MIN_BYTES=100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("PBWRAP_SESSION", "")
	cfg := newConfig()
	if err := cfg.load(); err != nil {
		t.Fatalf("a bad value in the config file: load error %v, want none", err)
	}
	if cfg.minLines != 200 || cfg.minBytes != 100 {
		t.Errorf("min-lines %d, min-bytes %d; want the default 200 and the file's 100", cfg.minLines, cfg.minBytes)
	}
	want := []string{file + `:1: PBWRAP_MIN_LINES="many": want a whole number of lines, at least 1; using the default, 200`}
	if got := cfg.warnings(); !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	t.Setenv("PBWRAP_MIN_LINES", "few")
	cfg = newConfig()
	if err := cfg.load(); err == nil || err.Error() != `PBWRAP_MIN_LINES="few": want a whole number of lines, at least 1` {
		t.Errorf("a bad value in the environment: load error %v, want it named", err)
	}
}

// A PBWRAP_ variable that looks like a setting misspelt is a warning with
// the setting it most likely means; pbwrap's own variables and those of
// its test and benchmark scripts are none (issue 39: PBWRAP_MINBYTES was
// silently ignored).
func TestEnvTypos(t *testing.T) {
	env := []string{"HOME=/h", "PBWRAP_MINBYTES=5", "PBWRAP_of=1", "PBWRAP_ROOT=/r", "PBWRAP_LOGS=/l",
		"PBWRAP_ON=1", "PBWRAP_FOO=1", "pbwrap_min_lines=3"}
	want := []string{
		"PBWRAP_MINBYTES in the environment is not a setting (did you mean PBWRAP_MIN_BYTES?); it is ignored",
		"PBWRAP_of in the environment is not a setting (did you mean PBWRAP_OFF?); it is ignored",
		"PBWRAP_LOGS in the environment is not a setting (did you mean PBWRAP_LOG?); it is ignored",
	}
	if got := envTypos(env); !slices.Equal(got, want) {
		t.Errorf("envTypos = %q, want %q", got, want)
	}
	if got := otherVariables(env); !slices.Equal(got, []string{"PBWRAP_ON", "PBWRAP_FOO"}) {
		t.Errorf("otherVariables = %q, want PBWRAP_ON and PBWRAP_FOO", got)
	}
	// The variables pbwrap sets, and its scripts' and tests' own: none may
	// be taken for a typo, or every run of the tests would warn.
	tools := []string{"PBWRAP_SESSION", "PBWRAP_SESSION_DIR", "PBWRAP_TRACE", "PBWRAP_E2E_PREFIX", "PBWRAP_E2E_NODE",
		"PBWRAP_E2E_ONLY", "PBWRAP_E2E_PBWRAP", "PBWRAP_E2E_PI", "PBWRAP_E2E_DUMP", "PBWRAP_CRUSH_SRC", "PBWRAP_CRUSH_VERSION",
		"PBWRAP_REQUIRE_TMUX", "PBWRAP_REQUIRE_SHELLS", "PBWRAP_REQUIRE_ORACLE", "PBWRAP_REQUIRE_VTERM", "PBWRAP_XTERM_HEADLESS",
		"PBWRAP_XTERM_ASK", "PBWRAP_XTERM_PRINT", "PBWRAP_TEST_CHILD", "PBWRAP_TEST_INPUT", "PBWRAP_TEST_SPY",
		"PBWRAP_TEST_REPORT", "PBWRAP_TEST_LOG", "PBWRAP_TEST_PANIC", "PBWRAP_TEST_FILTER", "PBWRAP_TEST_SPY_DELAY",
		"PBWRAP_TEST_SHELL", "PBWRAP_TEST_RESET_PANIC", "PBWRAP_TEST_LEADER", "PBWRAP_TEST_TMUX",
		"PBWRAP_STORE_TEST_ROOT", "PBWRAP_STORE_TEST_NOW", "PBWRAP_STORE_TEST_CHILD", "PBWRAP_REQUIRE_MOUNT"}
	for _, name := range tools {
		if got := envTypos([]string{name + "=1"}); got != nil {
			t.Errorf("%s: %q, want no warning", name, got)
		}
	}
}

// Setting names get "did you mean" as they are misspelt: by a letter or
// two, in lower case, as a flag, without PBWRAP_.
func TestSuggestSetting(t *testing.T) {
	for name, want := range map[string]string{
		"PBWRAP_MINBYTES": "PBWRAP_MIN_BYTES", "PBWRAP_MIN_BYTE": "PBWRAP_MIN_BYTES", "pbwrap_min_bytes": "PBWRAP_MIN_BYTES",
		"min-bytes": "PBWRAP_MIN_BYTES", "--min-bytes": "PBWRAP_MIN_BYTES", "MIN_BYTES": "PBWRAP_MIN_BYTES",
		"PBWRAP_ROT": "PBWRAP_ROOT", "PBWRAP_TL": "PBWRAP_TTL", "PBWRAP_OFF": "", "PBWRAP_ON": "", "EDITOR": "",
		"PBWRAP_": "", "": "", "PBWRAP_REQUIRE_STOR": "PBWRAP_REQUIRE_STORE", "off": "PBWRAP_OFF",
	} {
		if got := suggestSetting(name); got != want {
			t.Errorf("suggestSetting(%q) = %q, want %q", name, got, want)
		}
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
	if _, _, err := readConfigFile(path, nil); err != nil {
		t.Errorf("a config file of %d bytes: %v, want no error", len(text), err)
	}
	if err := os.WriteFile(path, []byte(text+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "config file: read " + path + ": larger than 64 KiB"
	if _, _, err := readConfigFile(path, nil); err == nil || err.Error() != want {
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
