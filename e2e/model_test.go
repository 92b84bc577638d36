//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The fake model: an HTTP server on 127.0.0.1 that speaks four APIs, all
// streaming (server-sent events) when asked to, and answers from the
// conversation alone, so that a run is deterministic:
//
//   - a user message with "[paste saved: PATH]", in a request that offers
//     a read tool: a call of that tool on PATH;
//   - the result of that call: the final text, or in the write scenario a
//     call of the write tool that writes {{file:PATH:1:N}} to the target;
//   - the result of the write: the final text;
//   - anything else (titles, routers, summaries): a short text.

// scenario is what the model does with a paste.
type scenario struct {
	write  bool   // write the pasted file to target through a reference
	target string // the file the write creates, absolute
	lines  int    // the paste's line count
}

// finalText is the model's last answer: the test waits for it on screen.
const finalText = "FAKE-MODEL-DONE"

// A call is a tool call the model made or received the result of.
type call struct {
	id, name string
	args     string // JSON arguments, or a custom tool's input
}

// A message of a conversation, in a form common to the four APIs.
type message struct {
	role    string // user, assistant, tool (a result)
	texts   []string
	calls   []call
	results []result
}

type result struct{ id, text string }

// A tool offered to the model: its name, its parameters, and whether it
// is a custom (freeform) tool of the Responses API.
type tool struct {
	name   string
	props  []string
	custom bool
}

// A request as the server logged it.
type request struct {
	api, path string
	body      []byte
	msgs      []message
	tools     []tool
	stream    bool
	reply     string // what the model answered, for the log
}

// server is the fake model and its log.
type server struct {
	t   *testing.T
	url string
	mu  sync.Mutex
	sc  scenario
	log []*request
}

func startServer(t *testing.T) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln) // Ends when the test closes the server.
	t.Cleanup(func() { srv.Close() })
	return s
}

// reset starts a new run: an empty log and the run's scenario.
func (s *server) reset(sc scenario) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sc, s.log = sc, nil
}

// requests returns the log so far.
func (s *server) requests() []*request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*request(nil), s.log...)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := &request{path: r.URL.Path, body: body}
	s.mu.Lock()
	s.log = append(s.log, req)
	if dir := os.Getenv("PBWRAP_E2E_DUMP"); dir != "" { // Every request, for debugging the suite.
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d%s.json", len(s.log), strings.ReplaceAll(r.URL.Path, "/", "_"))), body, 0o600)
	}
	sc := s.sc
	s.mu.Unlock()
	var err error
	switch p := r.URL.Path; {
	case strings.HasSuffix(p, "/messages/count_tokens"):
		fmt.Fprint(w, `{"input_tokens":100}`)
	case strings.HasSuffix(p, "/messages"):
		req.api = "anthropic"
		err = s.anthropic(w, req, sc)
	case strings.HasSuffix(p, "/chat/completions"):
		req.api = "chat"
		err = s.chat(w, req, sc)
	case strings.HasSuffix(p, "/responses"):
		req.api = "responses"
		err = s.responses(w, req, sc)
	case strings.Contains(p, ":streamGenerateContent"), strings.Contains(p, ":generateContent"):
		req.api = "gemini"
		req.stream = strings.Contains(p, ":stream")
		err = s.gemini(w, req, sc)
	case strings.Contains(p, ":countTokens"):
		fmt.Fprint(w, `{"totalTokens":100}`)
	case strings.HasSuffix(p, "/models"):
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","object":"model","created":0,"owned_by":"fake"}],"models":[]}`)
	default:
		http.NotFound(w, r)
	}
	if err != nil {
		s.t.Logf("fake model: %s: %v", r.URL.Path, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
	}
}

// An answer is what the model says: a text, or one tool call.
type answer struct {
	text string
	call *call
}

var refRE = regexp.MustCompile(`\[paste saved: ([^\]\s]+)\]`)

// decide answers a conversation as the scenario says.
func decide(msgs []message, tools []tool, sc scenario) answer {
	for len(msgs) > 0 && msgs[len(msgs)-1].role == "system" { // Claude Code's environment, after the user's turn.
		msgs = msgs[:len(msgs)-1]
	}
	if len(msgs) == 0 {
		return answer{text: "ok"}
	}
	last := msgs[len(msgs)-1]
	if len(last.results) > 0 {
		made := callsByID(msgs)
		c, ok := made[last.results[len(last.results)-1].id]
		if paste := pastePath(msgs); ok && sc.write && !isWriteCall(c) && paste != "" {
			if w := writeCall(tools, paste, sc); w != nil {
				return answer{call: w}
			}
		}
		return answer{text: finalText}
	}
	if last.role != "user" || len(tools) == 0 {
		return answer{text: "ok"}
	}
	m := refRE.FindStringSubmatch(strings.Join(last.texts, "\n"))
	if m == nil {
		return answer{text: "ok"}
	}
	if c := readCall(tools, m[1], sc); c != nil {
		return answer{call: c}
	}
	return answer{text: "no read tool"}
}

// callsByID indexes the tool calls of a conversation.
func callsByID(msgs []message) map[string]call {
	out := map[string]call{}
	for _, m := range msgs {
		for _, c := range m.calls {
			out[c.id] = c
		}
	}
	return out
}

// Tool names, by kind, as the agents call them.
var (
	readTools = []string{"Read", "read", "read_file", "view", "read_files"}
	// Not Cline's editor, which refuses a text over 6000 characters, the
	// paste's expansion too: its apply_patch writes the paste.
	writeTools = []string{"Write", "write", "write_file", "create", "Create"}
	shellTools = []string{"exec_command", "shell", "shell_command", "run_shell_command", "bash", "Bash"}
	pathProps  = []string{"file_path", "absolute_path", "filePath", "filepath", "path"}
	writeProps = []string{"content", "file_text"}
	shellProps = []string{"cmd", "command"}
)

func findTool(tools []tool, names []string) *tool {
	for _, n := range names {
		for i := range tools {
			if tools[i].name == n {
				return &tools[i]
			}
		}
	}
	return nil
}

func firstProp(t *tool, names []string) string {
	for _, n := range names {
		for _, p := range t.props {
			if p == n {
				return n
			}
		}
	}
	return ""
}

// readCall calls the agent's read tool on path, or, for an agent without
// one (Codex), its shell tool with sed on the file's first lines.
func readCall(tools []tool, path string, sc scenario) *call {
	if t := findTool(tools, readTools); t != nil {
		if t.name == "read_files" { // Cline's: {"files": [{"path": ...}]}.
			return &call{id: "call_read", name: t.name, args: jsonArgs(map[string]any{"files": []any{map[string]any{"path": path}}})}
		}
		if p := firstProp(t, pathProps); p != "" {
			args := map[string]any{p: path}
			if firstProp(t, []string{"view_range"}) != "" { // Copilot CLI's view reads a large file by its lines only.
				args["view_range"] = []int{1, pasteLines}
			}
			return &call{id: "call_read", name: t.name, args: jsonArgs(args)}
		}
	}
	if t := findTool(tools, shellTools); t != nil {
		cmd := "cat '" + path + "'"
		switch p := firstProp(t, shellProps); p {
		case "cmd":
			return &call{id: "call_read", name: t.name, args: jsonArgs(map[string]any{"cmd": cmd})}
		case "command":
			if t.name == "shell" {
				return &call{id: "call_read", name: t.name, args: jsonArgs(map[string]any{"command": []string{"cat", path}})}
			}
			return &call{id: "call_read", name: t.name, args: jsonArgs(map[string]any{"command": cmd})}
		}
	}
	return nil
}

// writeCall writes the whole paste to the target as one reference: with
// the agent's write tool, or Codex's apply_patch.
func writeCall(tools []tool, paste string, sc scenario) *call {
	ref := fmt.Sprintf("{{file:%s:1:%d}}", paste, sc.lines)
	if t := findTool(tools, writeTools); t != nil {
		if p := firstProp(t, pathProps); p != "" {
			return &call{id: "call_write", name: t.name, args: jsonArgs(map[string]any{p: sc.target, firstProp(t, writeProps): ref})}
		}
	}
	if t := findTool(tools, []string{"apply_patch"}); t != nil {
		patch := "*** Begin Patch\n*** Add File: " + sc.target + "\n+" + ref + "\n*** End Patch\n"
		if t.custom {
			return &call{id: "call_write", name: t.name, args: patch}
		}
		return &call{id: "call_write", name: t.name, args: jsonArgs(map[string]any{"input": patch})}
	}
	return nil
}

// pastePath is the path of the last reference in the user's messages.
func pastePath(msgs []message) string {
	path := ""
	for _, m := range msgs {
		if m.role != "user" {
			continue
		}
		for _, t := range m.texts {
			for _, sub := range refRE.FindAllStringSubmatch(t, -1) {
				path = sub[1]
			}
		}
	}
	return path
}

func isWriteCall(c call) bool {
	return c.name == "apply_patch" || findTool([]tool{{name: c.name}}, writeTools) != nil
}

func jsonArgs(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
