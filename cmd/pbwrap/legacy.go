package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/store"
)

// The root of earlier builds. Until the default root moved to the XDG
// state directory (issue 29), pastes went to $TMPDIR/pbwrap-<uid>
// (store.LegacyRoot). Its sessions are left where they are, not moved:
// every reference an agent's conversation holds carries the absolute path
// of its file, so a moved file is as lost to the agent as a removed one,
// and a session still running there keeps writing there. So pbwrap list
// and show read the earlier root as well as the default one, and the
// start-up cleanup expires its sessions with the same TTL, until the
// system empties it at boot or nothing is left; nothing new goes there.
// Only while the root is the default: a root the user chose is the only
// root.

// earlierRoot returns the root of earlier builds, resolved, when cfg's
// root is the default and the earlier one differs from root (resolved);
// "" otherwise.
func earlierRoot(cfg *config, root string) string {
	if s := cfg.find("root"); s.from != fromDefault || s.err != nil {
		return ""
	}
	old := store.LegacyRoot()
	if old == "" {
		return ""
	}
	old, err := store.ResolveRoot(old)
	if err != nil || old == root {
		return ""
	}
	return old
}

// readRoots returns the roots list and show read: root, then the earlier
// one if any (see earlierRoot).
func readRoots(cfg *config, root string) []string {
	if old := earlierRoot(cfg, root); old != "" {
		return []string{root, old}
	}
	return []string{root}
}

// cleanupRoots returns the roots the start-up cleanup goes through: the
// session's root, resolved ("" when it cannot be named), then the earlier
// one if any.
func cleanupRoots(cfg *config, root string) []string {
	if root == "" {
		return nil
	}
	return readRoots(cfg, root)
}

// movedRootNotice returns what pbwrap says once, at the first start with
// the new default root, when the earlier root holds sessions: where pastes
// now go and that the earlier ones are still found. "" when there is
// nothing to say: a root of the user's choosing, a default root that
// exists already (this was said when it was made), an earlier root with
// no sessions. Called before the session makes the root.
//
// wrap prints it on stderr before the child starts, as it says that
// pastes cannot be saved: it never lands in what the agent draws, an
// agent drawing inline leaves it above, and one on the alternate screen
// uncovers it when it exits.
func movedRootNotice(cfg *config) string {
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		return ""
	}
	old := earlierRoot(cfg, root)
	if old == "" {
		return ""
	}
	if _, err := os.Lstat(root); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	sessions, err := store.ListSessions(old)
	if err != nil || len(sessions) == 0 {
		return ""
	}
	return fmt.Sprintf("pbwrap: pastes are now saved under %s, which a reboot does not empty; the %s under %s stay there, "+
		"and pbwrap list and show find them until they expire", printable.Quote(root), plural(len(sessions), "session"), printable.Quote(old))
}
