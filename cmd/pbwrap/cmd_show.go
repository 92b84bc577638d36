package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/store"
)

var showCommand = &command{
	name:    "show",
	usage:   "show [last | SESSION[:N] | PATH]",
	summary: "print a saved paste to standard output",
	help: `last (the default) is the newest saved paste; run inside a pbwrap session
(PBWRAP_SESSION set), the newest of that session, or, when it has saved
none, the newest of all, with a note on standard error. SESSION is a session id, a
unique start of one, or the 8 characters pbwrap list shows; alone it means the
session's newest paste, SESSION:N its paste N. PATH is a paste file under the
root (with the default root, also under $TMPDIR/pbwrap-UID, where earlier
builds saved); when its file is gone, show says whether it expired, was
trimmed to --max-store, went with pbwrap clean --all, or was deleted. The
text is printed exactly as saved, so it can be piped on:

  pbwrap show last | wc -l
  pbwrap show 7c2e91ab:2 > recovered.log`,
	run:     runShow,
	warns:   true,
	globals: []string{"root"},
	args:    showArgs,
	files:   true,
}

// showArgs completes show's argument: last, and the short id of each
// session that saved a paste, newest first (which show takes as they are).
func showArgs(cfg *config, prev []string) []string {
	if len(prev) > 0 {
		return nil
	}
	words := []string{"last"}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return words
	}
	pastes, _, err := loadPastes(&streams{out: io.Discard, err: io.Discard}, readRoots(cfg, root))
	if err != nil {
		return words
	}
	for _, p := range pastes { // Newest first.
		if id := shortID(p.Session); !slices.Contains(words, id) {
			words = append(words, id)
		}
	}
	return words
}

func runShow(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 1); err != nil {
		return err
	}
	which := "last"
	if fs.NArg() == 1 {
		which = fs.Arg(0)
	}
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return err
	}
	roots := readRoots(cfg, root)
	pastes, sessions, err := loadPastes(std, roots)
	if err != nil {
		return err
	}
	if which == "last" {
		if own := os.Getenv("PBWRAP_SESSION"); own != "" && own != "none" {
			if _, err := findPaste(roots, own, pastes, sessions); err == nil {
				which = own
			} else if len(pastes) > 0 {
				fmt.Fprintf(std.err, "pbwrap show: this session (%s) has saved no paste: the newest of all, from session %s\n",
					printable.Quote(shortID(own)), shortID(pastes[0].Session))
			}
		}
	}
	path, err := findPaste(roots, which, pastes, sessions)
	if err != nil {
		return printable.Error(err)
	}
	// The paste file is opened without following a symlink put in its
	// place, and only if it is a regular file.
	f, err := store.OpenPaste(path)
	if err != nil {
		return printable.Error(err)
	}
	defer f.Close()
	_, err = io.Copy(std.out, f)
	return err
}

var pasteFileName = regexp.MustCompile(`^paste-[0-9]+\.txt$`)

// findPaste resolves show's argument to a paste file under one of roots
// (readRoots).
func findPaste(roots []string, which string, pastes []savedPaste, sessions []store.SessionSummary) (string, error) {
	if which == "last" {
		if len(pastes) == 0 {
			return "", fmt.Errorf("no saved pastes under %s", strings.Join(roots, " or "))
		}
		return pastes[0].Path, nil
	}
	if strings.ContainsRune(which, filepath.Separator) {
		return checkPastePath(roots, which)
	}
	id, nText, hasN := strings.Cut(which, ":")
	session, err := matchSession(id, sessions)
	if err != nil {
		return "", err
	}
	n := 0
	if hasN {
		n, err = strconv.Atoi(nText)
		switch {
		case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(nText, "-"):
			return "", fmt.Errorf("%q: the paste number is too large", which)
		case err != nil || n < 1:
			return "", fmt.Errorf("%q: the paste number must be a whole number from 1", which)
		}
	}
	for _, p := range pastes { // Newest first: the first match is the newest.
		if p.Session == session && (n == 0 || p.N == n) {
			return p.Path, nil
		}
	}
	if n > 0 {
		return "", fmt.Errorf("session %s has no saved paste %d", shortID(session), n)
	}
	return "", fmt.Errorf("session %s has no saved pastes", shortID(session))
}

// matchSession finds the one session a full id, a unique prefix or the
// short form names.
func matchSession(id string, sessions []store.SessionSummary) (string, error) {
	if id == "" {
		return "", errors.New("empty session id")
	}
	var matches []string
	for _, s := range sessions {
		if s.ID == id {
			return s.ID, nil
		}
		if strings.HasPrefix(s.ID, id) || (len(id) >= 4 && strings.HasSuffix(s.ID, id)) {
			matches = append(matches, s.ID)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no session matches %q (pbwrap list shows them)", id)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("session %q is ambiguous: it matches %s", id, strings.Join(matches, ", "))
}

// checkPastePath accepts a path only if it is a paste file pbwrap saved
// under one of roots, so that show is not a way to read anything else.
// When the file is gone, the error says what became of it, if the root
// can tell (see whyGone).
func checkPastePath(roots []string, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if root, ok := pasteUnder(roots, abs); ok {
			return "", fmt.Errorf("%s: %s", path, whyGone(roots, root, abs))
		}
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, unwrapPathErr(err))
	}
	if _, ok := pasteUnder(roots, real); !ok {
		return "", fmt.Errorf("%s is not a paste saved under %s", path, strings.Join(roots, " or "))
	}
	return real, nil
}

// pasteUnder returns the root of roots under which path, absolute and
// clean, is a paste file's: ROOT/SESSION/paste-N.txt exactly, the root
// two levels up.
func pasteUnder(roots []string, path string) (string, bool) {
	if !pasteFileName.MatchString(filepath.Base(path)) {
		return "", false
	}
	for _, root := range roots {
		if filepath.Dir(filepath.Dir(path)) == root {
			return root, true
		}
	}
	return "", false
}

// whyGone says what became of the paste file path under root, one of
// roots, which is gone: deleted while its session is still there; or, by
// the root's record of removals (store.FindRemoval), expired, trimmed to
// the cap, or removed by pbwrap clean --all; or, with no record, removed
// by something other than pbwrap.
func whyGone(roots []string, root, path string) string {
	dir := filepath.Dir(path)
	id := filepath.Base(dir)
	if _, err := os.Lstat(dir); err == nil {
		if m, err := store.ReadManifest(dir); err == nil && recordsPaste(m, path) {
			return fmt.Sprintf("deleted: its session %s is still there and its manifest records the paste, "+
				"but something other than pbwrap removed the file", shortID(id))
		}
		return fmt.Sprintf("no such file: its session %s is there, and records no such paste", shortID(id))
	}
	r, err := store.FindRemoval(root, id)
	switch {
	case err != nil:
		return fmt.Sprintf("no such file, and pbwrap's record of removals cannot say why: %v", err)
	case r == nil && root != roots[0]:
		return fmt.Sprintf("no such file, and pbwrap has no record of removing its session: it was under %s, "+
			"the temporary directory, which most systems empty at boot", root)
	case r == nil:
		return "no such file, and pbwrap has no record of removing its session: something else removed it"
	}
	ended, removed := r.Ended.Local().Format(timeLayout), r.Removed.Local().Format(timeLayout)
	switch r.Why {
	case store.RemovedExpired:
		return fmt.Sprintf("expired: its session ended %s, and pbwrap removed it %s, older than the TTL of %s (--ttl)",
			ended, removed, days(r.TTL))
	case store.RemovedTrimmed:
		return fmt.Sprintf("trimmed: its session ended %s, and pbwrap removed it %s to keep the saved pastes under %s "+
			"(--max-store), the sessions that ended longest ago first", ended, removed, humanBytes(r.Limit))
	}
	return fmt.Sprintf("removed by pbwrap clean --all %s (its session ended %s)", removed, ended)
}

// timeLayout is how show and doctor write a time for people.
const timeLayout = "2006-01-02 15:04"

// days writes d in days when it is whole days (30d), and as
// shortDuration does otherwise.
func days(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return shortDuration(d)
}

// recordsPaste reports whether m records path as a saved paste.
func recordsPaste(m *store.Manifest, path string) bool {
	for _, r := range m.Pastes {
		if r.Outcome == store.OutcomeSaved && r.Path == path {
			return true
		}
	}
	return false
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
