package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/pbwrap/pbwrap/internal/envfile"
	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/printable"
)

// A fileValue is a setting's value as a line of the config file gives it.
type fileValue struct {
	value string
	where string // "PATH:LINE"
}

// maxConfigFile is the most the config file may hold. A line per setting,
// with comments, is a few KiB; a larger file is not a config file, and one
// without end (a symlink to /dev/zero) must not be read whole.
const maxConfigFile = 64 << 10

// readConfigFile reads the config file at path, if there is one: lines of
// NAME=VALUE as a shell reads an assignment (package envfile: export,
// quotes, comments, ~ and $VAR), NAME one of the settings' environment
// variables. A name set again takes the later line's value, as in a
// shell. A line that cannot be read, or names no setting, is left out,
// and issues holds one line for it that names the file and the line, and
// for a name that looks like a setting's misspelt, that setting; the
// other lines apply. err is a file that cannot be read at all, or is
// refused (see readConfigText): nothing of it applies. lookup is the
// environment that $VAR and ~ expand from.
func readConfigFile(path string, lookup envfile.Lookup) (values map[string]fileValue, issues []string, err error) {
	values = make(map[string]fileValue)
	if path == "" {
		return values, nil, nil
	}
	text, err := readConfigText(path)
	if errors.Is(err, fs.ErrNotExist) {
		return values, nil, nil
	}
	if err != nil {
		return values, nil, err
	}
	text = strings.TrimPrefix(text, "\ufeff") // A byte order mark some editors write.
	for n, line := range strings.Split(text, "\n") {
		where := fmt.Sprintf("%s:%d", path, n+1)
		name, value, err := envfile.Parse(line, lookup)
		var perr *envfile.Error
		switch {
		case errors.As(err, &perr) && suggestSetting(perr.Name) != "":
			issues = append(issues, fmt.Sprintf("%s: %s (did you mean %s=VALUE?); the line is ignored", where, err, suggestSetting(perr.Name)))
		case err != nil:
			issues = append(issues, fmt.Sprintf("%s: %s; the line is ignored", where, err))
		case name == "":
		case !isSetting(name):
			issues = append(issues, fmt.Sprintf("%s: %s; the line is ignored", where, unknownSetting(name)))
		default:
			values[name] = fileValue{value: value, where: where}
		}
	}
	return values, issues, nil
}

// readConfigText returns the text of the config file at path: an error
// wrapping fs.ErrNotExist when there is none, and an error naming the
// file when it cannot be read or is refused: a file that is not a regular
// file (a directory, a named pipe, a device) or holds more than
// maxConfigFile bytes, without waiting for a writer to a named pipe.
func readConfigText(path string) (string, error) {
	text, _, err := fsutil.ReadRegular(path, maxConfigFile)
	var notRegular *fsutil.NotRegularError
	var tooLarge *fsutil.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", err
	case errors.As(err, &notRegular):
		return "", fmt.Errorf("config file: %s is %s, not a regular file", path, fsutil.Kind(notRegular.Mode))
	case errors.As(err, &tooLarge):
		return "", fmt.Errorf("config file: read %s: larger than %d KiB", path, maxConfigFile>>10)
	case err != nil:
		return "", fmt.Errorf("config file: %w", err)
	}
	return string(text), nil
}

// settingNames are the settings' environment variables, in the order
// help shows them: made once, as newSettings looks for the default root.
var settingNames = sync.OnceValue(func() []string {
	var names []string
	for _, s := range newSettings() {
		names = append(names, s.env)
	}
	return names
})

func isSetting(name string) bool { return slices.Contains(settingNames(), name) }

// unknownSetting is the reason a name that is no setting is refused.
func unknownSetting(name string) string {
	if hint := suggestSetting(name); hint != "" {
		return fmt.Sprintf("unknown setting %s (did you mean %s?)", name, hint)
	}
	return fmt.Sprintf("unknown setting %s (pbwrap --help lists the PBWRAP_ variables)", name)
}

// suggestSetting returns the setting's variable that name most likely
// means, or "": name written as a flag or in lower case (min-bytes,
// pbwrap_min_bytes), without PBWRAP_ (MIN_BYTES), or misspelt by at most
// one edit in a name of up to 4 letters after PBWRAP_, two in a longer
// one (PBWRAP_MINBYTES, PBWRAP_OF), as closest judges a typo.
func suggestSetting(name string) string {
	norm := strings.ToUpper(strings.ReplaceAll(strings.TrimLeft(name, "-"), "-", "_"))
	if norm == "" {
		return ""
	}
	names := settingNames()
	for _, n := range names {
		if n != name && (n == norm || n == "PBWRAP_"+norm) {
			return n
		}
	}
	suffix, ok := strings.CutPrefix(norm, "PBWRAP_")
	if !ok {
		return ""
	}
	suffixes := make([]string, len(names))
	for i, n := range names {
		suffixes[i] = strings.TrimPrefix(n, "PBWRAP_")
	}
	if hint := closest(suffix, suffixes); hint != "" {
		return "PBWRAP_" + hint
	}
	return ""
}

// ownVariables are the PBWRAP_ variables that are not settings and are
// pbwrap's own: it sets them for the command it wraps.
var ownVariables = []string{"PBWRAP_SESSION", "PBWRAP_SESSION_DIR"}

// envTypos returns, for each variable of env named PBWRAP_ that is no
// setting but looks like one misspelt (suggestSetting), a warning saying
// so. Other PBWRAP_ variables are left alone: pbwrap's own (ownVariables)
// and its tools' (its test and benchmark scripts set PBWRAP_E2E_PREFIX and
// the like), which pbwrap doctor lists.
func envTypos(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "PBWRAP_") || isSetting(name) || isOwnVariable(name) {
			continue
		}
		if hint := suggestSetting(name); hint != "" {
			out = append(out, fmt.Sprintf("%s in the environment is not a setting (did you mean %s?); it is ignored", name, hint))
		}
	}
	return out
}

func isOwnVariable(name string) bool { return slices.Contains(ownVariables, name) }

// otherVariables returns the PBWRAP_ variables of env that are neither a
// setting, nor pbwrap's own, nor a likely typo of a setting, for pbwrap
// doctor to list.
func otherVariables(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PBWRAP_") && !isSetting(name) && !isOwnVariable(name) && suggestSetting(name) == "" {
			out = append(out, name)
		}
	}
	return out
}

// warnings says, one line each, what of the configuration was left out:
// the config file if it could not be read, each of its lines that could
// not be used, each value of it refused (the setting keeps its default),
// and each PBWRAP_ variable of the environment that looks misspelt.
func (cfg *config) warnings() []string {
	var out []string
	if cfg.fileErr != nil {
		out = append(out, cfg.fileErr.Error()+"; it is ignored")
	}
	out = append(out, cfg.fileIssues...)
	for _, s := range cfg.settings {
		if s.err != nil && s.from == fromFile {
			out = append(out, fmt.Sprintf("%v; using the default, %s", s.err, s.shownDefault()))
		}
	}
	return append(out, cfg.envTypos...)
}

// sayWarnings writes the configuration's warnings to w, one line each,
// escaped (they hold what the file and the environment hold). Nothing is
// said inside pbwrap (PBWRAP_SESSION is set): the pbwrap around it said
// it at its start.
func (cfg *config) sayWarnings(w io.Writer) {
	if os.Getenv("PBWRAP_SESSION") != "" {
		return
	}
	for _, line := range cfg.warnings() {
		fmt.Fprintf(w, "pbwrap: %s\n", printable.Inline(line))
	}
}

// configHelp is pbwrap help config: the config file's grammar (package
// envfile) and what is done with a line that cannot be used.
const configHelp = `pbwrap reads its config file, $XDG_CONFIG_HOME/pbwrap/config (or
~/.config/pbwrap/config when XDG_CONFIG_HOME is unset or relative), if there
is one. It sets what the environment variables set (pbwrap --help lists
them), one a line, as a shell reads an assignment. A flag wins over the
environment, which wins over the file.

  # a comment line; blank lines are skipped too
  PBWRAP_MIN_BYTES=16384        # a comment after a blank
  export PBWRAP_TTL=14d         # export may come first
  PBWRAP_MIN_LINES = 300        # blanks around = are allowed
  PBWRAP_ROOT=~/.local/state/pbwrap-work
  PBWRAP_HOOK_ALLOW=~/src:$HOME/notes
  PBWRAP_REF_FORMAT=[paste saved: {path} ({lines} lines)]
  PBWRAP_REF_FORMAT='[paste #{n}: {path}]'

Quotes work as in the shell: 'single quotes' keep every character; in
"double quotes" a backslash escapes \ " $ and the backquote, and is itself
before anything else; outside quotes a backslash keeps the next character
as it is. Blanks inside a value are kept, those around it are not, and a #
after a blank, outside quotes, starts a comment (so quote a value that
holds " #", as the last example does). Outside quotes, ~ at the start of a
value or after a : is $HOME; outside single quotes, $NAME and ${NAME} are
that variable's value. A variable that is unset or empty is an error, and
so are $(...) and the backquote: pbwrap runs nothing to read its file. A
name set twice takes the later value.

A line that cannot be read, a name that is no setting (with the setting it
most likely means) or a value that a setting refuses is left out, and the
rest of the file applies: pbwrap says so in one line on standard error
when it starts a command, before the command owns the terminal, and in
its log; and when it runs list, show, stats, clean or setup. pbwrap doctor
lists each as a problem. A file that is not a regular file, or is larger
than 64 KiB, is left out whole, with a warning. A bad value of a flag or of
an environment variable, given for this run, is an error instead (exit
status 2). A PBWRAP_ variable of the environment that is no setting but
looks like one misspelt (PBWRAP_MINBYTES) is left out with a warning that
names the setting it most likely means.
`
