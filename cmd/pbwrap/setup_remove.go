package main

import (
	"bytes"
	"encoding/json"
)

// Removal is install's inverse, made one edit at a time on the text, each
// planned on the text the one before left: a member or an element goes
// with the separator before it (the one after it, when it is the first),
// so that what install added, laid out as install lays it out, goes
// without a trace, and what stays keeps every byte.

// removeOne plans removing the i-th of the values at values (members of an
// object, whose keys start at keys, or elements of an array, keys nil)
// inside the container at c, whose empty form is empty ("{}" or "[]").
func (st *settingsText) removeOne(c span, keys, values []span, i int, empty string) {
	starts := values
	if keys != nil {
		starts = keys
	}
	switch {
	case len(values) == 1:
		st.edits = append(st.edits, textEdit{c, empty})
	case i > 0:
		st.edits = append(st.edits, textEdit{span{values[i-1].end, values[i].end}, ""})
	default:
		st.edits = append(st.edits, textEdit{span{starts[0].start, starts[1].start}, ""})
	}
}

// memberKeys returns the spans of the keys of the object at obj, in the
// order of members.
func (st *settingsText) memberKeys(obj span) ([]span, error) {
	_, values, err := st.members(obj)
	if err != nil {
		return nil, err
	}
	keys := make([]span, len(values))
	from := obj.start + 1
	for i, v := range values {
		at := from
		for at < v.start && (isJSONSpace(st.plain[at]) || st.plain[at] == ',') {
			at++
		}
		keys[i] = span{at, v.start}
		from = v.end
	}
	return keys, nil
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// removeMember plans removing the member name (its last occurrence) from
// the object at obj; ok is false when there is none.
func (st *settingsText) removeMember(obj span, name string) (ok bool, err error) {
	names, values, err := st.members(obj)
	if err != nil {
		return false, err
	}
	keys, err := st.memberKeys(obj)
	if err != nil {
		return false, err
	}
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == name {
			st.removeOne(obj, keys, values, i, "{}")
			return true, nil
		}
	}
	return false, nil
}

// removeHook returns text, the agent's settings, without one of pbwrap's
// hooks for the agent: its handler, or its whole entry when the entry
// holds no other, and the lists and objects that held only it. done is
// true when there was none to remove.
func (s *hookSpec) removeHook(text []byte) (out []byte, done bool, err error) {
	plain := text
	if s.comments {
		plain = stripJSONComments(text)
	}
	if len(bytes.TrimSpace(plain)) == 0 {
		return text, true, nil
	}
	st, top, err := parseSettings(text, plain)
	if err != nil {
		return nil, false, err
	}
	hooks, ok, err := st.member(top, "hooks")
	if err != nil || !ok || st.plain[hooks.start] != '{' {
		return text, true, err
	}
	list, ok, err := st.member(hooks, s.event)
	if err != nil || !ok || st.plain[list.start] != '[' {
		return text, true, err
	}
	entries, err := st.elements(list)
	if err != nil {
		return nil, false, err
	}
	for e, entry := range entries {
		if st.plain[entry.start] != '{' {
			continue
		}
		hs, ok, err := st.member(entry, "hooks")
		if err != nil {
			return nil, false, err
		}
		if !ok || st.plain[hs.start] != '[' {
			continue
		}
		handlers, err := st.elements(hs)
		if err != nil {
			return nil, false, err
		}
		for h, handler := range handlers {
			if !st.isHookOf(handler, s.agent) {
				continue
			}
			switch {
			case len(handlers) > 1:
				st.removeOne(hs, nil, handlers, h, "[]")
			case len(entries) > 1:
				st.removeOne(list, nil, entries, e, "[]")
			default:
				if err := st.removeEmptied(top, hooks, s.event); err != nil {
					return nil, false, err
				}
			}
			return st.apply(), false, nil
		}
	}
	return text, true, nil
}

// removeEmptied plans removing the member event of the hooks object, and
// the hooks object itself when that was its only member.
func (st *settingsText) removeEmptied(top, hooks span, event string) error {
	names, _, err := st.members(hooks)
	if err != nil {
		return err
	}
	if len(names) == 1 {
		_, err = st.removeMember(top, "hooks")
		return err
	}
	_, err = st.removeMember(hooks, event)
	return err
}

// isHookOf reports whether the value at v is a handler that runs pbwrap's
// hook for agent.
func (st *settingsText) isHookOf(v span, agent string) bool {
	if st.plain[v.start] != '{' {
		return false
	}
	c, ok, err := st.member(v, "command")
	var command string
	if err != nil || !ok || json.Unmarshal(st.plain[c.start:c.end], &command) != nil {
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

// emptyObject reports whether text, a settings file, is an empty object
// and nothing else (no comment either): what is left of a file that held
// only pbwrap's part, which removal then removes.
func emptyObject(text []byte) bool {
	t := bytes.TrimSpace(text)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
}
