package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex runs a hook of the user's only once the user has trusted it: at
// start it asks ("Hooks need review") about every hook whose trust record
// is missing or stale. The record is a table of the user's config.toml,
//
//	[hooks.state."<hooks.json>:pre_tool_use:<entry>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// keyed by the hooks file as Codex spells it, the event, and the hook's
// place (0-based) in the event's list and in its entry's handlers; the
// hash is of the hook as Codex normalizes it (codex-rs/hooks discovery:
// hook_key, hook_hash), so a record goes stale when the hook changes.
// pbwrap setup codex writes the record for pbwrap's hook, which the user
// has seen in the diff and agreed to, and the e2e suite proves that Codex
// then starts without asking.

// codexEvent is the event pbwrap's hook is for, as hooks.json names it and
// as a trust key spells it.
const codexEvent, codexEventKey = "PreToolUse", "pre_tool_use"

// codexDefaultTimeout is the timeout, in seconds, Codex gives a hook that
// names none; codexDefaultContextLimit the additionalContextLimit that is
// left out of the hash.
const (
	codexDefaultTimeout      = 600
	codexDefaultContextLimit = 2500
)

// codexConfigPath is Codex's user config: CODEX_HOME/config.toml, else
// ~/.codex/config.toml.
func codexConfigPath(env Env) (string, error) {
	return env.file("CODEX_HOME", ".codex", "config.toml")
}

// codexHooksPath is Codex's user hooks file: CODEX_HOME/hooks.json, else
// ~/.codex/hooks.json.
func codexHooksPath(env Env) (string, error) {
	return env.file("CODEX_HOME", ".codex", "hooks.json")
}

// codexKeyPath is the user hooks file as a trust key spells it: in
// CODEX_HOME with its links resolved, else below HOME as written, cleaned.
func codexKeyPath(env Env) (string, error) {
	if dir := env.Getenv("CODEX_HOME"); dir != "" {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		return filepath.Join(dir, "hooks.json"), nil
	}
	home, err := env.Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".codex", "hooks.json"), nil
}

// A codexHandler is one handler of the event's list in hooks.json: its
// place, whether it is pbwrap's, and its hash.
type codexHandler struct {
	entry, handler int
	ours           bool
	hash           string
}

// key is the hook's trust key, for the hooks file spelled path.
func (h codexHandler) key(path string) string {
	return fmt.Sprintf("%s:%s:%d:%d", path, codexEventKey, h.entry, h.handler)
}

// codexHandlers returns the handlers of the event in text, hooks.json (nil
// or blank: none), in order.
func codexHandlers(text []byte) ([]codexHandler, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, nil
	}
	var file struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		return nil, fmt.Errorf("cannot be read as Codex's hooks: %w", err)
	}
	var out []codexHandler
	for e, raw := range file.Hooks[codexEvent] {
		var entry struct {
			Matcher *string           `json:"matcher"`
			Hooks   []json.RawMessage `json:"hooks"`
		}
		if json.Unmarshal(raw, &entry) != nil {
			continue // Codex skips it too; its place counts.
		}
		for h, handler := range entry.Hooks {
			hook := codexHandler{entry: e, handler: h}
			var c struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(handler, &c) == nil {
				_, hook.ours = programOf(c.Command, "codex")
			}
			if hook.ours {
				hash, err := codexHash(entry.Matcher, handler)
				if err != nil {
					return nil, err
				}
				hook.hash = hash
			}
			out = append(out, hook)
		}
	}
	return out, nil
}

// codexHash is the hash Codex trusts a command hook by: SHA-256 of its
// normalized form as compact JSON with sorted keys and nothing escaped
// that need not be, {"event_name", "hooks": [handler], "matcher"}.
func codexHash(matcher *string, raw json.RawMessage) (string, error) {
	var h struct {
		Type                   string  `json:"type"`
		Command                string  `json:"command"`
		Timeout                *int64  `json:"timeout"`
		Async                  bool    `json:"async"`
		StatusMessage          *string `json:"statusMessage"`
		AdditionalContextLimit *int64  `json:"additionalContextLimit"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", fmt.Errorf("pbwrap's hook in hooks.json: %w", err)
	}
	timeout := int64(codexDefaultTimeout)
	if h.Timeout != nil {
		timeout = max(*h.Timeout, 1)
	}
	handler := map[string]any{"type": h.Type, "command": h.Command, "timeout": timeout, "async": h.Async}
	if h.StatusMessage != nil {
		handler["statusMessage"] = *h.StatusMessage
	}
	if h.AdditionalContextLimit != nil && *h.AdditionalContextLimit != codexDefaultContextLimit {
		handler["additionalContextLimit"] = *h.AdditionalContextLimit
	}
	v := map[string]any{"event_name": codexEventKey, "hooks": []any{handler}}
	if matcher != nil {
		v["matcher"] = *matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // As serde_json writes it: < > & as they are.
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// codexTrustInstall returns text, config.toml, with a current trust
// record for each of pbwrap's hooks in hooks, the hooks file setup writes.
func codexTrustInstall(text, hooks []byte, keyPath string) ([]byte, error) {
	found, err := codexHandlers(hooks)
	if err != nil {
		return nil, err
	}
	set := map[string]string{}
	out := text
	for _, h := range found {
		if h.ours {
			set[h.key(keyPath)] = h.hash
			out = tomlSetTrust(out, h.key(keyPath), h.hash)
		}
	}
	return out, checkCodexConfig(text, out, set, nil, nil)
}

// codexTrustRemove returns text, config.toml, without the trust records of
// pbwrap's hooks in before, the hooks file as it was, and with the records
// of the hooks that follow them moved to the places they have in after,
// the hooks file without pbwrap's, so that Codex still trusts them.
func codexTrustRemove(text, before, after []byte, keyPath string) ([]byte, error) {
	was, err := codexHandlers(before)
	if err != nil {
		return nil, err
	}
	now, err := codexHandlers(after)
	if err != nil {
		return nil, err
	}
	out := text
	var deleted []string
	var kept []codexHandler
	for _, h := range was {
		if h.ours {
			deleted = append(deleted, h.key(keyPath))
			out = tomlDeleteTable(out, []string{"hooks", "state", h.key(keyPath)})
		} else {
			kept = append(kept, h)
		}
	}
	renamed := map[string]string{}
	for i := 0; i < len(kept) && i < len(now); i++ {
		from, to := kept[i].key(keyPath), now[i].key(keyPath)
		if from != to {
			renamed[from] = to
			out = tomlRenameTable(out, []string{"hooks", "state", from}, []string{"hooks", "state", to})
		}
	}
	return out, checkCodexConfig(text, out, nil, deleted, renamed)
}

// checkCodexConfig proves that updated, config.toml after setup's edit of
// old, reads as TOML the same as old but for the trust records: those in
// set with their hashes, those deleted gone, those renamed under their new
// keys. The edit is made on lines, to keep the file's comments and layout;
// this is what catches a file it does not understand.
func checkCodexConfig(old, updated []byte, set map[string]string, deleted []string, renamed map[string]string) error {
	var was, now map[string]any
	if err := toml.Unmarshal(old, &was); err != nil {
		return fmt.Errorf("cannot be read as TOML: %w", err)
	}
	if err := tomlHeadersHold(old, was); err != nil {
		return err
	}
	if err := toml.Unmarshal(updated, &now); err != nil {
		return fmt.Errorf("cannot hold the trust record where setup puts it (%v): trust the hook in Codex's /hooks instead", err)
	}
	want := tomlHookStates(was)
	for _, k := range deleted {
		delete(want, k)
	}
	for from, to := range renamed {
		if v, ok := want[from]; ok {
			delete(want, from)
			want[to] = v
		}
	}
	for k, hash := range set {
		state, _ := want[k].(map[string]any)
		state = maps.Clone(state)
		if state == nil {
			state = map[string]any{}
		}
		state["trusted_hash"] = hash
		want[k] = state
	}
	if !reflect.DeepEqual(tomlHookStates(now), want) {
		return errors.New("its hooks.state is laid out in a way setup does not edit: trust the hook in Codex's /hooks instead")
	}
	if !reflect.DeepEqual(withoutHookStates(was), withoutHookStates(now)) {
		return errors.New("setup's edit would change more than the trust record: trust the hook in Codex's /hooks instead")
	}
	return nil
}

// tomlHeadersHold checks that config, the text of the table c, defines
// hooks and hooks.state, when it has them, through table headers: a table
// defined inline or by dotted keys cannot take a [hooks.state."..."]
// header after it (TOML 1.0), which Codex would refuse to start on, even
// where a lenient reader takes it.
func tomlHeadersHold(config []byte, c map[string]any) error {
	var hooksHeader, stateHeader bool
	for line := range strings.SplitSeq(string(config), "\n") {
		if keys, ok := tomlHeader(line); ok && keys[0] == "hooks" {
			hooksHeader = true
			stateHeader = stateHeader || len(keys) > 1 && keys[1] == "state"
		}
	}
	hooks, hasHooks := c["hooks"]
	h, _ := hooks.(map[string]any)
	_, hasState := h["state"]
	if hasHooks && !hooksHeader || hasState && !stateHeader {
		return errors.New("its hooks or hooks.state is written inline or with dotted keys, where setup cannot add a table: trust the hook in Codex's /hooks instead")
	}
	return nil
}

// tomlHookStates returns a copy of the hooks.state table of config.
func tomlHookStates(config map[string]any) map[string]any {
	hooks, _ := config["hooks"].(map[string]any)
	state, _ := hooks["state"].(map[string]any)
	if out := maps.Clone(state); out != nil {
		return out
	}
	return map[string]any{}
}

// withoutHookStates returns config without hooks.state, and without hooks
// when nothing else is in it.
func withoutHookStates(config map[string]any) map[string]any {
	out := maps.Clone(config)
	if hooks, ok := out["hooks"].(map[string]any); ok {
		hooks = maps.Clone(hooks)
		delete(hooks, "state")
		if len(hooks) == 0 {
			delete(out, "hooks")
		} else {
			out["hooks"] = hooks
		}
	}
	if out == nil {
		return map[string]any{}
	}
	return out
}

// codexTrusted reports, for pbwrap doctor, which of pbwrap's hooks in
// hooks (the hooks file's text) Codex would ask about at its next start,
// by their commands: those whose record in config is missing, stale or
// turned off.
func codexUntrusted(config, hooks []byte, keyPath string) (untrusted int, err error) {
	found, err := codexHandlers(hooks)
	if err != nil {
		return 0, err
	}
	var c map[string]any
	if err := toml.Unmarshal(config, &c); err != nil {
		return 0, fmt.Errorf("cannot be read as TOML: %w", err)
	}
	states := tomlHookStates(c)
	for _, h := range found {
		if !h.ours {
			continue
		}
		state, _ := states[h.key(keyPath)].(map[string]any)
		if state["trusted_hash"] != h.hash {
			untrusted++
		}
	}
	return untrusted, nil
}
