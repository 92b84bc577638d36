// Package e2e proves, against the real agent CLIs, what pbwrap's README
// says each of them does with a saved paste and a {{file:...}} reference.
//
// It is opt-in: its tests build only with the e2e build tag and need the
// agents, installed at pinned versions by scripts/e2e-agents (npm, into a
// temporary prefix), tmux and pbwrap's own build. scripts/test does not
// run it.
//
// Each agent runs offline, with a fresh HOME, dummy keys and a fake model
// on 127.0.0.1 (model_test.go): a server that speaks the Anthropic
// Messages API, the OpenAI Responses and Chat Completions APIs and the
// Gemini API, all streaming, and logs every request. Its model answers a
// user message that carries a reference with a call of the agent's own
// read tool on the path (the tool found in the request's tool list), a
// tool result with a final text, and, in the write scenario, the read
// tool's result with a write of the whole file as a {{file:...}}
// reference, which pbwrap's hook for the agent expands.
//
// First, the questions at start: each agent starts twice in a fresh HOME
// where nothing is trusted, not even the working directory: natively,
// through pbwrap with nothing set up, and, where pbwrap has a setup for
// the agent, through pbwrap after pbwrap setup. The agent's own
// first-start questions are answered yes, as a user would; the starts
// through pbwrap must ask exactly what the native ones ask, and nothing
// else (TestAgents fails on any other question), but for a question the
// agent asks because of pbwrap until pbwrap setup (Gemini CLI's trust of
// the root), which pbwrap's start note must have announced at that start.
// On the settings files the native starts left, pbwrap setup and then
// pbwrap setup --remove must leave every byte as it was.
//
// Then the agent runs through pbwrap in tmux, nothing set up but for an
// agent with a start note (Gemini CLI, Crush: after pbwrap setup); the
// test pastes a 600-line file
// (tmux load-buffer and paste-buffer -p), submits, and asserts from the
// server's log that no request carried the paste's text, that the user
// message carried the reference, that the read tool's result held the
// file, and that no permission prompt showed on the screen; in the write
// scenario, that the file written is the expansion. It runs each agent
// once without pbwrap too, to measure what the model receives natively,
// and prints a table of what it saw (TestAgents).
package e2e
