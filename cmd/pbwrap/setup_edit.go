package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pbwrap/pbwrap/internal/jsonc"
)

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
func (s *hookSpec) install(text []byte, prog string) ([]byte, bool, error) {
	if s.event == "" {
		return s.installExtension(text, prog)
	}
	command := s.command(prog)
	entry := s.entry(command)
	if jsonc.IsBlank(text, s.comments) {
		snippet := jsonc.Object{{Name: "hooks", Value: s.eventList(entry)}}.Marshal()
		out := jsonc.AfterComments(text, snippet)
		if _, err := jsonc.ParseObject(jsonc.StripComments(out)); err != nil {
			return nil, false, errors.New("it ends inside a /* comment")
		}
		return out, true, nil
	}
	ed, err := jsonc.NewEditor(text, s.comments)
	if err != nil {
		return nil, false, err
	}
	found, err := s.installHook(ed, command, entry)
	if err != nil {
		return nil, false, err
	}
	if found && !ed.Changed() {
		return text, false, nil
	}
	return ed.Apply(), true, nil
}

// eventList is the hooks object that holds the event's list with entry
// alone.
func (s *hookSpec) eventList(entry json.RawMessage) json.RawMessage {
	return jsonc.Object{{Name: s.event, Value: jsonc.Array([]json.RawMessage{entry})}}.Marshal()
}

// installHook plans the edits that put the hook in the top object, and
// reports whether a hook of pbwrap's for the agent was there.
func (s *hookSpec) installHook(ed *jsonc.Editor, command string, entry json.RawMessage) (found bool, err error) {
	top := ed.Top()
	hooks, ok, err := ed.Member(top, "hooks")
	switch {
	case err != nil:
		return false, err
	case !ok:
		return false, ed.InsertMember(top, "hooks", s.eventList(entry))
	case ed.IsNull(hooks):
		ed.Replace(hooks, s.eventList(entry))
		return false, nil
	case !ed.IsObject(hooks):
		return false, errors.New(`its "hooks" is not a JSON object`)
	}
	list, ok, err := ed.Member(hooks, s.event)
	switch {
	case err != nil:
		return false, err
	case !ok:
		return false, ed.InsertMember(hooks, s.event, jsonc.Array([]json.RawMessage{entry}))
	case ed.IsNull(list):
		ed.Replace(list, jsonc.Array([]json.RawMessage{entry}))
		return false, nil
	case !ed.IsArray(list):
		return false, fmt.Errorf(`its "hooks"."%s" is not a JSON array`, s.event)
	}
	entries, err := ed.Elements(list)
	if err != nil {
		return false, err
	}
	ours, err := findHooks(ed, entries, s.agent)
	if err != nil {
		return false, err
	}
	if len(ours) == 0 {
		return false, ed.AppendElement(list, entries, entry)
	}
	for _, h := range ours {
		if h.command != command {
			ed.Replace(h.at, jsonc.String(command))
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

// findHooks returns pbwrap's hooks for agent in entries, the event's list
// ([{"matcher": ..., "hooks": [{"command": ...}]}]). What is not such an
// entry is not pbwrap's business, and skipped.
func findHooks(ed *jsonc.Editor, entries []jsonc.Span, agent string) ([]foundHook, error) {
	var found []foundHook
	for _, entry := range entries {
		if !ed.IsObject(entry) {
			continue
		}
		hs, ok, err := ed.Member(entry, "hooks")
		if err != nil {
			return nil, err
		}
		if !ok || !ed.IsArray(hs) {
			continue
		}
		hooks, err := ed.Elements(hs)
		if err != nil {
			return nil, err
		}
		for _, h := range hooks {
			if !ed.IsObject(h) {
				continue
			}
			c, ok, err := ed.Member(h, "command")
			if err != nil {
				return nil, err
			}
			var command string
			if !ok || json.Unmarshal(ed.Raw(c), &command) != nil {
				continue
			}
			if _, ok := hookProgramOf(command, agent); ok {
				found = append(found, foundHook{command, c})
			}
		}
	}
	return found, nil
}

// hookCommands returns the commands of pbwrap's hooks for the agent in
// its settings text.
func (s *hookSpec) hookCommands(text []byte) ([]string, error) {
	if s.event == "" {
		prog, ok := piExtensionProgram(text)
		if !ok {
			return nil, errors.New("it is not pbwrap's extension")
		}
		return []string{s.command(prog)}, nil
	}
	ed, err := jsonc.NewEditor(text, s.comments)
	if err != nil {
		return nil, err
	}
	var commands []string
	hooks, ok, err := ed.Member(ed.Top(), "hooks")
	if err != nil || !ok || !ed.IsObject(hooks) {
		return nil, err
	}
	list, ok, err := ed.Member(hooks, s.event)
	if err != nil || !ok || !ed.IsArray(list) {
		return nil, err
	}
	entries, err := ed.Elements(list)
	if err != nil {
		return nil, err
	}
	found, err := findHooks(ed, entries, s.agent)
	for _, h := range found {
		commands = append(commands, h.command)
	}
	return commands, err
}
