package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/pbwrap/pbwrap/internal/capture"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// auto is on only over SSH, never inside a multiplexer; on is on but
// inside a multiplexer; off is off.
func TestImagePasteFor(t *testing.T) {
	ssh := []string{"SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22"}
	for _, tt := range []struct {
		mode      capture.ImageMode
		env       []string
		ancestors []string
		want      capture.ImageMode
		why       string
	}{
		{capture.ImageAuto, ssh, []string{"bash", "sshd"}, capture.ImageAuto, "over SSH"},
		{capture.ImageAuto, []string{"SSH_TTY", "/dev/pts/3"}, nil, capture.ImageAuto, "over SSH"},
		{capture.ImageAuto, nil, nil, capture.ImageOff, "not over SSH"},
		{capture.ImageAuto, append(ssh, "TMUX", "/tmp/tmux-1000/default,1,0"), nil, capture.ImageOff, "inside tmux"},
		{capture.ImageAuto, append(ssh, "STY", "1.pts-0.host"), nil, capture.ImageOff, "inside GNU screen"},
		{capture.ImageAuto, append(ssh, "ZELLIJ", "0"), nil, capture.ImageOff, "inside zellij"},
		{capture.ImageAuto, nil, []string{"zsh", "mosh-server"}, capture.ImageOff, "inside mosh"},
		{capture.ImageAuto, ssh, []string{"bash", "tmux: server"}, capture.ImageOff, "inside tmux"},
		{capture.ImageOn, nil, nil, capture.ImageOn, "--image-paste is on"},
		{capture.ImageOn, []string{"TMUX", "x"}, nil, capture.ImageOff, "inside tmux"},
		{capture.ImageOff, ssh, nil, capture.ImageOff, "--image-paste is off"},
	} {
		got, why := imagePasteFor(tt.mode, env(tt.env...), tt.ancestors)
		if got != tt.want || !strings.HasPrefix(why, tt.why) {
			t.Errorf("%s with %q, ancestors %q = %s, %q; want %s, %q...", tt.mode, tt.env, tt.ancestors, got, why, tt.want, tt.why)
		}
	}
}

// The doctor's line for each case, the unsupported ones saying why and
// what to do instead.
func TestImagePasteVerdict(t *testing.T) {
	for _, tt := range []struct {
		mode       capture.ImageMode
		why, clip  string
		err        error
		want       string
		workaround bool
	}{
		{capture.ImageAuto, "over SSH", "2", nil, "works: over SSH, and the terminal has kitty's paste events (DECRQM 5522 answered 2)", false},
		{capture.ImageAuto, "over SSH", "", nil, "would stay off: the terminal did not answer DECRQM for mode 5522, so it has no paste events (kitty 0.45 or later has them)", true},
		{capture.ImageAuto, "over SSH", "0", nil, "would stay off: the terminal has no paste events (DECRQM 5522 answered 0) (kitty 0.45 or later has them)", true},
		{capture.ImageOff, "inside tmux, which drops kitty's clipboard protocol", "", nil, "off: inside tmux, which drops kitty's clipboard protocol", true},
		{capture.ImageOff, "not over SSH (neither SSH_CONNECTION nor SSH_TTY is set): the agents read this machine's clipboard themselves", "2", nil, "off: not over SSH", true},
		{capture.ImageAuto, "over SSH", "", errors.New("not run from a terminal"), "not known: the terminal could not be asked (not run from a terminal)", false},
	} {
		got := imagePasteVerdict(tt.mode, tt.why, tt.clip, tt.err)
		if !strings.HasPrefix(got, tt.want) || strings.Contains(got, "scp") != tt.workaround {
			t.Errorf("verdict(%s, %q, %q, %v) =\n  %q\nwant %q (scp advice %v)", tt.mode, tt.why, tt.clip, tt.err, got, tt.want, tt.workaround)
		}
	}
}

// reset-terminal turns kitty's paste events off.
func TestResetTerminalTurnsPasteEventsOff(t *testing.T) {
	if !strings.Contains(string(fullReset()), "\x1b[?5522l") {
		t.Errorf("reset-terminal writes %q, without ESC[?5522l", fullReset())
	}
}
