package frontend

import (
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/capture"
)

// The terminals of the table: pbwrap's own, and others.
const (
	pts5  = 0x8805 // /dev/pts/5
	pts3  = 0x8803
	pts9  = 0x8809
	other = 0x8801
)

// env is a getenv over pairs.
func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

// versions is screen -v of each version.
func versions(out string) func(Process) string { return func(Process) string { return out } }

const (
	screen4 = "Screen version 4.09.00 (GNU) 30-Jan-22"
	screen5 = "Screen version 5.0.0 (build on 2024-08-29 20:36:27) "
)

func TestDetect(t *testing.T) {
	t.Parallel()
	shell := Process{PID: 40, Name: "bash", TTY: pts5}
	tmuxServer := Process{PID: 10, Name: "tmux: server"}
	for _, tc := range []struct {
		name  string
		sys   System
		front string // FrontEnd.Name
		marks capture.Marks
		why   string // in FrontEnd.Why
		gap   time.Duration
		drops bool
	}{
		{
			name:  "tmux, by its process, without $TMUX (env -i, sudo)",
			sys:   System{TTY: pts5, Ancestors: []Process{shell, tmuxServer}},
			front: "tmux", marks: capture.MarksYes, why: "tmux: server (process 10) holds the terminal",
		},
		{
			name:  "tmux, by $TMUX, where processes are not read",
			sys:   System{Getenv: env("TMUX", "/tmp/tmux-1000/default,1,0")},
			front: "tmux", marks: capture.MarksYes, why: "$TMUX is set",
		},
		{
			name: "through sudo's own terminal, into tmux",
			sys: System{TTY: pts9, Ancestors: []Process{
				{PID: 50, Name: "sudo", TTY: pts9}, {PID: 49, Name: "sudo", TTY: pts5}, shell, tmuxServer,
			}},
			front: "tmux", marks: capture.MarksYes,
		},
		{
			name:  "xterm started from a tmux pane is the terminal, $TMUX inherited or not",
			sys:   System{Getenv: env("TMUX", "x"), TTY: pts9, Ancestors: []Process{{PID: 60, Name: "bash", TTY: pts9}, {PID: 59, Name: "xterm", TTY: pts5}, shell, tmuxServer}},
			front: "", marks: capture.MarksUnknown, why: "the terminal is xterm (process 59)",
		},
		{
			name:  "GNU screen 4 does not mark pastes, pauses within them, drops bytes",
			sys:   System{TTY: pts5, Ancestors: []Process{shell, {PID: 20, Name: "screen"}}, Version: versions(screen4)},
			front: "GNU screen 4.09.00", marks: capture.MarksNo, why: "screen 4 does not mark pastes", gap: ScreenGap, drops: true,
		},
		{
			name:  "GNU screen 5 marks them",
			sys:   System{TTY: pts5, Ancestors: []Process{shell, {PID: 20, Name: "SCREEN"}}, Version: versions(screen5)},
			front: "GNU screen 5.0.0", marks: capture.MarksYes,
		},
		{
			name:  "GNU screen of a version not known: asked, with screen's gap",
			sys:   System{TTY: pts5, Ancestors: []Process{shell, {PID: 20, Name: "screen"}}, Version: versions("")},
			front: "GNU screen", marks: capture.MarksUnknown, gap: ScreenGap,
		},
		{
			name:  "GNU screen by $STY",
			sys:   System{Getenv: env("STY", "123.pts-0.host"), Version: versions(screen4)},
			front: "GNU screen 4.09.00", marks: capture.MarksNo, why: "$STY is set", gap: ScreenGap, drops: true,
		},
		{
			name:  "mosh marks pastes",
			sys:   System{TTY: pts5, Ancestors: []Process{shell, {PID: 30, Name: "mosh-server"}}},
			front: "mosh", marks: capture.MarksYes,
		},
		{
			name:  "tmux inside mosh: the nearest decides",
			sys:   System{TTY: pts5, Ancestors: []Process{shell, tmuxServer}},
			front: "tmux", marks: capture.MarksYes,
		},
		{
			name:  "the Linux console",
			sys:   System{TTY: 0x0401, Console: true, Ancestors: []Process{{PID: 7, Name: "bash", TTY: 0x0401}, {PID: 6, Name: "login", TTY: 0x0401}}},
			front: "the Linux console", marks: capture.MarksNo, why: "virtual console",
		},
		{
			name:  "ssh from a tmux pane: tmux's TERM comes along",
			sys:   System{Getenv: env("TERM", "tmux-256color"), TTY: pts5, Ancestors: []Process{shell, {PID: 8, Name: "sshd-session"}}},
			front: "tmux", marks: capture.MarksYes, why: "TERM=tmux-256color, over ssh",
		},
		{
			name:  "ssh from a console",
			sys:   System{Getenv: env("TERM", "linux"), TTY: pts5, Ancestors: []Process{shell, {PID: 8, Name: "sshd"}}},
			front: "the Linux console", marks: capture.MarksNo,
		},
		{
			name:  "ssh from tmux or screen, TERM=screen: asked, with screen's gap",
			sys:   System{Getenv: env("TERM", "screen-256color", "TMUX", "stale"), TTY: pts5, Ancestors: []Process{shell, {PID: 8, Name: "sshd"}}},
			front: "tmux or GNU screen", marks: capture.MarksUnknown, gap: ScreenGap,
		},
		{
			name:  "plain ssh: asked",
			sys:   System{Getenv: env("TERM", "xterm-256color"), TTY: pts5, Ancestors: []Process{shell, {PID: 8, Name: "sshd"}}},
			front: "", marks: capture.MarksUnknown, why: "over ssh (sshd (process 8))",
		},
		{
			name:  "a terminal emulator: asked",
			sys:   System{Getenv: env("TERM", "xterm-kitty"), TTY: pts5, Ancestors: []Process{shell, {PID: 3, Name: "kitty"}}},
			front: "", marks: capture.MarksUnknown, why: "the terminal is kitty (process 3)",
		},
		{
			name:  "its own terminal not known: the nearest multiplexer by name",
			sys:   System{Ancestors: []Process{{PID: 4, Name: "bash"}, {PID: 3, Name: "xterm"}, tmuxServer}},
			front: "tmux", marks: capture.MarksYes,
		},
		{
			name:  "nothing known",
			sys:   System{},
			front: "", marks: capture.MarksUnknown,
		},
	} {
		f := Detect(tc.sys)
		if f.Name != tc.front || f.Marks != tc.marks || !strings.Contains(f.Why, tc.why) || f.Gap != tc.gap || f.Drops != tc.drops {
			t.Errorf("%s: %+v, want %q, marks %v, why with %q, gap %v, drops %v", tc.name, f, tc.front, tc.marks, tc.why, tc.gap, tc.drops)
		}
	}
}

// This process's own system reads: its terminal or none, its ancestors
// (this test's, on Linux), and Detect takes it without failing.
func TestLocal(t *testing.T) {
	t.Parallel()
	s := Local()
	if s.Getenv == nil || s.Version == nil {
		t.Fatalf("Local() = %+v: no environment or version reader", s)
	}
	for _, p := range s.Ancestors {
		if p.PID <= 1 || p.Name == "" {
			t.Errorf("ancestor %+v: no process id or name", p)
		}
	}
	_ = Detect(s)
}
