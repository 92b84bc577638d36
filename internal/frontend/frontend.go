// Package frontend finds what relays the user's keys to pbwrap, from the
// environment and pbwrap's ancestor processes: tmux, GNU screen (and its
// version), mosh, zellij, ssh, the Linux console, or a terminal emulator it
// does not know; and says what that front end does with pastes: marks them
// (bracketed paste), does not, or is not known to. The wrapper, pbwrap
// doctor and pbwrap doctor --paste all take it from Detect, so that they
// say and do the same.
//
// Detect is pure: Here reads this process's system (processes_linux.go,
// processes_darwin.go; elsewhere the environment alone).
package frontend

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pbwrap/pbwrap/internal/capture"
)

// A Process is one of pbwrap's ancestors.
type Process struct {
	PID  int
	Name string // its command name (comm), as ps shows it
	// TTY is its controlling terminal's device number, 0 for none.
	TTY uint64
}

// String names the process for people: "tmux: server (process 812)".
func (p Process) String() string { return fmt.Sprintf("%s (process %d)", p.Name, p.PID) }

// A System is what Detect reads.
type System struct {
	// Getenv reads the environment.
	Getenv func(string) string
	// TTY is pbwrap's controlling terminal's device number; 0 when it is
	// not known, and then Ancestors are looked at by their names alone.
	TTY uint64
	// Console says that pbwrap's terminal is a virtual console of the
	// Linux kernel (/dev/tty1 and on).
	Console bool
	// Ancestors are pbwrap's parent, its parent, and so on, nearest
	// first; nil where they cannot be read.
	Ancestors []Process
	// Version returns what GNU screen says of its version (the first line
	// of screen -v) for the screen process p (a zero p: the screen on
	// PATH), or "" when it cannot be run.
	Version func(p Process) string
}

// A FrontEnd is what relays the user's keys to pbwrap, as far as pbwrap
// can tell.
type FrontEnd struct {
	// Name is what it is, for people: "tmux", "GNU screen 4.09.00",
	// "mosh", "the Linux console"; "" when no front end is known (a
	// terminal emulator, or a terminal over ssh).
	Name string
	// Marks is what it does with pastes.
	Marks capture.Marks
	// Why says how pbwrap knows: "tmux: server (process 812) holds the
	// terminal", "$TMUX is set", "TERM=linux".
	Why string
	// Gap is how long a paste stays open without input, where the front
	// end pauses within its pastes for longer than termproto.BurstGap; 0
	// otherwise.
	Gap time.Duration
	// Drops says that the front end drops bytes of large pastes by
	// itself, so that a saved paste holds what it delivered.
	Drops bool
}

// ScreenGap is how long a paste stays open without input where GNU screen
// 4 relays it: screen pauses its own relay of a paste for 100 or 200 ms
// (measured: 12 of 12 runs of a 200 KB paste into screen 4.09 paused so,
// none longer), and 300 ms outlasts both.
const ScreenGap = 300 * time.Millisecond

// DropsNote says what GNU screen 4 does to large pastes, measured without
// pbwrap: for doctor and the debug log.
const DropsNote = "GNU screen 4 drops bytes of large pastes by itself " +
	"(screen 4.09 delivered 1 to 15 bytes fewer than a 200 KB paste held in 25 of 32 runs, with nothing else in between), " +
	"so a saved paste holds what screen delivered"

// passThrough are the programs that relay a terminal unchanged, each on a
// terminal of its own: the front end is on the other side of them.
var passThrough = []string{"sudo", "su", "doas", "script", "pbwrap"}

// Detect tells what relays the user's keys to pbwrap on s. The nearest
// ancestor that is not on pbwrap's terminal holds that terminal (a
// multiplexer, sshd, a terminal emulator), past programs that pass a
// terminal on unchanged (sudo, script, ...); what it is decides. Where
// there is none to look at (no ancestors read, or a login over ssh), the
// environment says what it can: $TMUX and $STY (not over ssh), and TERM,
// which tmux and screen set and ssh carries (tmux*, screen*, linux).
func Detect(s System) FrontEnd {
	if s.Getenv == nil {
		s.Getenv = func(string) string { return "" }
	}
	holder := holderOf(s)
	if holder != nil {
		held := holder.String() + " holds the terminal"
		switch name := holder.Name; {
		case isTmux(name):
			return tmux(held)
		case isScreen(name):
			return screen(s, *holder, held)
		case name == "mosh-server":
			return FrontEnd{Name: "mosh", Marks: capture.MarksYes, Why: held + " (mosh passes bracketed paste since 1.2.5)"}
		case name == "zellij":
			return FrontEnd{Name: "zellij", Why: held}
		case s.Console:
			return console("pbwrap's terminal is a virtual console")
		case !isSSHD(name):
			return FrontEnd{Why: "the terminal is " + holder.String()}
		}
	}
	if s.Console {
		return console("pbwrap's terminal is a virtual console")
	}
	overSSH := holder != nil // sshd: nothing of this machine's is in between.
	if !overSSH {
		switch {
		case s.Getenv("TMUX") != "":
			return tmux("$TMUX is set")
		case s.Getenv("STY") != "":
			return screen(s, Process{}, "$STY is set")
		case s.Getenv("ZELLIJ") != "" || s.Getenv("ZELLIJ_SESSION_NAME") != "":
			return FrontEnd{Name: "zellij", Why: "$ZELLIJ is set"}
		}
	}
	via := ""
	if overSSH {
		via = ", over ssh"
	}
	term := s.Getenv("TERM")
	why := "TERM=" + term + via
	switch {
	case strings.HasPrefix(term, "tmux"):
		return tmux(why)
	case term == "linux":
		return console(why)
	case strings.HasPrefix(term, "screen"):
		// tmux's default TERM, and screen's: screen 4 pauses within a
		// paste, so wait for it.
		return FrontEnd{Name: "tmux or GNU screen", Why: why, Gap: ScreenGap}
	case overSSH:
		return FrontEnd{Why: "over ssh (" + holder.String() + ")"}
	}
	return FrontEnd{}
}

// holderOf returns the process that holds pbwrap's terminal: the nearest
// ancestor on another terminal (or none), past those that pass a terminal
// on unchanged; nil when there is none (the terminal is the kernel's, or
// the ancestors are not known). Where pbwrap's own terminal is not known,
// it is the nearest multiplexer by name.
func holderOf(s System) *Process {
	tty := s.TTY
	for i := range s.Ancestors {
		p := &s.Ancestors[i]
		switch {
		case tty == 0:
			if isTmux(p.Name) || isScreen(p.Name) || p.Name == "mosh-server" || p.Name == "zellij" {
				return p
			}
		case p.TTY == tty:
		case isPassThrough(p.Name) && p.TTY != 0:
			tty = p.TTY // Its own terminal is the one that matters now.
		default:
			return p
		}
	}
	return nil
}

func isPassThrough(name string) bool {
	for _, n := range passThrough {
		if name == n {
			return true
		}
	}
	return false
}

// isTmux reports whether a command name is tmux's: "tmux: server" on
// Linux, "tmux" elsewhere.
func isTmux(name string) bool { return name == "tmux" || strings.HasPrefix(name, "tmux:") }

// isScreen reports whether a command name is GNU screen's ("SCREEN" is
// what it calls its server in ps's listing).
func isScreen(name string) bool { return strings.EqualFold(name, "screen") }

// isSSHD reports whether a command name is OpenSSH's server: sshd, and
// sshd-session (per session, from OpenSSH 9.8).
func isSSHD(name string) bool { return name == "sshd" || strings.HasPrefix(name, "sshd-") }

func tmux(why string) FrontEnd {
	return FrontEnd{Name: "tmux", Marks: capture.MarksYes, Why: why + " (tmux marks pastes into a pane that asks, as pbwrap does)"}
}

func console(why string) FrontEnd {
	return FrontEnd{Name: "the Linux console", Marks: capture.MarksNo, Why: why + " (it does not mark pastes)"}
}

// screenVersion finds screen's version in what screen -v prints:
// "Screen version 4.09.00 (GNU) 30-Jan-22".
var screenVersion = regexp.MustCompile(`^Screen version ((\d+)\.[0-9.]*)`)

// screen is GNU screen, of the version that p (or screen on PATH) says:
// from 5.0 it passes bracketed paste on; 4 does not, pauses within a
// paste, and drops bytes of large ones.
func screen(s System, p Process, why string) FrontEnd {
	out := ""
	if s.Version != nil {
		out = s.Version(p)
	}
	m := screenVersion.FindStringSubmatch(out)
	if m == nil {
		return FrontEnd{Name: "GNU screen", Why: why + " (its version is not known: screen 5 marks pastes, 4 does not)", Gap: ScreenGap}
	}
	f := FrontEnd{Name: "GNU screen " + m[1], Why: why}
	if major, _ := strconv.Atoi(m[2]); major >= 5 {
		f.Marks, f.Why = capture.MarksYes, why+" (screen 5 marks pastes)"
		return f
	}
	f.Marks, f.Why, f.Gap, f.Drops = capture.MarksNo, why+" (screen 4 does not mark pastes)", ScreenGap, true
	return f
}

// Here detects the front end of this process, from its environment and
// its ancestors.
func Here() FrontEnd { return Detect(Local()) }

// Local is this process's System: os.Getenv, its terminal and its
// ancestors where the system lets them be read, and screen's version by
// running it (only when screen is the front end).
func Local() System {
	tty, console := ownTerminal()
	return System{Getenv: os.Getenv, TTY: tty, Console: console, Ancestors: Ancestors(), Version: screenVersionOf}
}

// versionWait bounds how long screen -v may take.
const versionWait = time.Second

// runVersion returns the first line that the program at path prints for
// -v, or "" when it cannot be run.
func runVersion(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), versionWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-v").Output()
	if err != nil && len(out) == 0 {
		return ""
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

// Names are the command names of ps, in order.
func Names(ps []Process) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}
