package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fileref"
	"github.com/pbwrap/pbwrap/internal/jsonc"
	"github.com/pbwrap/pbwrap/internal/shellword"
)

// A Hook is pbwrap's hook for an agent: "pbwrap hook AGENT", which the
// agent runs before each edit and which expands {{file:...}} references
// in it (fileref.Protocol.Answer), and where it is installed.
//
// Most agents take hooks in their JSON settings file, as an entry
//
//	{"hooks": {EVENT: [{"matcher": MATCHER, "hooks": [{"type": "command", "command": "pbwrap hook AGENT", "timeout": TIMEOUT}]}]}}
//
// where EVENT is the protocol's event and MATCHER matches its tools, or,
// for an agent that takes the handler's members in the entry itself (flat),
//
//	{"hooks": {EVENT: [{"matcher": MATCHER, "command": "pbwrap hook AGENT", "timeout": TIMEOUT}]}}
//
// An agent that runs hooks from code it loads instead has an Extension, a
// file of pbwrap's.
type Hook struct {
	// Protocol is the hook's wire format: its event, its answer, and the
	// tools and fields it expands.
	Protocol fileref.Protocol

	// File returns the user settings file the hook goes in (the
	// extension's file); Where says where that is, for help.
	File  func(Env) (string, error)
	Where string

	// anchored: the agent takes the matcher as a regular expression
	// searched for in the tool's name, so the matcher anchors the names
	// ("^(write_file|replace)$"); otherwise it is the names joined with
	// "|", which the agent matches whole.
	anchored bool
	// Timeout is the hook's timeout in the unit the agent reads it in (30
	// seconds); TimeoutUnit names that unit, for help.
	Timeout     int
	TimeoutUnit string
	// comments: the agent reads its settings as JSON with comments.
	comments bool
	// flat: an entry of the event's list is the handler itself, with its
	// matcher (crush), not a matcher and a list of handlers.
	flat bool

	// ReadRules returns the agent's own rules for reading files, as the
	// hook honours them: a function that reports whether the agent's
	// settings deny it reading path when working in cwd, and the rule
	// that does. Nil for an agent that has no such rules.
	ReadRules func(Env) func(cwd, path string) (rule string, denied bool)
	// RulesAbout says, for pbwrap help hook, which of the agent's rules
	// ReadRules honours; "" when ReadRules is nil.
	RulesAbout string

	// Extension is pbwrap's file the agent loads its hook from, for an
	// agent that takes no hook in its settings; nil for the others.
	Extension *Extension

	// About says, for pbwrap help hook, what the agent does with the
	// hook's answer, and anything else particular to it.
	About string
	// refUse says, for pbwrap help agents, when and how the model writes a
	// reference in this agent's edits; "" for the common text, which
	// suits every agent whose edits carry whole texts.
	refUse string

	// After and AfterRemove say when pbwrap setup's change takes effect,
	// once written, and what the user does for it.
	After, AfterRemove string

	agent string // the agent's name, set from the registry
}

// matcher is the matcher of the hook's entry: the protocol's tools, then
// its reads.
func (h *Hook) matcher() string {
	var names []string
	for _, t := range slices.Concat(h.Protocol.Tools, h.Protocol.Reads) {
		names = append(names, t.Name)
	}
	m := strings.Join(names, "|")
	switch {
	case !h.anchored:
		return m
	case len(names) > 1:
		return "^(" + m + ")$"
	}
	return "^" + m + "$"
}

// Command is the hook's command line running prog, as the agent's shell
// reads it.
func (h *Hook) Command(prog string) string {
	return shellword.Quote(prog) + " hook " + h.agent
}

// Snippet is what pbwrap setup installs in an empty settings file: the
// hook running prog (for an extension, the extension's file).
func (h *Hook) Snippet(prog string) []byte {
	out, _, _ := h.install(nil, prog) // Nothing to parse: it cannot fail.
	return out
}

// Program returns the program the agents' hooks run: "pbwrap" when the
// pbwrap found on PATH is this one, else this pbwrap's absolute path, with
// why: no pbwrap on PATH, or another binary there. Symbolic links are
// resolved on both sides.
func Program(env Env) (prog, why string, err error) {
	self, err := env.self()
	if err != nil {
		return "", "", fmt.Errorf("find this pbwrap's path: %w", err)
	}
	onPath, err := env.LookPath("pbwrap")
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

// programOf returns the program of a hook command that runs pbwrap's hook
// for agent ("pbwrap hook claude", "/opt/bin/pbwrap hook claude"), and ok
// false for any other command.
func programOf(command, agent string) (prog string, ok bool) {
	words, ok := shellword.Split(command)
	if !ok || len(words) != 3 || words[1] != "hook" || words[2] != agent ||
		!strings.HasPrefix(filepath.Base(words[0]), "pbwrap") {
		return "", false
	}
	return words[0], true
}

// Setup changes a settings file by editing its text in place
// (jsonc.Editor), so that everything it does not change stays byte for
// byte as it was: other keys, their order, their values as written, the
// layout, and comments where the agent allows them.

// install returns text, the agent's settings ("" or nil: none yet), with
// the hook running prog, and whether that changed anything. A hook of
// pbwrap's for the agent that is already there counts, whatever its
// matcher; when it runs another program, only its command is changed.
// Everything else stays as it was (see jsonc.Editor). An error says why
// text cannot be changed.
func (h *Hook) install(text []byte, prog string) ([]byte, bool, error) {
	if h.Extension != nil {
		return h.Extension.install(text, prog)
	}
	command := h.Command(prog)
	entry := h.entry(command)
	if jsonc.IsBlank(text, h.comments) {
		snippet := jsonc.Object{{Name: "hooks", Value: h.eventList(entry)}}.Marshal()
		out := jsonc.AfterComments(text, snippet)
		if _, err := jsonc.ParseObject(jsonc.StripComments(out)); err != nil {
			return nil, false, errors.New("it ends inside a /* comment")
		}
		return out, true, nil
	}
	ed, err := jsonc.NewEditor(text, h.comments)
	if err != nil {
		return nil, false, err
	}
	found, err := h.installHook(ed, command, entry)
	if err != nil {
		return nil, false, err
	}
	if found && !ed.Changed() {
		return text, false, nil
	}
	return ed.Apply(), true, nil
}

// entry is the hook's entry in the event's list.
func (h *Hook) entry(command string) json.RawMessage {
	if h.flat {
		return jsonc.Object{
			{Name: "matcher", Value: jsonc.String(h.matcher())},
			{Name: "command", Value: jsonc.String(command)},
			{Name: "timeout", Value: json.RawMessage(fmt.Sprint(h.Timeout))},
		}.Marshal()
	}
	handler := jsonc.Object{
		{Name: "type", Value: json.RawMessage(`"command"`)},
		{Name: "command", Value: jsonc.String(command)},
		{Name: "timeout", Value: json.RawMessage(fmt.Sprint(h.Timeout))},
	}
	return jsonc.Object{
		{Name: "matcher", Value: jsonc.String(h.matcher())},
		{Name: "hooks", Value: jsonc.Array([]json.RawMessage{handler.Marshal()})},
	}.Marshal()
}

// eventList is the hooks object that holds the event's list with entry
// alone.
func (h *Hook) eventList(entry json.RawMessage) json.RawMessage {
	return jsonc.Object{{Name: h.Protocol.Event, Value: jsonc.Array([]json.RawMessage{entry})}}.Marshal()
}

// installHook plans the edits that put the hook in the top object, and
// reports whether a hook of pbwrap's for the agent was there.
func (h *Hook) installHook(ed *jsonc.Editor, command string, entry json.RawMessage) (found bool, err error) {
	event := h.Protocol.Event
	top := ed.Top()
	hooks, ok, err := ed.Member(top, "hooks")
	switch {
	case err != nil:
		return false, err
	case !ok:
		return false, ed.InsertMember(top, "hooks", h.eventList(entry))
	case ed.IsNull(hooks):
		ed.Replace(hooks, h.eventList(entry))
		return false, nil
	case !ed.IsObject(hooks):
		return false, errors.New(`its "hooks" is not a JSON object`)
	}
	list, ok, err := ed.Member(hooks, event)
	switch {
	case err != nil:
		return false, err
	case !ok:
		return false, ed.InsertMember(hooks, event, jsonc.Array([]json.RawMessage{entry}))
	case ed.IsNull(list):
		ed.Replace(list, jsonc.Array([]json.RawMessage{entry}))
		return false, nil
	case !ed.IsArray(list):
		return false, fmt.Errorf(`its "hooks"."%s" is not a JSON array`, event)
	}
	entries, err := ed.Elements(list)
	if err != nil {
		return false, err
	}
	ours, err := h.findHooks(ed, entries)
	if err != nil {
		return false, err
	}
	if len(ours) == 0 {
		return false, ed.AppendElement(list, entries, entry)
	}
	for _, f := range ours {
		if f.command != command {
			ed.Replace(f.at, jsonc.String(command))
		}
	}
	return true, nil
}

// A foundHook is a hook of pbwrap's for the agent in the settings: its
// command, and where the command's JSON string lies.
type foundHook struct {
	command string
	at      jsonc.Span
}

// findHooks returns pbwrap's hooks for the agent in entries, the event's
// list ([{"matcher": ..., "hooks": [{"command": ...}]}]). What is not such
// an entry is not pbwrap's business, and skipped.
func (h *Hook) findHooks(ed *jsonc.Editor, entries []jsonc.Span) ([]foundHook, error) {
	var found []foundHook
	for _, entry := range entries {
		handlers, err := h.entryHandlers(ed, entry)
		if err != nil {
			return nil, err
		}
		for _, handler := range handlers {
			if command, at, ok := hookCommand(ed, handler, h.agent); ok {
				found = append(found, foundHook{command, at})
			}
		}
	}
	return found, nil
}

// entryHandlers returns the handlers of an entry of the event's list: its
// "hooks" list; none when it is not an object with one. A Flat hook's
// entry is its one handler.
func (h *Hook) entryHandlers(ed *jsonc.Editor, entry jsonc.Span) ([]jsonc.Span, error) {
	if !ed.IsObject(entry) {
		return nil, nil
	}
	if h.flat {
		return []jsonc.Span{entry}, nil
	}
	hs, ok, err := ed.Member(entry, "hooks")
	if err != nil || !ok || !ed.IsArray(hs) {
		return nil, err
	}
	return ed.Elements(hs)
}

// hookCommand returns the command of handler v and where its string lies,
// when v runs pbwrap's hook for agent.
func hookCommand(ed *jsonc.Editor, v jsonc.Span, agent string) (command string, at jsonc.Span, ok bool) {
	if !ed.IsObject(v) {
		return "", at, false
	}
	at, ok, err := ed.Member(v, "command")
	if err != nil || !ok || json.Unmarshal(ed.Raw(at), &command) != nil {
		return "", at, false
	}
	_, ok = programOf(command, agent)
	return command, at, ok
}

// commands returns the commands of pbwrap's hooks for the agent in text,
// its settings.
func (h *Hook) commands(text []byte) ([]string, error) {
	if h.Extension != nil {
		prog, ok := h.Extension.programOf(text)
		if !ok {
			return nil, errors.New("it is not pbwrap's extension")
		}
		return []string{h.Command(prog)}, nil
	}
	ed, err := jsonc.NewEditor(text, h.comments)
	if err != nil {
		return nil, err
	}
	entries, err := h.eventEntries(ed)
	if err != nil {
		return nil, err
	}
	found, err := h.findHooks(ed, entries)
	var commands []string
	for _, f := range found {
		commands = append(commands, f.command)
	}
	return commands, err
}

// eventEntries returns the entries of the event's list in the settings;
// none when there is no such list.
func (h *Hook) eventEntries(ed *jsonc.Editor) ([]jsonc.Span, error) {
	hooks, ok, err := ed.Member(ed.Top(), "hooks")
	if err != nil || !ok || !ed.IsObject(hooks) {
		return nil, err
	}
	list, ok, err := ed.Member(hooks, h.Protocol.Event)
	if err != nil || !ok || !ed.IsArray(list) {
		return nil, err
	}
	return ed.Elements(list)
}

// Removal is install's inverse, made one edit at a time on the text, each
// planned on the text the one before left: a member or an element goes
// with the separator before it (the one after it, when it is the first),
// so that what install added, laid out as install lays it out, goes
// without a trace, and what stays keeps every byte (jsonc.Editor's
// RemoveMember and RemoveElement).

// uninstall returns text without pbwrap's hooks for the agent; nil when
// the file held nothing else, or is pbwrap's extension.
func (h *Hook) uninstall(text []byte) ([]byte, error) {
	if text == nil {
		return nil, nil
	}
	if h.Extension != nil {
		if _, ok := h.Extension.programOf(text); ok {
			return nil, nil
		}
		return text, nil // Not pbwrap's: not setup's to remove.
	}
	out := text
	for range maxRemovals {
		next, done, err := h.removeOne(out)
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		out = next
	}
	if !bytes.Equal(out, text) && jsonc.IsEmptyObject(out) {
		return nil, nil
	}
	return out, nil
}

// maxRemovals bounds the removals from one file: a settings file holds
// pbwrap's hook once, or a few times when copied by hand.
const maxRemovals = 1000

// removeOne returns text without one of pbwrap's hooks for the agent: its
// handler, or its whole entry when the entry holds no other, and the lists
// and objects that held only it. done is true when there was none to
// remove.
func (h *Hook) removeOne(text []byte) (out []byte, done bool, err error) {
	if jsonc.IsBlank(text, h.comments) {
		return text, true, nil
	}
	ed, err := jsonc.NewEditor(text, h.comments)
	if err != nil {
		return nil, false, err
	}
	top := ed.Top()
	hooks, ok, err := ed.Member(top, "hooks")
	if err != nil || !ok || !ed.IsObject(hooks) {
		return text, true, err
	}
	list, ok, err := ed.Member(hooks, h.Protocol.Event)
	if err != nil || !ok || !ed.IsArray(list) {
		return text, true, err
	}
	entries, err := ed.Elements(list)
	if err != nil {
		return nil, false, err
	}
	for e, entry := range entries {
		handlers, err := h.entryHandlers(ed, entry)
		if err != nil {
			return nil, false, err
		}
		for i, handler := range handlers {
			if _, _, ok := hookCommand(ed, handler, h.agent); !ok {
				continue
			}
			switch {
			case len(handlers) > 1:
				hs, _, _ := ed.Member(entry, "hooks") // entryHandlers found it.
				ed.RemoveElement(hs, handlers, i)
			case len(entries) > 1:
				ed.RemoveElement(list, entries, e)
			default:
				if err := removeEmptied(ed, top, hooks, h.Protocol.Event); err != nil {
					return nil, false, err
				}
			}
			return ed.Apply(), false, nil
		}
	}
	return text, true, nil
}

// removeEmptied plans removing the member event of the hooks object, and
// the hooks object itself when that was its only member.
func removeEmptied(ed *jsonc.Editor, top, hooks jsonc.Span, event string) error {
	names, _, err := ed.Members(hooks)
	if err != nil {
		return err
	}
	if len(names) == 1 {
		_, err = ed.RemoveMember(top, "hooks")
		return err
	}
	_, err = ed.RemoveMember(hooks, event)
	return err
}

// An Extension is a file of pbwrap's that an agent loads and that runs
// pbwrap's hook (Pi's pbwrap.ts, Cline's hook script). Setup writes it
// whole, knows it by its lines up to the first that names pbwrap, and
// changes only the program it runs.
type Extension struct {
	// Text is the file, running "pbwrap".
	Text string
	// call is what comes right before the program's name in Text: `spawn(`,
	// before a JSON string, or for a shell script (Shell) `exec `, before
	// a word of the shell's.
	call  string
	Shell bool
}

// forProg is the extension running prog.
func (x *Extension) forProg(prog string) []byte {
	if x.Shell {
		return []byte(strings.Replace(x.Text, "\n"+x.call+"pbwrap ", "\n"+x.call+shellword.Quote(prog)+" ", 1))
	}
	return []byte(strings.Replace(x.Text, x.call+`"pbwrap"`, x.call+string(jsonc.String(prog)), 1))
}

// head is the extension's lines up to the first that names pbwrap, by
// which setup knows the file is pbwrap's.
func (x *Extension) head() string {
	rest := x.Text
	for {
		line, after, _ := strings.Cut(rest, "\n")
		if strings.Contains(line, "pbwrap") || after == "" {
			return x.Text[:len(x.Text)-len(after)]
		}
		rest = after
	}
}

// programOf returns the program that text, pbwrap's extension, runs; ok is
// false when text is not pbwrap's extension.
func (x *Extension) programOf(text []byte) (prog string, ok bool) {
	if !bytes.HasPrefix(text, []byte(x.head())) {
		return "", false
	}
	if x.Shell {
		for line := range strings.Lines(string(text)) {
			if !strings.HasPrefix(line, x.call) {
				continue
			}
			words, ok := shellword.Split(strings.TrimSpace(line))
			if !ok || len(words) < 2 {
				return "", false
			}
			return words[1], true
		}
		return "", false
	}
	m := regexp.MustCompile(regexp.QuoteMeta(x.call) + `("(?:[^"\\]|\\.)*")`).FindSubmatch(text)
	if m == nil || json.Unmarshal(m[1], &prog) != nil {
		return "", false
	}
	return prog, true
}

// install returns the extension running prog, which replaces text, an
// older version of it; a file that is not pbwrap's extension is left
// alone.
func (x *Extension) install(text []byte, prog string) ([]byte, bool, error) {
	want := x.forProg(prog)
	if len(text) > 0 && !bytes.HasPrefix(text, []byte(x.head())) {
		return nil, false, errors.New("it is not pbwrap's extension (its first lines are not pbwrap's)")
	}
	if bytes.Equal(text, want) {
		return text, false, nil
	}
	return want, true, nil
}
