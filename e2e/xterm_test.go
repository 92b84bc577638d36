//go:build e2e

package e2e

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/term"
)

// xterm, the reference terminal, judges what pbwrap leaves behind: under
// Xvfb, the test runs pbwrap with a child that writes a hostile stream and
// exits, and asks xterm with DECRQM, before and after, the state of every
// mode it answers for. Run by scripts/e2e-xterm.

// decrqmModes are the modes asked: DEC private ones, then ANSI ones
// (prefixed "a").
var decrqmModes = []string{
	"1", "3", "6", "7", "9", "12", "25", "45", "47", "66", "69", "1000", "1001", "1002", "1003", "1004",
	"1005", "1006", "1015", "1016", "1047", "1049", "2004", "2026", "2031", "2048", "1050", "1051",
	"1052", "1053", "1060", "1061", "5522", "9001", "7727", "1034", "1036", "1037", "1039", "67", "1007",
	"a2", "a4", "a12", "a20",
}

// xtermStreams are what the child writes: the forms of issue 24, and the
// modes set in such spellings.
var xtermStreams = []string{
	"\x1b[?20\a04l\x1b[?2004\x7fl\x1b[\b?2004l\u009b?2004l\x9b?2004l",
	"\x1b[?1049h\x1b[?10\a00h\x1b[?1\x00h\x1b\a=\x1b[4\bh\x1b[?6\vh\x1b[?7\fl\x1b[?2\r5l\x1b[20h\x1b[?1006;1004;2026h\x1b[?12h\x1b[5 q",
	"\x1b[?1000h\x1b[?1000s\x1b[?1000l\x1b[?1000r\x1b[?" + strings.Repeat("9999;", 20) + "2004l",
	"\x1b[?1049h\x1b[?1000h\x1bc\x1b[?66h\x1b[!p\x1b[?45;69;3h\x1b[2;10r\x1b[1;31m\x1b(0",
	"\u009b?1049h\x9b?1000h\x9b4h\u009b?25l\x1b]0;title-cut\x1b[?2004l",
	"\x1b[?1051;1061;9001;7727;5522;2048;2031h\x1b]52;c;?\a\x1b[2h\x1b[12l",
}

func init() {
	// The test binary also plays the child and the asker, in xterm.
	if hexStream := os.Getenv("PBWRAP_XTERM_PRINT"); hexStream != "" {
		b, _ := hex.DecodeString(hexStream)
		os.Stdout.Write(b)
		os.Exit(0)
	}
	if out := os.Getenv("PBWRAP_XTERM_ASK"); out != "" {
		if err := askModes(out); err != nil {
			os.WriteFile(out+".err", []byte(err.Error()), 0o600)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// askModes asks the terminal, with DECRQM fenced by DA1, the state of
// every mode of decrqmModes, and appends "mode=state" lines to the file out.
func askModes(out string) error {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer tty.Close()
	old, err := term.MakeRaw(int(tty.Fd()))
	if err != nil {
		return err
	}
	defer term.Restore(int(tty.Fd()), old)
	var q bytes.Buffer
	for _, m := range decrqmModes {
		if a, ok := strings.CutPrefix(m, "a"); ok {
			fmt.Fprintf(&q, "\x1b[%s$p", a)
		} else {
			fmt.Fprintf(&q, "\x1b[?%s$p", m)
		}
	}
	q.WriteString("\x1b[c")
	if _, err := tty.Write(q.Bytes()); err != nil {
		return err
	}
	var got []byte
	buf := make([]byte, 4096)
	da := regexp.MustCompile(`\x1b\[\?[0-9;]*c`)
	for deadline := time.Now().Add(5 * time.Second); !da.Match(got); {
		if time.Now().After(deadline) {
			return fmt.Errorf("no DA1 answer after %q", got)
		}
		n, err := tty.Read(buf)
		if err != nil {
			return err
		}
		got = append(got, buf[:n]...)
	}
	var lines []string
	for _, m := range regexp.MustCompile(`\x1b\[(\??)([0-9]+);([0-9]+)\$y`).FindAllSubmatch(got, -1) {
		name := string(m[2])
		if len(m[1]) == 0 {
			name = "a" + name
		}
		lines = append(lines, name+"="+string(m[3]))
	}
	f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintln(f, strings.Join(lines, " "))
	return err
}

func TestXterm(t *testing.T) {
	for _, tool := range []string{"Xvfb", "xterm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is needed (scripts/e2e-xterm installs it)", tool)
		}
	}
	display := ":" + fmt.Sprint(90+os.Getpid()%100)
	xvfb := exec.Command("Xvfb", display, "-screen", "0", "1024x768x24")
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xvfb.Process.Kill(); xvfb.Wait() })
	time.Sleep(time.Second)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	version, _ := exec.Command("xterm", "-version").Output()
	t.Logf("%s", bytes.TrimSpace(version))
	for i, stream := range xtermStreams {
		out := filepath.Join(t.TempDir(), "modes")
		script := fmt.Sprintf(`PBWRAP_XTERM_ASK=%[1]s %[2]s; PBWRAP_XTERM_PRINT=%[3]s %[4]s %[2]s; PBWRAP_XTERM_ASK=%[1]s %[2]s`,
			out, self, hex.EncodeToString([]byte(stream)), pbwrap)
		cmd := exec.Command("xterm", "-geometry", "80x24", "-xrm", "XTerm*allowWindowOps: true", "-e", "sh", "-c", script)
		cmd.Env = append(os.Environ(), "DISPLAY="+display, "PBWRAP_ROOT="+t.TempDir())
		done := make(chan error, 1)
		go func() { done <- cmd.Run() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("xterm: %v", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("xterm did not end in 30 s")
		}
		b, err := os.ReadFile(out)
		if err != nil {
			e, _ := os.ReadFile(out + ".err")
			t.Fatalf("stream %d: no answers: %v %s", i, err, e)
		}
		asked := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(asked) != 2 {
			t.Fatalf("stream %d: %d answers, want before and after: %q", i, len(asked), b)
		}
		before, after := strings.Fields(asked[0]), strings.Fields(asked[1])
		if len(before) != len(decrqmModes) {
			t.Errorf("stream %d: xterm answered %d of %d modes: %s", i, len(before), len(decrqmModes), asked[0])
		}
		if strings.Join(before, " ") != strings.Join(after, " ") {
			t.Errorf("stream %d %q: modes differ after pbwrap:\nbefore %s\n after %s", i, stream, before, after)
		} else {
			t.Logf("stream %d: the %d modes xterm answered for are as before", i, len(after))
		}
	}
}
