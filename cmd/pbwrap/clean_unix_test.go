//go:build darwin || freebsd || linux

package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/store"
)

// TestConfirmCleanOnlyListed: what confirmClean returns limits the
// cleanup to the sessions it listed. With nothing to list (the one
// session runs) it asks nothing, and the cleanup that follows removes
// nothing, also when that session has ended meanwhile; on "no" it
// returns nil, on "y" the listed session alone.
func TestConfirmCleanOnlyListed(t *testing.T) {
	root := realDir(t)
	running := makeSession(t, root)
	defer running.Close() // Best effort: closed below, unless the test failed before.
	var w strings.Builder
	only, err := confirmClean(root, store.DefaultTTL, strings.NewReader("y\n"), &w)
	if err != nil || only == nil || len(only) != 0 || w.Len() != 0 {
		t.Fatalf("nothing to list: confirmClean = %v, %v, wrote %q; want an empty map, no question", only, err, w.String())
	}
	if err := running.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := (&store.Cleaner{Root: root, All: true, Only: only}).Clean()
	if err != nil || len(rep.Removed) != 0 {
		t.Fatalf("Clean = %+v, %v; want nothing removed", rep, err)
	}
	if _, err := os.Stat(running.Dir); err != nil {
		t.Fatalf("the session that ended after the listing was removed: %v", err)
	}

	// Now it has ended, it is listed.
	w.Reset()
	if only, err := confirmClean(root, store.DefaultTTL, strings.NewReader("n\n"), &w); err != nil || only != nil || !strings.HasSuffix(w.String(), "nothing removed\n") {
		t.Errorf("answer n: confirmClean = %v, %v, wrote %q; want nil and \"nothing removed\"", only, err, w.String())
	}
	later := makeSession(t, root) // Runs at the listing, ends before the cleanup.
	defer later.Close()           // Best effort.
	only, err = confirmClean(root, store.DefaultTTL, strings.NewReader("y\n"), &w)
	if _, listed := only[running.ID]; err != nil || len(only) != 1 || !listed {
		t.Fatalf("answer y: confirmClean = %v, %v; want the ended session alone", only, err)
	}
	if err := later.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := (&store.Cleaner{Root: root, All: true, Only: only}).Clean(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(running.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the listed session was kept: %v", err)
	}
	if _, err := os.Stat(later.Dir); err != nil {
		t.Errorf("the session that ended after the listing was removed: %v", err)
	}
}
