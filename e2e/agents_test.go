//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The environment scripts/e2e-agents gives the suite.
var (
	prefix  = os.Getenv("PBWRAP_E2E_PREFIX") // the npm prefix the agents are installed in
	nodeDir = os.Getenv("PBWRAP_E2E_NODE")   // a directory with the node the agents need, or ""
	only    = os.Getenv("PBWRAP_E2E_ONLY")   // run these agents only (comma-separated), or all
	// PBWRAP_E2E_PBWRAP names a pbwrap binary to test instead of building one.
	pbwrap string // built by TestMain
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pbwrap-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pbwrap = filepath.Join(dir, "pbwrap")
	if bin := os.Getenv("PBWRAP_E2E_PBWRAP"); bin != "" { // A pbwrap built elsewhere.
		err = os.Symlink(bin, pbwrap)
	} else if out, err := exec.Command("go", "build", "-o", pbwrap, "../cmd/pbwrap").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build pbwrap: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// personsPause is how long a person takes at least to press Enter after
// seeing what the paste became. Gemini CLI takes a return within 40 ms of
// a paste's end for part of the paste (a newline), not a submit, and
// through pbwrap the reference, a short paste, is on the screen sooner
// than that on a fast machine.
const personsPause = 200 * time.Millisecond

// startTimeout is how long an agent may take to its first screen: opencode
// takes over a minute and a half in a fresh HOME on a busy machine with two
// cores, where it installs its plugin package when it finds a plugin.
const startTimeout = 4 * time.Minute

// pasteLines is how many lines the test pastes: far over pbwrap's 200.
const pasteLines = 600

// pasteText is what the test pastes, and sentinel a line of it that JSON
// does not escape: a request holding it holds the paste.
func pasteText() string {
	var b strings.Builder
	for i := range pasteLines {
		fmt.Fprintf(&b, "2026-11-29T12:00:%02d service[42]: request %d served in %d ms\n", i%60, i, i%97)
	}
	return b.String()
}

const sentinel = "request 599 served in 17 ms"

// A run is one start of an agent: its directories and environment.
type run struct {
	t                *testing.T
	srv              *server
	home, work, root string
	env              map[string]string
	args             []string
	write            bool // the write scenario: the agent's hook installed
	untrusted        bool // the working directory is not trusted yet
}

// An agentCase says how to run one agent offline.
type agentCase struct {
	name string // the command, as pbwrap knows it
	// refuses: its hook refuses every reference, since its rewrite would
	// approve the edit for the user (Qwen Code; issue 37).
	refuses bool
	// setup writes the agent's files in the run's HOME and sets its
	// environment and arguments.
	setup func(r *run)
	// ready is what its screen shows once it takes input; sent, what it
	// shows once the reference is in its input.
	ready string
	// prompts are the words of the agent's permission and trust prompts.
	prompts []string
	// questions are the agent's own questions at its first start in a
	// directory it does not trust.
	questions []question
	// hook: pbwrap has a hook for it, so the write scenario runs.
	hook bool
	// pasteMark is what carries a large paste natively instead of its
	// text, for an agent that saves pastes itself; "" for the text.
	pasteMark string
	// pasteAttached: the agent sends a large paste after what was typed
	// (agent.E2E.PasteAttached).
	pasteAttached bool
	// noted: pbwrap has a start note for the agent (agent.StartNote),
	// which may announce notedQuestions, questions it asks because of
	// pbwrap until pbwrap setup has run.
	noted          bool
	notedQuestions []question
	// patchDropsLastNewline: the agent's apply_patch writes a file it adds
	// without its last newline (Cline's).
	patchDropsLastNewline bool
}

// result is one agent's line of the table.
type outcome struct {
	agent, version            string
	nativeBytes, nativeReqs   int
	wrappedBytes, wrappedReqs int
	read, prompts, hook       string
	readSetup                 bool        // the read ran after pbwrap setup (an agent with a start note)
	native, wrapped, setUp    [2][]string // the questions at the first and second start: natively, through pbwrap, and after pbwrap setup
	notes                     [2]string   // pbwrap's start notes at the starts through pbwrap before setup
	hasSetup                  bool
	roundTrip                 string // setup, then setup --remove, on the agent's own files
}

var (
	tableMu sync.Mutex
	table   []outcome
)

func TestAgents(t *testing.T) {
	if prefix == "" {
		t.Skip("opt-in: scripts/e2e-agents installs the agents and sets PBWRAP_E2E_PREFIX")
	}
	srv := startServer(t)
	for _, a := range agentCases {
		if only != "" && !strings.Contains(","+only+",", ","+a.name+",") {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(prefix, "node_modules", ".bin", a.name)); err != nil {
				t.Skipf("not installed in %s (scripts/e2e-agents says why)", prefix)
			}
			o := outcome{agent: a.name, version: agentVersion(t, a.name)}
			defer func() {
				tableMu.Lock()
				table = append(table, o)
				tableMu.Unlock()
			}()
			runQuestions(t, srv, a, &o)
			o.nativeBytes, o.nativeReqs = runNative(t, srv, a)
			o.readSetup = a.noted
			o.wrappedBytes, o.wrappedReqs, o.read, o.prompts = runWrapped(t, srv, a)
			o.hook = "no hook"
			if a.hook {
				o.hook = runWrite(t, srv, a)
			}
		})
	}
	t.Cleanup(printTable)
}

func printTable() {
	var b strings.Builder
	b.WriteString("\n| agent | version | questions added by pbwrap, nothing set up: first start | second start | pbwrap's note before the start | after pbwrap setup: first | second | model received natively | through pbwrap | read result | prompts | hook | setup, then --remove |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, o := range table {
		after := [2]string{"no setup", "no setup"}
		if o.hasSetup {
			after = [2]string{addedQuestions(o.native[0], o.setUp[0]), addedQuestions(o.native[1], o.setUp[1])}
		}
		read := o.read
		if o.readSetup {
			read += ", after pbwrap setup"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d bytes in %d requests | %d bytes in %d requests | %s | %s | %s | %s |\n",
			o.agent, o.version, addedQuestions(o.native[0], o.wrapped[0]), addedQuestions(o.native[1], o.wrapped[1]),
			noteCell(o.notes), after[0], after[1],
			o.nativeBytes, o.nativeReqs, o.wrappedBytes, o.wrappedReqs, read, o.prompts, o.hook, o.roundTrip)
	}
	fmt.Print(b.String())
}

// noteCell shows pbwrap's start notes of the two starts.
func noteCell(notes [2]string) string {
	switch {
	case notes[0] == "" && notes[1] == "":
		return "none"
	case notes[0] == notes[1]:
		return fmt.Sprintf("both starts: %q", notes[0])
	}
	return fmt.Sprintf("first: %q, second: %q", notes[0], notes[1])
}

// newRun makes a fresh HOME, working directory and root, and the base
// environment every agent gets.
func newRun(t *testing.T, srv *server, a agentCase, write, untrusted bool) *run {
	// Not t.TempDir: an agent may still write there while it exits.
	base, err := os.MkdirTemp("", "pbwrap-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killLeftovers(base); os.RemoveAll(base) })
	base, _ = filepath.EvalSymlinks(base)
	r := &run{t: t, srv: srv, write: write, untrusted: untrusted,
		home: filepath.Join(base, "home"), work: filepath.Join(base, "work"), root: filepath.Join(base, "root")}
	for _, d := range []string{r.home, r.work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Dir(pbwrap) + ":" + filepath.Join(prefix, "node_modules", ".bin")
	if nodeDir != "" {
		path += ":" + nodeDir
	}
	r.env = map[string]string{
		"HOME": r.home, "PATH": path + ":/usr/local/bin:/usr/bin:/bin", "TERM": "xterm-256color",
		"LANG": "C.UTF-8", "PBWRAP_ROOT": r.root, "TMPDIR": filepath.Join(base, "tmp"),
		"NO_COLOR": "", "CI": "",
	}
	os.MkdirAll(r.env["TMPDIR"], 0o700)
	delete(r.env, "NO_COLOR")
	delete(r.env, "CI")
	a.setup(r)
	return r
}

// killLeftovers ends the processes a run's agent left behind (Cline's hub
// daemon, which detaches and outlives it): those whose HOME is below
// base, and so were started by the run. On a system without /proc there
// are none to find.
func killLeftovers(base string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if home, ok := strings.CutPrefix(kv, "HOME="); ok && strings.HasPrefix(home, base+"/") {
				if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil && pid != os.Getpid() {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}
}

func (r *run) writeFile(rel, text string) {
	r.t.Helper()
	path := rel
	if !filepath.IsAbs(rel) {
		path = filepath.Join(r.home, rel)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// appendFile adds text at the end of the file rel below HOME.
func (r *run) appendFile(rel, text string) {
	r.t.Helper()
	f, err := os.OpenFile(filepath.Join(r.home, rel), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		r.t.Fatal(err)
	}
}

// start starts the agent in tmux, through pbwrap or not, and waits until
// it is ready.
func (r *run) start(a agentCase, wrapped bool) *tmux {
	s := r.startUnready(a, wrapped)
	s.waitScreen(a.ready, startTimeout)
	time.Sleep(time.Second) // Let it settle: some agents redraw once more.
	return s
}

// startUnready starts the agent in tmux, through pbwrap or not.
func (r *run) startUnready(a agentCase, wrapped bool) *tmux {
	words := append([]string{a.name}, r.args...)
	if wrapped {
		words = append([]string{"pbwrap", "--log", filepath.Join(r.home, "pbwrap.log")}, words...)
	}
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	s := startTmux(r.t, r.work, envList(r.env), "exec "+strings.Join(words, " "))
	r.t.Cleanup(func() {
		if r.t.Failed() {
			r.t.Logf("screen:\n%s", s.screen())
			if log, err := os.ReadFile(filepath.Join(r.home, "pbwrap.log")); err == nil {
				r.t.Logf("pbwrap log:\n%s", log)
			}
		}
	})
	return s
}

// pasteFile writes the paste to a file of the test's.
func pasteFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(path, []byte(pasteText()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runNative pastes into the agent run directly and measures what the
// model receives: the bytes of the user messages that carry the paste, in
// every request, and how many requests carried it.
func runNative(t *testing.T, srv *server, a agentCase) (int, int) {
	r := newRun(t, srv, a, false, false)
	srv.reset(scenario{})
	s := r.start(a, false)
	defer s.kill()
	s.paste(pasteFile(t))
	time.Sleep(2 * time.Second)
	s.keys("Enter")
	mark := sentinel
	if a.pasteMark != "" {
		mark = a.pasteMark
	}
	if !wait(60*time.Second, func() bool { n, _ := carried(srv.requests(), mark); return n > 0 }) {
		t.Fatalf("natively, no request carried the paste")
	}
	time.Sleep(5 * time.Second) // Titles and other side requests.
	return carried(srv.requests(), mark)
}

// carried adds up the user texts that hold want, over every request.
func carried(reqs []*request, want string) (bytes, requests int) {
	for _, req := range reqs {
		n := 0
		for _, m := range req.msgs {
			if m.role != "user" {
				continue
			}
			for _, text := range m.texts {
				if strings.Contains(text, want) {
					n += len(text)
				}
			}
		}
		if n > 0 {
			bytes += n
			requests++
		}
	}
	return bytes, requests
}

var refScreenRE = regexp.MustCompile(`\[paste saved: ([^\]\s]+)\]`)

// runWrapped pastes through pbwrap and checks what the model got: the
// reference, never the text, a read of the file, no prompt. Nothing is
// set up, but for an agent with a start note (a question or a prompt
// pbwrap cannot prevent without setup, which runQuestions counts): that
// one runs after pbwrap setup, which its note names.
func runWrapped(t *testing.T, srv *server, a agentCase) (bytes, reqs int, read, prompts string) {
	r := newRun(t, srv, a, false, false)
	if a.noted {
		r.setup(a)
	}
	srv.reset(scenario{})
	s := r.start(a, true)
	defer s.kill()
	s.paste(pasteFile(t))
	s.waitScreen(a.sentMark(), 20*time.Second)
	time.Sleep(personsPause)
	s.keys("Enter")
	done := waitDone(srv)
	screen := s.screen()
	prompts = promptsOn(screen, a.prompts)
	if !done {
		t.Errorf("the model never got the read's result (prompts on screen: %s)", prompts)
	}
	reqs0 := srv.requests()
	if n, _ := carried(reqs0, sentinel); n > 0 {
		t.Errorf("a user message carried the paste's text")
	}
	bytes, reqs = carried(reqs0, "[paste saved: ")
	if reqs == 0 {
		t.Errorf("no user message carried the reference")
	}
	read = readResult(reqs0)
	if !strings.HasPrefix(read, "whole file") && !strings.HasPrefix(read, "part of the file") { // Some read tools page.
		t.Errorf("read result: %s", read)
	}
	if prompts != "none" {
		t.Errorf("prompts on screen: %s", prompts)
	}
	return bytes, reqs, read, prompts
}

// runWrite has the model write the pasted file through a reference, with
// pbwrap's hook installed, and checks the file written.
func runWrite(t *testing.T, srv *server, a agentCase) string {
	r := newRun(t, srv, a, true, false)
	r.setup(a)
	target := filepath.Join(r.work, "pasted.log")
	srv.reset(scenario{write: true, target: target, lines: pasteLines})
	s := r.start(a, true)
	defer s.kill()
	s.paste(pasteFile(t))
	s.waitScreen(a.sentMark(), 20*time.Second)
	time.Sleep(personsPause)
	s.keys("Enter")
	if !waitDone(srv) {
		t.Errorf("write: the model never got the write's result (prompts on screen: %s)", promptsOn(s.screen(), a.prompts))
		return "no answer"
	}
	got, err := os.ReadFile(target)
	switch {
	case a.refuses && errors.Is(err, fs.ErrNotExist):
		return "refused, with the reason: nothing written (its rewrite would approve the edit)"
	case a.refuses:
		t.Errorf("write: the hook refuses references for %s, yet the file was written (%d bytes, %v)", a.name, len(got), err)
		return "written despite the refusal"
	case err != nil:
		t.Errorf("write: %v", err)
		return "not written: " + err.Error()
	case string(got) == pasteText():
		return fmt.Sprintf("expanded: the file is the paste (%d bytes)", len(got))
	case string(got)+"\n" == pasteText() && a.patchDropsLastNewline:
		return fmt.Sprintf("expanded: the file is the paste but its last newline, which the agent's apply_patch drops from a file it adds (%d bytes)", len(got))
	case strings.Contains(string(got), "{{file:"):
		t.Errorf("write: the reference was written literally")
		return "literal reference written"
	}
	t.Errorf("write: the file holds %d bytes, not the paste", len(got))
	return "wrong content"
}

// sentMark is what shows once the reference is in the agent's input.
func (a agentCase) sentMark() string { return "paste-1.txt" }

// waitDone waits for the model's final answer.
func waitDone(srv *server) bool {
	return wait(90*time.Second, func() bool {
		for _, req := range srv.requests() {
			if req.reply == "text "+finalText {
				return true
			}
		}
		return false
	})
}

// readResult says what the read tool's result held.
func readResult(reqs []*request) string {
	first := "2026-11-29T12:00:00 service[42]: request 0 served in 0 ms"
	last := "request 599 served in 17 ms"
	best := "no result"
	for _, req := range reqs {
		for _, m := range req.msgs {
			for _, res := range m.results {
				if res.id != "call_read" && !strings.Contains(res.id, "read") && !strings.Contains(res.id, "shell") && !strings.Contains(res.id, "exec") {
					continue
				}
				switch {
				case strings.Contains(res.text, first) && strings.Contains(res.text, last) && strings.Contains(res.text, "request 300 served"):
					return fmt.Sprintf("whole file (%d bytes of result)", len(res.text))
				case strings.Contains(res.text, first) && strings.Contains(res.text, last):
					return fmt.Sprintf("part of the file: its head and tail, the agent cut the middle (%d bytes of result)", len(res.text))
				case strings.Contains(res.text, first):
					best = fmt.Sprintf("part of the file (%d bytes of result)", len(res.text))
				default:
					best = fmt.Sprintf("no file: %.200q", res.text)
				}
			}
		}
	}
	return best
}

// promptsOn lists the prompt words on the screen, or "none".
func promptsOn(screen string, words []string) string {
	var found []string
	for _, w := range words {
		if strings.Contains(screen, w) {
			found = append(found, fmt.Sprintf("%q", w))
		}
	}
	if len(found) == 0 {
		return "none"
	}
	return strings.Join(found, ", ")
}

// agentVersion asks the agent.
func agentVersion(t *testing.T, name string) string {
	cmd := exec.Command(filepath.Join(prefix, "node_modules", ".bin", name), "--version")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if nodeDir != "" {
		cmd.Env = append(cmd.Env, "PATH="+nodeDir+":"+os.Getenv("PATH"))
	}
	out, _ := cmd.Output()
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n") // Copilot CLI adds a line about updates.
	return first
}
