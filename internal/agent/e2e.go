package agent

import (
	"encoding/json"
	"maps"
	"strings"
)

// E2E is how the end-to-end suite (package e2e, scripts/e2e-agents) starts
// an agent offline: in a fresh HOME, with a dummy key, talking to a fake
// model on 127.0.0.1, with no login, no network and no first-run dialog
// but the questions it lists. What it holds is the documentation of those
// offline settings too.
type E2E struct {
	// Env are variables the agent starts with; "{url}" in a value stands
	// for the fake model's address.
	Env map[string]string
	// Files returns the files written below the fresh HOME before the
	// agent starts, by their names there; nil for none.
	Files func(E2EStart) map[string]string
	// Args are arguments every start takes ("{home}" in one stands for
	// the fresh HOME); WriteArgs those that let the agent write files
	// without asking, for the scenario where its hook expands a reference.
	Args, WriteArgs []string
	// Ready is what the agent's screen shows once it takes input.
	Ready string
	// PasteMark is what a user message holds in place of a large paste
	// when the agent itself keeps the paste in a file and sends the model
	// a mention of it (Copilot CLI's "<pasted_content file="); "" for an
	// agent that sends the paste's text.
	PasteMark string
	// PasteAttached: the agent sends a large paste as an attachment after
	// what was typed (Crush, past 10 lines), so text typed after the
	// paste, such as pbwrap's note that it was not saved, reaches the
	// model before the paste.
	PasteAttached bool
	// Prompts are texts of the agent's permission prompts: none may show
	// while it reads a saved paste.
	Prompts []string
	// Questions are the agent's own first-start questions in a folder not
	// trusted yet, and the keys that answer yes, as a user would.
	Questions []Question
	// PatchDropsLastNewline: the agent's apply_patch writes a file it adds
	// without the last newline of its lines (Cline's), which the write
	// scenario, through it, then lacks.
	PatchDropsLastNewline bool
	// NotedQuestions are questions the agent asks because of pbwrap until
	// pbwrap setup has run, which pbwrap's start note announces (Note): the
	// suite answers them as a user would, and counts them.
	NotedQuestions []Question
	// Unavailable says why the suite cannot start the agent here, for an
	// agent it has no offline start for ("" for the others: Ready says
	// it has one).
	Unavailable string
}

// An E2EStart is one start of an agent in the end-to-end suite.
type E2EStart struct {
	// URL is the fake model's address, "http://127.0.0.1:PORT".
	URL string
	// Work is the working directory; Trusted whether the agent is to
	// trust it already.
	Work    string
	Trusted bool
}

// A Question is a question an agent asks at its first start, by a text
// of it, and the keys (tmux send-keys names) that answer it yes.
type Question struct {
	Text string
	Keys []string
}

// StartEnv is the E2E environment for a fake model at url.
func (e *E2E) StartEnv(url string) map[string]string {
	env := maps.Clone(e.Env)
	for k, v := range env {
		env[k] = strings.ReplaceAll(v, "{url}", url)
	}
	return env
}

// Dummy keys for the end-to-end suite: never sent anywhere but the fake
// model.
const (
	anthropicKey = "sk-ant-api03-pbwrap-e2e-dummy-key-0000000000000000000000AA"
	openAIKey    = "sk-pbwrap-e2e-dummy"
	geminiKey    = "pbwrap-e2e-dummy"
)

// mustJSON is v as JSON laid out as the agents write their settings, for
// the suite's settings files.
func mustJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // Maps of strings, booleans and maps: cannot fail.
	}
	return string(b)
}
