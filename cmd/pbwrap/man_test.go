package main

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
