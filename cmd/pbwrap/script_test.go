package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pbwrap/pbwrap/internal/store"
)

// TestScripts runs the command-line behaviour that needs no terminal:
// testdata/script/*.txtar, with the built pbwrap first in PATH.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(pbwrapBin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("UID", strconv.Itoa(os.Geteuid())) // For the root of earlier builds, $TMPDIR/pbwrap-$UID.
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":     cmdStatus,
			"mksession":  cmdMksession,
			"forge":      cmdForge,
			"age":        cmdAge,
			"helpcovers": cmdHelpCovers,
			"mode":       cmdMode,
		},
	})
}

// cmdStatus runs a program and checks its exit status:
//
//	status N PROG [ARGS...]
//
// Its stdout and stderr are checked afterwards like those of exec.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	var exitErr *exec.ExitError
	got := 0
	switch {
	case errors.As(err, &exitErr):
		got = exitErr.ExitCode()
	case err != nil:
		ts.Fatalf("status: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdMode checks the permission bits of a file, without following a
// symlink:
//
//	mode OCTAL PATH
func cmdMode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mode OCTAL PATH")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	fi, err := os.Lstat(ts.MkAbs(args[1]))
	ts.Check(err)
	if got := fi.Mode().Perm(); got != os.FileMode(want) {
		ts.Fatalf("%s has mode %#o, want %#o", args[1], got, want)
	}
}

// cmdHelpCovers checks that help leaves out none of pbwrap's commands
// and help topics, however many the tables hold:
//
//	helpcovers
//
// Each command in the command table is in pbwrap help, with its usage, and
// in the package doc of cmd/pbwrap; pbwrap COMMAND --help prints its
// usage line first, and so does pbwrap help COMMAND. Each topic is in
// pbwrap help and pbwrap help TOPIC prints its text.
func cmdHelpCovers(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 0 {
		ts.Fatalf("usage: helpcovers")
	}
	doc := packageDoc(ts)
	ts.Check(ts.Exec("pbwrap", "help"))
	help := ts.ReadFile("stdout")
	for _, c := range commands {
		usage := "pbwrap " + c.usage
		if !strings.Contains(help, "\n  "+usage) {
			ts.Fatalf("pbwrap help does not list %q", usage)
		}
		if !strings.Contains(doc, "\tpbwrap "+c.name) {
			ts.Fatalf("the package doc of cmd/pbwrap does not list pbwrap %s", c.name)
		}
		for _, argv := range [][]string{{c.name, "--help"}, {"help", c.name}} {
			ts.Check(ts.Exec("pbwrap", argv...))
			if got := ts.ReadFile("stdout"); !strings.HasPrefix(got, "usage: "+usage+"\n") {
				ts.Fatalf("pbwrap %s printed %.60q, want its usage line first", strings.Join(argv, " "), got)
			}
		}
	}
	for _, topic := range helpTopics {
		if !strings.Contains(help, "\n  pbwrap help "+topic.name) {
			ts.Fatalf("pbwrap help does not list the topic %s", topic.name)
		}
		ts.Check(ts.Exec("pbwrap", "help", topic.name))
		if ts.ReadFile("stdout") != topic.text {
			ts.Fatalf("pbwrap help %s does not print the topic's text", topic.name)
		}
	}
}

// packageDoc returns the package doc of cmd/pbwrap, read from its source.
func packageDoc(ts *testscript.TestScript) string {
	files, err := filepath.Glob("*.go")
	ts.Check(err)
	var doc strings.Builder
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments|parser.PackageClauseOnly)
		ts.Check(err)
		if f.Doc != nil {
			doc.WriteString(f.Doc.Text())
		}
	}
	return doc.String()
}

// cmdMksession makes a session as a pbwrap run would have left it, with
// the store package itself:
//
//	mksession [-agent NAME] [-age DURATION] [-live] [-inline N] [-var NAME] ROOT [FILE...]
//
// Each FILE's content becomes a saved paste, one second after the last.
// -age makes the session (its pastes and its directory's time) that old;
// -live keeps its lock held until the script ends; -inline records N
// pastes that went in as text. -var NAME sets $NAME to the session id,
// $NAME_SHORT to the 8 characters pbwrap list shows and $NAME_DIR to the
// session's directory, as the manifest names it.
func cmdMksession(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("mksession", flag.ContinueOnError)
	agent := fs.String("agent", "claude", "")
	age := fs.Duration("age", 0, "")
	live := fs.Bool("live", false, "")
	inline := fs.Int("inline", 0, "")
	name := fs.String("var", "", "")
	if neg || fs.Parse(args) != nil || fs.NArg() < 1 {
		ts.Fatalf("usage: mksession [-agent NAME] [-age DURATION] [-live] [-inline N] [-var NAME] ROOT [FILE...]")
	}
	// Resolved as pbwrap resolves it, so that the paths in the manifest
	// are the ones pbwrap list finds (on macOS $WORK is under /var, a
	// symlink to /private/var).
	resolved, err := store.ResolveRoot(ts.MkAbs(fs.Arg(0)))
	ts.Check(err)
	root, err := store.OpenRoot(resolved)
	ts.Check(err)
	id, err := store.NewSessionID()
	ts.Check(err)
	start := time.Now().Add(-*age)
	sess, err := root.NewSession(id, store.Meta{PID: 4242, Argv0: *agent, Start: start, Version: "test"})
	ts.Check(err)
	for i, file := range fs.Args()[1:] {
		text := []byte(ts.ReadFile(file))
		tmp, err := sess.CreateTemp()
		ts.Check(err)
		_, err = tmp.Write(text)
		ts.Check(err)
		sum := sha256.Sum256(text)
		n, path, _, err := sess.CommitPaste(tmp, hex.EncodeToString(sum[:]))
		ts.Check(err)
		lines := int64(bytes.Count(text, []byte("\n")))
		if len(text) > 0 && text[len(text)-1] != '\n' {
			lines++
		}
		ts.Check(sess.Record(store.PasteRecord{
			N: n, Path: path, Bytes: int64(len(text)), Lines: lines, SHA256: hex.EncodeToString(sum[:]),
			Time: start.Add(time.Duration(i+1) * time.Second), Outcome: store.OutcomeSaved,
			Reference: "[paste saved: " + path + "]",
		}))
	}
	for range *inline {
		ts.Check(sess.Record(store.PasteRecord{Bytes: 10, Lines: 1, Time: start, Outcome: store.OutcomeInline, Reason: "under the threshold"}))
	}
	if *live {
		ts.Defer(func() { sess.Close() })
	} else {
		ts.Check(sess.Close())
	}
	if *age > 0 {
		ts.Check(os.Chtimes(sess.Dir, start, start))
	}
	if *name != "" {
		ts.Setenv(*name, id)
		ts.Setenv(*name+"_SHORT", shortID(id))
		ts.Setenv(*name+"_DIR", sess.Dir)
	}
}

// cmdForge replaces a session's manifest, as anyone who can write in the
// root could:
//
//	forge [-size N] SESSIONDIR FILE
//
// FILE's content, with $NAME and ${NAME} replaced by the script's
// variables, becomes SESSIONDIR/manifest.json; -size then makes the file
// N bytes long, the rest a sparse run of zero bytes.
func cmdForge(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("forge", flag.ContinueOnError)
	size := fs.Int64("size", 0, "")
	if neg || fs.Parse(args) != nil || fs.NArg() != 2 {
		ts.Fatalf("usage: forge [-size N] SESSIONDIR FILE")
	}
	path := filepath.Join(ts.MkAbs(fs.Arg(0)), "manifest.json")
	ts.Check(os.WriteFile(path, []byte(os.Expand(ts.ReadFile(fs.Arg(1)), ts.Getenv)), 0o600))
	if *size > 0 {
		ts.Check(os.Truncate(path, *size))
	}
}

// cmdAge makes a file or directory look last written some time ago:
//
//	age DURATION PATH
func cmdAge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: age DURATION PATH")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	then := time.Now().Add(-d)
	ts.Check(os.Chtimes(ts.MkAbs(args[1]), then, then))
}
