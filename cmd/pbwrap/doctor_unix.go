//go:build darwin || freebsd || linux

package main

import (
	"errors"
	"os"
	"regexp"
	"time"

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/ptyio"
	"golang.org/x/sys/unix"
)

// freeSpace is the space available to the user on the file system that
// holds path (or its nearest existing parent).
func freeSpace(path string) (uint64, string, error) {
	where := fsutil.NearestExisting(path)
	var st unix.Statfs_t
	if err := unix.Statfs(where, &st); err != nil {
		return 0, where, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), where, nil
}

var (
	decrqmAnswer = regexp.MustCompile(`\x1b\[\?2004;([0-4])\$y`)
	da1Answer    = regexp.MustCompile(`\x1b\[\?[0-9;]*c`)
)

// queryBracketedPaste asks the controlling terminal whether it supports
// bracketed paste, with DECRQM (ESC[?2004$p), and returns the state it
// answers (1 set, 2 reset, 3 permanently set, 0 or 4 not supported), or ""
// when it does not answer. A primary device attributes query (ESC[c),
// which every terminal answers, follows it: its answer comes after any
// DECRQM answer, so once it is read nothing is left to leak into the
// shell's input later. The terminal is in raw mode only for the question
// and restored after it, whatever happens.
func queryBracketedPaste(timeout time.Duration) (string, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return "", errors.New("not run from a terminal")
	}
	defer tty.Close()
	saved, err := ptyio.GetTermios(tty)
	if err != nil {
		return "", errors.New("not a terminal")
	}
	raw := *saved
	// ISIG off too: a Ctrl-C during the question is a byte, not a signal
	// that would end pbwrap before the terminal is restored.
	raw.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := ptyio.SetTermios(tty, &raw); err != nil {
		return "", errors.New("not a terminal")
	}
	defer ptyio.SetTermios(tty, saved) // Best effort: the question is over.

	if _, err := tty.WriteString("\x1b[?2004$p\x1b[c"); err != nil {
		return "", err
	}
	deadline := time.Now().Add(timeout)
	var got []byte
	buf := make([]byte, 64)
	for time.Now().Before(deadline) {
		if err := tty.SetReadDeadline(deadline); err != nil {
			return "", nil // Not pollable: cannot wait safely, so do not.
		}
		n, err := tty.Read(buf)
		got = append(got, buf[:n]...)
		if da1Answer.Match(got) {
			break
		}
		if err != nil {
			break
		}
	}
	if m := decrqmAnswer.FindSubmatch(got); m != nil {
		return string(m[1]), nil
	}
	return "", nil
}
