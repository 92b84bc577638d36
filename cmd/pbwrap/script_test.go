package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/store"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the command-line behaviour that needs no terminal:
// testdata/script/*.txtar, with the built pbwrap first in PATH.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(pbwrapBin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":    cmdStatus,
			"mksession": cmdMksession,
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

// cmdMksession makes a session as a pbwrap run would have left it, with
// the store package itself:
//
//	mksession [-agent NAME] [-age DURATION] [-live] [-inline N] [-var NAME] ROOT [FILE...]
//
// Each FILE's content becomes a saved paste, one second after the last.
// -age makes the session (its pastes and its directory's time) that old;
// -live keeps its lock held until the script ends; -inline records N
// pastes that went in as text. -var NAME sets $NAME to the session id and
// $NAME_SHORT to the 8 characters pbwrap list shows.
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
	root, err := store.OpenRoot(ts.MkAbs(fs.Arg(0)))
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
	}
}

// The README shows the agents' text that pbwrap help agents prints, the
// same, so that the two cannot drift apart.
func TestReadmeHasAgentsText(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte(agentsText)) {
		t.Error("README.md does not contain the text pbwrap help agents prints (agentsText)")
	}
}
