package main

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/pbwrap/pbwrap/internal/ptyproxy"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "list", 4},
		{"list", "", 4},
		{"list", "list", 0},
		{"lsit", "list", 1}, // a swap
		{"stat", "stats", 1},
		{"shwo", "show", 1},
		{"cleen", "clean", 1},
		{"doctr", "doctor", 1},
		{"expnad", "expand", 1},
		{"lits", "list", 1},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau (2)
		{"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestSuggestCommand(t *testing.T) {
	for name, want := range map[string]string{
		"stat":          "stats",
		"lsit":          "list",
		"lis":           "list",
		"shwo":          "show",
		"hlep":          "help",
		"doctr":         "doctor",
		"docter":        "doctor",
		"expnad":        "expand",
		"reset-termnal": "reset-terminal",
		"list":          "", // exact: wrapped on purpose, after --
		"ls":            "", // two edits from list, too far for a short name
		"cat":           "",
		"claude":        "",
		"vim":           "",
		"":              "",
	} {
		if got := suggestCommand(name); got != want {
			t.Errorf("suggestCommand(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestSuggestNotFound(t *testing.T) {
	notFound := &ptyproxy.ExecError{Name: "lsit", Code: 127, Err: exec.ErrNotFound}
	var got *ptyproxy.ExecError
	if err := suggestNotFound("lsit", notFound); !errors.As(err, &got) || got.Code != 127 ||
		got.Error() != "lsit: command not found (did you mean pbwrap list?)" {
		t.Errorf("suggestNotFound(lsit) = %v, want exit 127 with the hint", err)
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"zzzz", &ptyproxy.ExecError{Name: "zzzz", Code: 127, Err: exec.ErrNotFound}},
		{"./lsit", &ptyproxy.ExecError{Name: "./lsit", Code: 127, Err: exec.ErrNotFound}},
		{"lsit", &ptyproxy.ExecError{Name: "lsit", Code: 126, Err: exec.ErrNotFound}},
		{"lsit", errors.New("other")},
	} {
		if err := suggestNotFound(tc.name, tc.err); err != tc.err {
			t.Errorf("suggestNotFound(%q, %v) = %v, want the error unchanged", tc.name, tc.err, err)
		}
	}
}
