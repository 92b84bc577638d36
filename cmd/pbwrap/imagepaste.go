package main

import (
	"strings"

	"github.com/pbwrap/pbwrap/internal/capture"
)

// imagePasteFor decides what --image-paste comes to in this run: off
// stays off; on and auto are off inside a multiplexer (tmux, screen,
// zellij, mosh drop kitty's clipboard protocol, and the mode, turned on
// through one, would change every pane); auto is off too where pbwrap
// does not run over SSH, since there the agents read the clipboard of the
// user's own machine themselves. What is left of auto still depends on
// the terminal's answer (capture.ImageAuto). why says what decided.
func imagePasteFor(mode capture.ImageMode, getenv func(string) string, ancestors []string) (capture.ImageMode, string) {
	if mode == capture.ImageOff {
		return capture.ImageOff, "--image-paste is off"
	}
	if mux := multiplexer(getenv, ancestors); mux != "" {
		return capture.ImageOff, "inside " + mux + ", which drops kitty's clipboard protocol"
	}
	if mode == capture.ImageOn {
		return capture.ImageOn, "--image-paste is on"
	}
	if !overSSH(getenv) {
		return capture.ImageOff, "not over SSH (neither SSH_CONNECTION nor SSH_TTY is set): the agents read this machine's clipboard themselves"
	}
	return capture.ImageAuto, "over SSH: on if the terminal says it has kitty's paste events"
}

// overSSH reports whether the environment says pbwrap runs in an SSH
// session.
func overSSH(getenv func(string) string) bool {
	return getenv("SSH_CONNECTION") != "" || getenv("SSH_TTY") != ""
}

// multiplexer names the terminal multiplexer pbwrap runs inside, by the
// variables each sets (TMUX, STY, ZELLIJ) or, for mosh, which sets none,
// and for a multiplexer whose variable was cleared, by the names of
// pbwrap's ancestor processes (see processAncestors); "" for none.
func multiplexer(getenv func(string) string, ancestors []string) string {
	switch {
	case getenv("TMUX") != "":
		return "tmux"
	case getenv("STY") != "":
		return "GNU screen"
	case getenv("ZELLIJ") != "" || getenv("ZELLIJ_SESSION_NAME") != "":
		return "zellij"
	}
	for _, name := range ancestors {
		switch {
		case strings.HasPrefix(name, "tmux"):
			return "tmux"
		case strings.EqualFold(name, "screen"):
			return "GNU screen"
		case name == "zellij":
			return "zellij"
		case name == "mosh-server":
			return "mosh"
		}
	}
	return ""
}
