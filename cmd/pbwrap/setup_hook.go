package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// hookProgram returns the program an agent's hook runs: "pbwrap" when the
// pbwrap found on PATH is this one, else this pbwrap's absolute path, with
// why: no pbwrap on PATH, or another binary there. Symbolic links are
// resolved on both sides.
func hookProgram() (prog, why string, err error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", "", fmt.Errorf("find this pbwrap's path: %w", err)
	}
	onPath, err := exec.LookPath("pbwrap")
	if err != nil || !filepath.IsAbs(onPath) {
		return self, "no pbwrap on PATH", nil
	}
	if sameProgram(onPath, self) {
		return "pbwrap", "", nil
	}
	return self, fmt.Sprintf("the pbwrap on PATH, %s, is another binary", onPath), nil
}

// sameProgram reports whether path, symbolic links resolved, is the file
// self.
func sameProgram(path, self string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	if real == self {
		return true
	}
	a, errA := os.Stat(real)
	b, errB := os.Stat(self)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// command is the hook's command line for prog, as the agent's shell reads
// it.
func (s *hookSpec) command(prog string) string {
	return shellQuote(prog) + " hook " + s.agent
}

// shellWords splits a command line as a POSIX shell would, for the plain
// quoting pbwrap writes and people do (quotes and backslashes; no
// expansions). ok is false for an unterminated quote.
func shellWords(line string) (words []string, ok bool) {
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			word.WriteString(line[i+1 : i+1+end])
			i += 1 + end
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, false
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, true
}

// hookProgramOf returns the program of a hook command that runs pbwrap's
// hook for agent ("pbwrap hook claude", "/opt/bin/pbwrap hook claude"),
// and ok false for any other command.
func hookProgramOf(command, agent string) (prog string, ok bool) {
	words, ok := shellWords(command)
	if !ok || len(words) != 3 || words[1] != "hook" || words[2] != agent ||
		!strings.HasPrefix(filepath.Base(words[0]), "pbwrap") {
		return "", false
	}
	return words[0], true
}

// entry is the hook's entry in the event's list.
func (s *hookSpec) entry(command string) json.RawMessage {
	hook := jsonc.Object{
		{Name: "type", Value: json.RawMessage(`"command"`)},
		{Name: "command", Value: jsonc.String(command)},
		{Name: "timeout", Value: json.RawMessage(fmt.Sprint(s.timeout))},
	}
	return jsonc.Object{
		{Name: "matcher", Value: jsonc.String(s.matcher)},
		{Name: "hooks", Value: jsonc.Array([]json.RawMessage{hook.Marshal()})},
	}.Marshal()
}

// piExtensionHead is the first line of pbwrap's Pi extension, by which
// setup knows the file is pbwrap's.
var piExtensionHead = piExtension[:strings.IndexByte(piExtension, '\n')+1]

// piSpawn finds the program pbwrap's Pi extension runs: the first
// argument of its spawn call, a string.
var piSpawn = regexp.MustCompile(`spawn\(("(?:[^"\\]|\\.)*")`)

// piExtensionFor is pbwrap's Pi extension running prog.
func piExtensionFor(prog string) []byte {
	return []byte(strings.Replace(piExtension, `spawn("pbwrap", `, "spawn("+string(jsonc.String(prog))+", ", 1))
}

// piExtensionProgram returns the program that text, pbwrap's Pi
// extension, runs; ok is false when text is not pbwrap's extension.
func piExtensionProgram(text []byte) (prog string, ok bool) {
	if !bytes.HasPrefix(text, []byte(piExtensionHead)) {
		return "", false
	}
	m := piSpawn.FindSubmatch(text)
	if m == nil || json.Unmarshal(m[1], &prog) != nil {
		return "", false
	}
	return prog, true
}

// installExtension returns pbwrap's Pi extension running prog, which
// replaces text, an older version of it; a file that is not pbwrap's
// extension is left alone.
func (s *hookSpec) installExtension(text []byte, prog string) ([]byte, bool, error) {
	want := piExtensionFor(prog)
	if len(text) > 0 && !bytes.HasPrefix(text, []byte(piExtensionHead)) {
		return nil, false, errors.New("it is not pbwrap's extension (its first line is not pbwrap's)")
	}
	if bytes.Equal(text, want) {
		return text, false, nil
	}
	return want, true, nil
}
