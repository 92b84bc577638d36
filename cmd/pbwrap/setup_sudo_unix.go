//go:build darwin || freebsd || linux

package main

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/pbwrap/pbwrap/internal/fsutil"
)

// asSudoUser makes pbwrap setup, run as root for a user (sudo, which
// names them in SUDO_UID and SUDO_GID, or su with their HOME), act as that
// user from here on, with that user's rights alone: the user's groups,
// gid and uid, set for the whole process and for good. Every file setup
// then reads, writes, links through or makes is one the user could, and
// the system checks it, at each step: a link the user planted to a file
// of root's, a directory of root's on the way, or a read-only directory
// stops the write as it would stop the user. It returns the uid acted as
// (-1 for none: not root, or root's own HOME). An error says why setup
// cannot tell whose files to write.
func asSudoUser(getenv func(string) string) (int, error) {
	if os.Geteuid() != 0 {
		return -1, nil
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return -1, fmt.Errorf("running as root, HOME is %q, not an absolute path: run pbwrap setup as the user whose agents it sets up", home)
	}
	// A HOME not made yet belongs to whoever owns the directory it goes in.
	fi, err := os.Stat(fsutil.NearestExisting(home))
	if err != nil {
		return -1, fmt.Errorf("running as root: HOME: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, fmt.Errorf("running as root: cannot tell who owns HOME %s", home)
	}
	uid, gid := int(st.Uid), int(st.Gid)
	if s := getenv("SUDO_UID"); s != "" {
		u, err := strconv.Atoi(s)
		if err != nil || u < 0 {
			return -1, fmt.Errorf("running under sudo: SUDO_UID=%q is not a user id", s)
		}
		g, err := strconv.Atoi(getenv("SUDO_GID"))
		if err != nil || g < 0 {
			return -1, fmt.Errorf("running under sudo: SUDO_GID=%q is not a group id", getenv("SUDO_GID"))
		}
		switch {
		case u != uid && uid == 0:
			// sudo set HOME to root's: root's own agents.
			return -1, nil
		case u != uid:
			return -1, fmt.Errorf("running under sudo for uid %d, HOME %s belongs to uid %d: run pbwrap setup as the user whose agents it sets up", u, home, uid)
		}
		gid = g
	}
	if uid == 0 {
		return -1, nil // Root's own HOME.
	}
	groups := []int{gid}
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		if ids, err := u.GroupIds(); err == nil {
			for _, id := range ids {
				if g, err := strconv.Atoi(id); err == nil && g != gid {
					groups = append(groups, g)
				}
			}
		}
	}
	if err := syscall.Setgroups(groups); err != nil {
		return -1, fmt.Errorf("act as uid %d: setgroups: %w", uid, err)
	}
	if err := syscall.Setgid(gid); err != nil {
		return -1, fmt.Errorf("act as uid %d: setgid %d: %w", uid, gid, err)
	}
	if err := syscall.Setuid(uid); err != nil {
		return -1, fmt.Errorf("act as uid %d: setuid: %w", uid, err)
	}
	if os.Geteuid() != uid || os.Getegid() != gid {
		return -1, fmt.Errorf("act as uid %d: still uid %d, gid %d", uid, os.Geteuid(), os.Getegid())
	}
	return uid, nil
}
