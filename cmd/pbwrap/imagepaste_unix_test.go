//go:build darwin || freebsd || linux

package main

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// startImagePaste runs pbwrap with --image-paste on around a recording
// child with bracketed paste on, and waits for the mode at the terminal.
func startImagePaste(t *testing.T) *terminal {
	t.Helper()
	root := filepath.Join(realDir(t), "root")
	term := startPbwrap(t, ptytest.Job{
		Steps: []string{"raw", "record", "bp:on", "ready", "block"},
		Env:   []string{"PBWRAP_ROOT=" + root, "PBWRAP_IMAGE_PASTE=on", "TMUX=", "STY=", "ZELLIJ=", "ZELLIJ_SESSION_NAME="},
	})
	term.rootDir = root
	term.waitReady()
	term.WaitOutput("\x1b[?5522h")
	return term
}

// The whole chain through the built pbwrap: the paste event reaches
// pbwrap, its read reaches the terminal with the event's password, the
// reply comes back split into reads of 1 and 777 bytes (a link may split
// it anywhere, and pause) with keys around it,
// and the child gets the keys in order and the image's path as one
// bracketed paste; the file is the image, byte for byte. On exit the
// mode is off again.
func TestImagePastePTY(t *testing.T) {
	data := fakekitty.NoisePNG(80, 60) // Several packets.
	term := startImagePaste(t)
	term.Type([]byte("<"), 0)
	term.Type([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")+"="), 0) // kitty writes a packet at once.
	term.WaitFor("the read request", func() bool { return fakekitty.ReadRequest.Match(term.Output()) })
	m := fakekitty.ReadRequest.FindSubmatch(term.Output())
	if string(m[2]) != fakekitty.PW || string(m[3]) != base64.StdEncoding.EncodeToString([]byte("image/png")) {
		t.Fatalf("read request %q", m[0])
	}
	if n := bytes.Count(term.Output(), []byte("\x1b]5522;")); n != 1 {
		t.Errorf("%d requests at the terminal, want 1", n)
	}
	reply := fakekitty.Reply(string(m[1]), "image/png", data)
	term.Type([]byte(reply[:1000]), 1)
	term.Type([]byte(reply[1000:]+">"), 777)
	got := term.waitInputHas(">")
	path := filepath.Join(term.sessionDir(), "image-1.png")
	if want := "<" + pasteStart + path + pasteEnd + "=>"; got != want {
		t.Fatalf("child got %q, want %q", got, want)
	}
	saved, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(saved, data) {
		t.Fatalf("%s: %d bytes, %v; want the %d pasted", path, len(saved), err, len(data))
	}
	if strings.Contains(got, "]5522;") || strings.Contains(got, fakekitty.PW) {
		t.Errorf("a packet or the password reached the child: %q", got)
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
	term.WaitOutput("\x1b[?2004l\x1b[?5522l") // What gives the terminal back, with the mode off last.
}

// The terminal denies the read: the mode goes off at the terminal, the
// child gets one note, and the keys typed meanwhile after it.
func TestImagePasteDeniedPTY(t *testing.T) {
	term := startImagePaste(t)
	term.Type([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")+"@"), 0)
	term.WaitFor("the read request", func() bool { return fakekitty.ReadRequest.Match(term.Output()) })
	id := fakekitty.ReadRequest.FindSubmatch(term.Output())[1]
	term.Type([]byte(fakekitty.Packet("type=read:status=EPERM:id="+string(id), "")), 1)
	got := term.waitInputHas("@")
	if want := "[pbwrap: image paste is off for this session: the terminal answered EPERM to the clipboard read; paste again for the terminal's own paste]@"; got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
	term.WaitOutput("\x1b[?5522l")
	term.paste("text", 0)
	term.waitInputHas("text" + pasteEnd)
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// Over SSH, auto turns the mode on when kitty answers DECRQM 5522 with
// 2, and not when the terminal answers DA1 alone.
func TestImagePasteAutoPTY(t *testing.T) {
	if mux := multiplexer(func(string) string { return "" }, processAncestors()); mux != "" {
		t.Skipf("the tests run inside %s, where auto stays off", mux)
	}
	for _, tt := range []struct {
		answer ptytest.Answer
		on     bool
	}{
		{"\x1b[?5522;2$y\x1b[?2004;1$y\x1b[?12;2$y\x1b[?62;52;c", true},
		{"\x1b[?2004;1$y\x1b[?1;2c", false},
	} {
		root := filepath.Join(realDir(t), "root")
		term := startPbwrap(t, ptytest.Job{
			Steps:  []string{"raw", "record", "bp:on", "ready", "block"},
			Env:    []string{"PBWRAP_ROOT=" + root, "SSH_CONNECTION=10.0.0.1 5000 10.0.0.2 22", "TMUX=", "STY=", "ZELLIJ=", "ZELLIJ_SESSION_NAME="},
			Answer: tt.answer,
		})
		term.waitReady()
		term.WaitOutput("\x1b[?5522$p")
		term.Type([]byte("@"), 0)
		term.waitInputHas("@") // The answer has been read before it.
		if on := bytes.Contains(term.Output(), []byte("\x1b[?5522h")); on != tt.on {
			t.Errorf("answer %q: mode on %v, want %v", tt.answer, on, tt.on)
		}
		term.SignalWrapper(syscall.SIGTERM)
		term.WantExit("exit 143")
	}
}

// Ctrl-Z gives the terminal back with kitty's paste events off, so that
// the shell's pastes are plain again; fg turns them on before the child
// runs again.
func TestImagePasteCtrlZ(t *testing.T) {
	root := filepath.Join(realDir(t), "root")
	term := startPbwrap(t, ptytest.Job{
		Steps: []string{"watch", "ready", "block"},
		Env:   []string{"PBWRAP_ROOT=" + root, "PBWRAP_IMAGE_PASTE=on", "TMUX=", "STY=", "ZELLIJ=", "ZELLIJ_SESSION_NAME=", quickExit},
	})
	term.WaitReport("ready")
	term.WaitOutput("\x1b[?5522h")
	term.Type([]byte{0x1a}, 0) // Ctrl-Z
	term.WaitLeader("stopped SIGTSTP")
	term.WaitOutput(termproto.PasteOff + "\x1b[?5522l")
	stopped := len(term.Output())
	term.SignalLeader(syscall.SIGUSR1)
	term.WaitLeader("did SIGUSR1")
	term.SignalLeader(syscall.SIGUSR2) // fg
	waitOutput(func(out []byte) bool { return bytes.Contains(out[stopped:], []byte("\x1b[?5522h")) }, term)
	if got := string(term.Output()[stopped:]); !strings.HasPrefix(got, termproto.PasteOn+"\x1b[?5522h") {
		t.Errorf("on fg pbwrap wrote %q, want bracketed paste and paste events on first", got)
	}
	term.Type([]byte{0x03}, 0) // Ctrl-C
	term.WantExit("exit 130")
	// And at exit: the output reader may lag behind pbwrap's end.
	waitOutput(func(out []byte) bool { return bytes.Contains(out[stopped:], []byte("\x1b[?5522l")) }, term)
	if n := bytes.Count(term.Output()[stopped:], []byte("\x1b[?5522l")); n != 1 {
		t.Errorf("after fg the mode was reset %d times, want once, at exit", n)
	}
}
