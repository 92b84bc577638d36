package main

import (
	"encoding/json"

	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// Removal is install's inverse, made one edit at a time on the text, each
// planned on the text the one before left: a member or an element goes
// with the separator before it (the one after it, when it is the first),
// so that what install added, laid out as install lays it out, goes
// without a trace, and what stays keeps every byte (jsonc.Editor's
// RemoveMember and RemoveElement).

// removeHook returns text, the agent's settings, without one of pbwrap's
// hooks for the agent: its handler, or its whole entry when the entry
// holds no other, and the lists and objects that held only it. done is
// true when there was none to remove.
func (s *hookSpec) removeHook(text []byte) (out []byte, done bool, err error) {
	if jsonc.IsBlank(text, s.comments) {
		return text, true, nil
	}
	ed, err := jsonc.NewEditor(text, s.comments)
	if err != nil {
		return nil, false, err
	}
	top := ed.Top()
	hooks, ok, err := ed.Member(top, "hooks")
	if err != nil || !ok || !ed.IsObject(hooks) {
		return text, true, err
	}
	list, ok, err := ed.Member(hooks, s.event)
	if err != nil || !ok || !ed.IsArray(list) {
		return text, true, err
	}
	entries, err := ed.Elements(list)
	if err != nil {
		return nil, false, err
	}
	for e, entry := range entries {
		if !ed.IsObject(entry) {
			continue
		}
		hs, ok, err := ed.Member(entry, "hooks")
		if err != nil {
			return nil, false, err
		}
		if !ok || !ed.IsArray(hs) {
			continue
		}
		handlers, err := ed.Elements(hs)
		if err != nil {
			return nil, false, err
		}
		for h, handler := range handlers {
			if !isHookOf(ed, handler, s.agent) {
				continue
			}
			switch {
			case len(handlers) > 1:
				ed.RemoveElement(hs, handlers, h)
			case len(entries) > 1:
				ed.RemoveElement(list, entries, e)
			default:
				if err := removeEmptied(ed, top, hooks, s.event); err != nil {
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

// isHookOf reports whether the value at v is a handler that runs pbwrap's
// hook for agent.
func isHookOf(ed *jsonc.Editor, v jsonc.Span, agent string) bool {
	if !ed.IsObject(v) {
		return false
	}
	c, ok, err := ed.Member(v, "command")
	var command string
	if err != nil || !ok || json.Unmarshal(ed.Raw(c), &command) != nil {
		return false
	}
	_, ok = hookProgramOf(command, agent)
	return ok
}

// removeAll applies remove until it has nothing more to remove.
func removeAll(text []byte, remove func([]byte) ([]byte, bool, error)) ([]byte, error) {
	for range maxRemovals {
		out, done, err := remove(text)
		if err != nil || done {
			return out, err
		}
		text = out
	}
	return text, nil
}

// maxRemovals bounds the removals from one file: a settings file holds
// pbwrap's hook once, or a few times when copied by hand.
const maxRemovals = 1000
