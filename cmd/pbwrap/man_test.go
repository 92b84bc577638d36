package main

// The man page, doc/pbwrap.1, is made by this test file from the text
// pbwrap help and each command's --help print (help.go, the command table,
// the settings), the texts below for what help leaves out, and the
// README's troubleshooting table. It is committed, and the binary carries
// none of this; TestManPage fails when the page and this generator
// disagree. To make it again after a change:
//
//	go generate ./cmd/pbwrap

//go:generate go test -run ^TestManPage$ -update-man .

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// manPath is the man page, from this package's directory.
const manPath = "../../doc/pbwrap.1"

const manName = `pbwrap \- keep large pastes out of an AI coding agent's context`

const manFiles = `ROOT is --root or PBWRAP_ROOT, by default %s. It must be a
directory of the user's, not a symbolic link and not writable by others;
pbwrap creates it with mode 0700.

  ROOT/SESSION/              one run of pbwrap (SESSION is a UUIDv7), 0700
  ROOT/SESSION/paste-N.txt   the run's Nth saved paste, 0600
  ROOT/SESSION/manifest.json sizes, hashes, paths and outcomes, never text, 0600
  ROOT/SESSION/.lock         locked while the run lasts
  ROOT/SESSION/debug.log     the log with --debug and no --log
  ROOT/SESSION/.tmp-*        a paste or manifest being written
  ROOT/.cleanup.lock         held while old sessions are removed

A run that saved nothing removes its session directory when it ends.
Sessions whose last paste is older than the TTL are removed at start and by
pbwrap clean, never while their pbwrap runs.`

const manExitStatus = `Wrapping a command, pbwrap exits with the command's status: 128+N when it
was killed by signal N, 127 when it was not found, 126 when it could not be
run.

pbwrap's own commands exit with 0 when they did their job, 1 when they
failed (pbwrap doctor: it found a problem; pbwrap expand: a reference did not
expand) and 2 for a usage error: an unknown flag or command, a bad argument,
a bad value of a flag or an environment variable. pbwrap hook exits with 2
when it cannot read its input, which blocks the agent's call.`

// manEnvironment is what the environment variables that are not settings
// do.
var manEnvironment = [][2]string{
	{"PBWRAP_SESSION", "Set for the wrapped command: the session id. When it is set, pbwrap runs commands directly, unwrapped (pbwrap inside pbwrap)."},
	{"PBWRAP_SESSION_DIR", "Set for the wrapped command: the directory of its session's pastes."},
	{"XDG_STATE_HOME", "Where the default root is on Linux and the BSDs: $XDG_STATE_HOME/pbwrap; ~/.local/state/pbwrap when unset or relative."},
	{"TMPDIR", "Where the default root is when there is no home directory of yours, and where earlier builds kept it (pbwrap list and show still read $TMPDIR/pbwrap-UID)."},
}

// manPage is the man page, in roff with the man macros, with the
// troubleshooting table of readme, the README.
func manPage(readme string) (string, error) {
	trouble, err := troubleshootingRows(readme)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`'\" t` + "\n")
	b.WriteString(`.\" Made by go generate ./cmd/pbwrap from pbwrap's help (cmd/pbwrap/man_test.go); do not edit.` + "\n")
	b.WriteString(".TH PBWRAP 1 \"\" pbwrap \"User Commands\"\n")
	b.WriteString(".ad l\n.nh\n") // Long paths and flags: no justified lines, no hyphens added.
	b.WriteString(".SH NAME\n" + manName + "\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	b.WriteString(roffLine("pbwrap [flags] [--] COMMAND [ARGS...]") + "\n")
	for _, c := range commands {
		b.WriteString(roffLine("pbwrap "+c.usage) + "\n")
	}
	for _, t := range helpTopics {
		b.WriteString(roffLine("pbwrap help "+t.name+t.args) + "\n")
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	writeRoffText(&b, helpIntro)
	writeRoffText(&b, helpGrammar)
	writeRoffText(&b, helpOutro)
	b.WriteString(".SH OPTIONS\n")
	writeRoffText(&b, "Each flag is also set by its environment variable; a flag wins.")
	settings := newSettings()
	for _, s := range settings {
		name := `\fB` + roffEscape("--"+s.flag) + `\fR`
		if !s.isSwitch() {
			name += ` \fI` + roffEscape(s.arg) + `\fR`
		}
		fmt.Fprintf(&b, ".TP\n%s\n%s\n.br\n%s\n", name, roffLine(sentence(s.help)), roffLine(sentence(s.envHelp())))
	}
	b.WriteString(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nPrint the help.\n")
	b.WriteString(".SH COMMANDS\n")
	for _, c := range commands {
		fmt.Fprintf(&b, ".SS %s\n", roffHeading("pbwrap "+c.usage))
		writeRoffText(&b, sentence(c.summary))
		if help := c.helpText(); help != "" {
			writeRoffText(&b, help)
		}
	}
	for _, t := range helpTopics {
		fmt.Fprintf(&b, ".SS %s\n", roffLine("pbwrap help "+t.name+t.args))
		writeRoffText(&b, sentence(t.summary))
	}
	writeConfigTable(&b, settings)
	b.WriteString(".SH ENVIRONMENT\n")
	for _, s := range settings {
		fmt.Fprintf(&b, ".TP\n.B %s\nAs \\fB%s\\fR: %s\n", s.env, roffEscape("--"+s.flag), roffEscape(s.help))
	}
	for _, e := range manEnvironment {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", e[0], roffLine(e[1]))
	}
	b.WriteString(".SH FILES\n")
	writeRoffText(&b, fmt.Sprintf(manFiles, findSetting(settings, "root").shown))
	b.WriteString(".SH EXIT STATUS\n")
	writeRoffText(&b, manExitStatus)
	b.WriteString(".SH TROUBLESHOOTING\n")
	for _, row := range trouble {
		symptom := roffEscape(strings.ReplaceAll(row[0], "`", ""))
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n\\&%s\n.br\n\\fIFix:\\fR %s\n", symptom, roffMarkdown(fullStop(row[1])), roffMarkdown(fullStop(row[2])))
	}
	b.WriteString(".SH SEE ALSO\n")
	b.WriteString("The README, at https://github.com/pbwrap/pbwrap, says more on each agent.\n")
	return b.String(), nil
}

// writeConfigTable writes the settings, each its flag, environment
// variable and default, as tagged paragraphs: a table's columns are too
// narrow at 80 columns for a default that is a path.
func writeConfigTable(b *strings.Builder, settings []*setting) {
	b.WriteString(".SH CONFIGURATION\nEach setting: its flag, its environment variable, its default.\n")
	for _, s := range settings {
		def := s.value
		switch {
		case s.shown != "":
			def = s.shown
		case s.isSwitch():
			def = "off"
		case def == "":
			def = "none"
		}
		env := s.env
		if s.isSwitch() {
			env += "=1"
		}
		fmt.Fprintf(b, ".TP\n.B %s\n%s; default: %s\n", roffEscape("--"+s.flag), roffEscape(env), roffEscape(def))
	}
	b.WriteString(".SS The config file\n")
	writeRoffText(b, configHelp)
}

func findSetting(settings []*setting, flag string) *setting {
	for _, s := range settings {
		if s.flag == flag {
			return s
		}
	}
	panic("no setting " + flag)
}

// sentence makes a help line a sentence: capital first, full stop last.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + fullStop(s)[1:]
}

// fullStop ends s with a full stop.
func fullStop(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// writeRoffText writes help text as roff: each paragraph filled, except
// that lines starting "- " are list items and a paragraph with indented
// lines (examples, flag tables) keeps its lines as they are.
func writeRoffText(b *strings.Builder, text string) {
	for _, para := range strings.Split(strings.Trim(text, "\n"), "\n\n") {
		lines := strings.Split(para, "\n")
		switch {
		case strings.HasPrefix(lines[0], "- "):
			writeRoffList(b, lines)
		case hasIndented(lines):
			b.WriteString(".PP\n.nf\n")
			for _, l := range lines {
				b.WriteString(roffLine(l) + "\n")
			}
			b.WriteString(".fi\n")
		default:
			b.WriteString(".PP\n")
			for _, l := range lines {
				b.WriteString(roffLine(strings.TrimSpace(l)) + "\n")
			}
		}
	}
}

func hasIndented(lines []string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, " ") {
			return true
		}
	}
	return false
}

// writeRoffList writes the items of a list, each starting "- ".
func writeRoffList(b *strings.Builder, lines []string) {
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, "- "); ok {
			b.WriteString(".IP \\(bu 2\n")
			l = rest
		}
		b.WriteString(roffLine(strings.TrimSpace(l)) + "\n")
	}
}

// roffLine escapes a line of text, so that roff prints it as it is.
func roffLine(l string) string {
	l = roffEscape(l)
	if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
		l = `\&` + l
	}
	return l
}

// roffHeading is roffLine for a command's usage, which may break after
// each "|" of a list of words (the agents of pbwrap hook) where the line
// is full.
func roffHeading(l string) string {
	return strings.ReplaceAll(roffLine(l), "|", `|\:`)
}

// roffEscape escapes roff's escape character, writes hyphens as the minus
// signs a shell needs, and other than ASCII as Unicode escapes.
func roffEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffMarkdown escapes a cell of a Markdown table, with its `code` in
// bold.
func roffMarkdown(s string) string {
	parts := strings.Split(s, "`")
	for i, p := range parts {
		parts[i] = roffEscape(p)
		if i%2 == 1 {
			parts[i] = `\fB` + parts[i] + `\fR`
		}
	}
	return strings.Join(parts, "")
}

// troubleshootingRows returns the rows of the README's troubleshooting
// table: symptom, cause, fix.
func troubleshootingRows(readme string) ([][3]string, error) {
	_, section, ok := strings.Cut(readme, "\n## Troubleshooting\n")
	if !ok {
		return nil, fmt.Errorf("man page: README.md has no Troubleshooting section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows [][3]string
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		if len(cells) != 3 {
			return nil, fmt.Errorf("man page: README.md troubleshooting row has %d cells, want 3: %.60q", len(cells), l)
		}
		if cells[0] == "symptom" {
			continue
		}
		rows = append(rows, [3]string{cells[0], cells[1], cells[2]})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("man page: README.md troubleshooting table is empty")
	}
	return rows, nil
}

var updateMan = flag.Bool("update-man", false, "write "+manPath+" from the generator (go generate ./cmd/pbwrap)")

// TestManPage fails when the committed man page is not what the generator
// makes of pbwrap's help today: after a change to a command, a setting or
// the README's troubleshooting table, run go generate ./cmd/pbwrap.
func TestManPage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := manPage(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	if *updateMan {
		if err := os.WriteFile(manPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(manPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is not what the generator makes of pbwrap's help (%s); run go generate ./cmd/pbwrap", manPath, firstDifference(string(got), want))
	}
	for _, c := range commands {
		if !strings.Contains(want, ".SS "+roffHeading("pbwrap "+c.usage)+"\n") {
			t.Errorf("the man page has no section for pbwrap %s", c.name)
		}
	}
	for _, s := range newSettings() {
		if !strings.Contains(want, roffEscape("--"+s.flag)) || !strings.Contains(want, s.env) {
			t.Errorf("the man page leaves out --%s or %s", s.flag, s.env)
		}
	}
}

// firstDifference says on which line a and b first differ.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d is %q, want %q", i+1, al[i], bl[i])
		}
	}
	return "one ends early"
}

// TestManPageFormats has groff, where it is installed, read the man page
// with every warning on, at its default width and at the widths of a
// terminal of 80 columns and less (man sets the line length to the
// terminal's width): it must have nothing to say.
func TestManPageFormats(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("groff is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), ptytest.Watchdog)
	defer cancel()
	for _, width := range []string{"", "-rLL=80n", "-rLL=78n", "-rLL=72n"} {
		args := []string{"-t", "-man", "-ww", "-z", manPath}
		if width != "" {
			args = append([]string{width}, args...)
		}
		out, err := exec.CommandContext(ctx, "groff", args...).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("groff %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
