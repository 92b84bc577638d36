//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
)

// Image paste over SSH (doc/usage.md, "Images over SSH"): the user pastes with a
// PNG on the clipboard of a terminal that has kitty's paste events; pbwrap
// reads it, saves it in the session, and types its path into the agent as
// a bracketed paste; the agent attaches the file and the model gets the
// image. The terminal here is the test, on the PTY's master side, playing
// what kitty 0.48.2 sent when measured (internal/fakekitty): it
// sends a paste event and answers pbwrap's read. No tmux: pbwrap turns
// image paste off inside a multiplexer.

// imageAgents are the agents known to take a pasted image's path as the
// image.
var imageAgents = []string{"claude", "codex", "gemini", "opencode"}

// A kitty is the terminal: the PTY's master side, with everything pbwrap
// wrote to it.
type kitty struct {
	t   *testing.T
	pty *os.File
	cmd *exec.Cmd
	mu  sync.Mutex
	out []byte
}

// startKitty starts the agent through pbwrap --image-paste on, on a PTY of
// its own, and waits until it is ready.
func (r *run) startKitty(a agentCase) *kitty {
	r.t.Helper()
	argv := append([]string{"--image-paste", "on", "--log", filepath.Join(r.home, "pbwrap.log"), a.name}, r.args...)
	cmd := exec.Command(pbwrap, argv...)
	cmd.Dir = r.work
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	env["TERM"] = "xterm-kitty"
	cmd.Env = envList(env) // No TMUX, STY or ZELLIJ: none is in between.
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		r.t.Fatal(err)
	}
	k := &kitty{t: r.t, pty: f, cmd: cmd}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			k.mu.Lock()
			k.out = append(k.out, buf[:n]...)
			k.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	r.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
		if dir := os.Getenv("PBWRAP_E2E_DUMP"); dir != "" { // The whole output, for debugging the suite.
			os.WriteFile(filepath.Join(dir, "image-"+a.name+".out"), k.output(), 0o600)
		}
		if r.t.Failed() {
			r.t.Logf("screen text, last 3000 bytes:\n%s", tail(plain(k.output()), 3000))
			if log, err := os.ReadFile(filepath.Join(r.home, "pbwrap.log")); err == nil {
				r.t.Logf("pbwrap log:\n%s", log)
			}
		}
	})
	if !wait(startTimeout, func() bool { return strings.Contains(plain(k.output()), a.ready) }) {
		r.t.Fatalf("the agent never showed %q", a.ready)
	}
	time.Sleep(time.Second) // Let it settle, as start does.
	return k
}

func (k *kitty) output() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.out)
}

func (k *kitty) write(s string) {
	k.t.Helper()
	if _, err := k.pty.Write([]byte(s)); err != nil {
		k.t.Fatal(err)
	}
}

// escRE is an escape sequence a terminal would act on or swallow.
var escRE = regexp.MustCompile("\x1b(\\[[0-?]*[ -/]*[@-~]|\\][^\x07\x1b]*(\x07|\x1b\\\\)|[PX^_][^\x1b]*\x1b\\\\|[ -/]*[0-~])")

// cursorMoveRE is a cursor movement on a line (CUF, CHA) or to a place
// (CUP), which a TUI writes instead of a run of spaces: a space at least.
var cursorMoveRE = regexp.MustCompile("\x1b\\[[0-9;]*[CGHf]")

// plain is the text in what the agent wrote, without the escape sequences:
// enough to find a word it drew.
func plain(b []byte) string {
	s := cursorMoveRE.ReplaceAllStringFunc(string(b), func(seq string) string {
		n, err := strconv.Atoi(seq[2 : len(seq)-1])
		if err != nil || seq[len(seq)-1] != 'C' {
			n = 1
		}
		return strings.Repeat(" ", min(n, 200))
	})
	return strings.Map(func(r rune) rune {
		if r < ' ' && r != '\n' {
			return -1
		}
		return r
	}, escRE.ReplaceAllString(s, ""))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// imageMarkRE is how an agent shows an attached image in its input.
var imageMarkRE = regexp.MustCompile(`\[Image[^\]\n]{0,40}\]`)

// imageOutcome is one agent's line of the image table: what a bracketed
// paste of an image's path does natively (the agent in tmux), and what
// the image pasted through pbwrap does.
type imageOutcome struct {
	agent, version              string
	nativeBecame, nativeReached string
	became, reached             string
}

var (
	imageMu    sync.Mutex
	imageTable []imageOutcome
)

func TestImagePaste(t *testing.T) {
	if prefix == "" {
		t.Skip("opt-in: scripts/e2e-agents installs the agents and sets PBWRAP_E2E_PREFIX")
	}
	if os.Getenv("TMUX") != "" || os.Getenv("STY") != "" {
		t.Skip("pbwrap turns image paste off inside a multiplexer, and this test runs inside one: run it outside tmux or screen")
	}
	srv := startServer(t)
	for _, a := range agentCases {
		if !slices.Contains(imageAgents, a.name) || only != "" && !strings.Contains(","+only+",", ","+a.name+",") {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(prefix, "node_modules", ".bin", a.name)); err != nil {
				t.Skipf("not installed in %s (scripts/e2e-agents says why)", prefix)
			}
			o := imageOutcome{agent: a.name, version: agentVersion(t, a.name)}
			defer func() {
				imageMu.Lock()
				imageTable = append(imageTable, o)
				imageMu.Unlock()
			}()
			data := fakekitty.NoisePNG(48, 32) // Small: no agent scales it, so the model gets it byte for byte.
			var native bool
			o.nativeBecame, o.nativeReached, native = runNativeImage(t, srv, a, data)
			var through bool
			o.became, o.reached, through = runImage(t, srv, a, data)
			if native && !through {
				t.Errorf("natively the model got the image, through pbwrap not")
			}
		})
	}
	t.Cleanup(func() {
		var b strings.Builder
		b.WriteString("\n| agent | version | image path pasted natively (tmux, bracketed) became | reached the model | image pasted through pbwrap became | reached the model |\n|---|---|---|---|---|---|\n")
		for _, o := range imageTable {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", o.agent, o.version, o.nativeBecame, o.nativeReached, o.became, o.reached)
		}
		fmt.Print(b.String())
	})
}

// shownAs says how the agent showed a pasted image path, from the text it
// drew after the paste.
func shownAs(shown, path string) string {
	switch mk := imageMarkRE.FindString(shown); {
	case mk != "":
		return "`" + mk + "`"
	case strings.Contains(shown, filepath.Base(path)):
		return "the path, as text"
	}
	return "nothing seen"
}

// modelGot waits for the model to get the user's message after the paste
// was submitted and says what of the image it carried; ok reports an
// image part.
func modelGot(t *testing.T, srv *server, data []byte, path string) (reached string, ok bool) {
	b64 := base64.StdEncoding.EncodeToString(data)
	var got *request
	wait(time.Minute, func() bool {
		for _, req := range srv.requests() {
			if bytes.Contains(req.body, []byte(b64)) || imagePart(req.body) != "" {
				got = req
				return true
			}
		}
		return false
	})
	if got == nil {
		for _, req := range srv.requests() {
			if bytes.Contains(req.body, []byte(path)) {
				return "the path as text, no image", false
			}
		}
		return "nothing of it", false
	}
	part := imagePart(got.body)
	if bytes.Contains(got.body, []byte(b64)) {
		reached = fmt.Sprintf("%s, the %d-byte PNG byte for byte", part, len(data))
	} else {
		reached = part + ", re-encoded by the agent"
	}
	if bytes.Contains(got.body, []byte(path)) {
		reached += "; the path too"
	}
	if bytes.Contains(got.body, []byte("]5522;")) || bytes.Contains(got.body, []byte(fakekitty.PW)) {
		t.Errorf("a packet or the password reached the model")
	}
	return reached, true
}

// runNativeImage pastes the path of a PNG in the working directory into
// the agent in tmux, bracketed, without pbwrap, and submits it.
func runNativeImage(t *testing.T, srv *server, a agentCase, data []byte) (became, reached string, ok bool) {
	r := newRun(t, srv, a, false, false)
	srv.reset(scenario{})
	path := filepath.Join(r.work, "shot.png")
	r.writeFile(path, string(data))
	text := filepath.Join(t.TempDir(), "path.txt")
	if err := os.WriteFile(text, []byte(path), 0o600); err != nil {
		t.Fatal(err)
	}
	s := r.start(a, false)
	defer s.kill()
	s.paste(text)
	time.Sleep(personsPause + time.Second)
	became = shownAs(s.screen(), path)
	s.keys("Enter")
	reached, ok = modelGot(t, srv, data, path)
	return became, reached, ok
}

// runImage pastes the image into the agent through pbwrap as kitty
// delivers it, submits it, and says what the agent showed and what the
// model got.
func runImage(t *testing.T, srv *server, a agentCase, data []byte) (became, reached string, ok bool) {
	r := newRun(t, srv, a, false, false)
	r.setup(a) // As README says: Gemini CLI reads the root once setup trusts it.
	srv.reset(scenario{})
	k := r.startKitty(a)
	if !bytes.Contains(k.output(), []byte("\x1b[?5522h")) {
		t.Fatal("pbwrap did not turn paste events on at the terminal")
	}
	mark := len(k.output())
	k.write(fakekitty.Event(fakekitty.PW, "image/png", ""))
	var m [][]byte
	if !wait(30*time.Second, func() bool { m = fakekitty.ReadRequest.FindSubmatch(k.output()[mark:]); return m != nil }) {
		t.Fatal("pbwrap sent no read of the clipboard after the paste event")
	}
	if string(m[2]) != fakekitty.PW {
		t.Fatalf("the read carries password %q, not the paste event's", m[2])
	}
	mark = len(k.output())
	k.write(fakekitty.Reply(string(m[1]), "image/png", data))
	path := ""
	if !wait(30*time.Second, func() bool {
		matches, _ := filepath.Glob(filepath.Join(r.root, "*", "image-1.png"))
		if len(matches) == 1 {
			path = matches[0]
		}
		return path != ""
	}) {
		t.Fatal("pbwrap saved no image-1.png in the session")
	}
	if saved, err := os.ReadFile(path); err != nil || !bytes.Equal(saved, data) {
		t.Fatalf("%s: %d bytes, %v; want the %d pasted", path, len(saved), err, len(data))
	}
	wait(10*time.Second, func() bool { return imageMarkRE.MatchString(plain(k.output()[mark:])) })
	time.Sleep(personsPause + time.Second)
	became = shownAs(plain(k.output()[mark:]), path)
	k.write("\r")
	reached, ok = modelGot(t, srv, data, path)
	return became, reached, ok
}

// imagePart names the image part of a model request, by its API's
// spelling, or returns "".
func imagePart(body []byte) string {
	for _, p := range []struct{ re, name string }{
		{`"type"\s*:\s*"image"`, "Anthropic `image` block"},
		{`"type"\s*:\s*"input_image"`, "Responses `input_image`"},
		{`"inlineData"\s*:`, "Gemini `inlineData`"},
		{`"type"\s*:\s*"image_url"`, "Chat `image_url`"},
	} {
		if regexp.MustCompile(p.re).Match(body) {
			if mime := regexp.MustCompile(`image/(png|jpeg|webp|gif)`).Find(body); mime != nil {
				return p.name + " " + string(mime)
			}
			return p.name
		}
	}
	return ""
}
