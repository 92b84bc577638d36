// Package vtoracle runs real terminal emulators as oracles for pbwrap's
// tests: the tests feed them what pbwrap would write to the user's
// terminal, and read back what they made of it, by their own parsers and
// not by pbwrap's reading. xterm.js headless (the terminal of VS Code)
// reports the modes it is in; libvterm's vterm-dump the sequences it read.
//
// The emulator runs in one Node.js process (xtermjs.js, embedded here) that
// reads many streams, each in a new terminal. It needs node on PATH and the
// npm package @xterm/headless, found in the node_modules directory that
// PBWRAP_XTERM_HEADLESS names, or through NODE_PATH; scripts/test installs
// both.
package vtoracle

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

//go:embed xtermjs.js
var script []byte

// ErrUnavailable reports that an emulator cannot run here: node,
// @xterm/headless or vterm-dump is missing (scripts/test installs them).
var ErrUnavailable = errors.New("terminal emulator not installed (scripts/test installs it)")

// A Snapshot is every mode a terminal keeps, by name: "dec1049"-style names
// for DEC private modes, "ansi4" for ANSI modes, and a few others (mouse,
// mouseEncoding, altScreen, cursorStyle, cursorBlink, scrollRegion, glevel,
// charsets). Values are as the emulator holds them; "dec5522", kitty's
// paste events, which xterm.js does not have, is what its parser read of
// the mode sequences last.
type Snapshot map[string]any

// A Result is what the emulator made of one stream: a new terminal's modes
// (its defaults), its modes after each chunk, and how many clipboard reads
// (OSC 52 "?", OSC 5522 type=read) reached it.
type Result struct {
	Fresh Snapshot   `json:"fresh"`
	After []Snapshot `json:"after"`
	Reads int        `json:"reads"`
	Error string     `json:"error"`
}

// XtermJS is a running emulator process. It is not safe for concurrent
// use; Close ends it.
type XtermJS struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	dir string
}

// StartXtermJS starts the emulator, or returns an error that wraps
// ErrUnavailable when it cannot run here.
func StartXtermJS() (*XtermJS, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	modules := os.Getenv("PBWRAP_XTERM_HEADLESS")
	if modules == "" && os.Getenv("NODE_PATH") == "" {
		return nil, fmt.Errorf("%w: PBWRAP_XTERM_HEADLESS is not set", ErrUnavailable)
	}
	if modules != "" {
		if _, err := os.Stat(filepath.Join(modules, "@xterm", "headless", "package.json")); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	dir, err := os.MkdirTemp("", "pbwrap-vtoracle")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "xtermjs.js")
	if err := os.WriteFile(path, script, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(node, path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start node: %w", err)
	}
	return &XtermJS{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), dir: dir}, nil
}

// Read has a new terminal read the chunks in turn and returns what it
// made of them.
func (x *XtermJS) Read(chunks [][]byte) (*Result, error) {
	req := struct {
		Chunks []string `json:"chunks"`
	}{Chunks: make([]string, len(chunks))}
	for i, c := range chunks {
		req.Chunks[i] = base64.StdEncoding.EncodeToString(c)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := x.in.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("xterm.js: write request: %w", err)
	}
	line, err := x.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("xterm.js: read answer: %w", err)
	}
	var res Result
	if err := json.Unmarshal(line, &res); err != nil {
		return nil, fmt.Errorf("xterm.js: answer %.200q: %w", line, err)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("xterm.js: %s", res.Error)
	}
	if len(res.After) != len(chunks) {
		return nil, fmt.Errorf("xterm.js: %d snapshots for %d chunks", len(res.After), len(chunks))
	}
	return &res, nil
}

// Close ends the emulator process.
func (x *XtermJS) Close() error {
	x.in.Close()
	err := x.cmd.Wait()
	os.RemoveAll(x.dir)
	return err
}

// Differences lists the modes in which s differs from want, as
// "name: got, want".
func (s Snapshot) Differences(want Snapshot) []string {
	var diffs []string
	for k, w := range want {
		if g := s[k]; fmt.Sprint(g) != fmt.Sprint(w) {
			diffs = append(diffs, fmt.Sprintf("%s: %v, want %v", k, g, w))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// VtermDump has libvterm's parser read p, with vterm-dump (Debian's
// libvterm-bin), and returns what it makes of it: text as is, and every
// control, sequence and string it recognises in braces, as in
// "{DECSM 1049,2004}" or "{OSC 52;c;?}". It returns an error that wraps
// ErrUnavailable when vterm-dump is not installed.
func VtermDump(p []byte) (string, error) {
	path, err := exec.LookPath("vterm-dump")
	if err != nil {
		return "", fmt.Errorf("%w: vterm-dump: %v", ErrUnavailable, err)
	}
	cmd := exec.Command(path)
	cmd.Stdin = bytes.NewReader(p)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("vterm-dump: %w", err)
	}
	return string(out), nil
}
