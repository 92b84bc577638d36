package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pbwrap/pbwrap/internal/fsutil"
	"github.com/pbwrap/pbwrap/internal/jsonc"
)

// A setupFile is one file pbwrap setup changes for an agent: its hook, or
// a record that makes the agent start without asking about what pbwrap
// needs (the hook's trust, the root's).
type setupFile struct {
	// what is the change, for messages: "the hook", "the root's trust".
	what string
	path func() (string, error)
	// install returns text (nil: no file yet) with pbwrap's part in it,
	// and remove without it (nil: the file is to be removed); both return
	// text itself when there is nothing to change. An error says why the
	// file cannot be changed.
	install, remove func(text []byte, r *setupRun) ([]byte, error)
}

// A setupRun is one run of setup: what the changes are made with, and the
// texts of the files planned before, as they were and as they will be, by
// the names their path functions return.
type setupRun struct {
	prog, root    string
	before, after map[string][]byte
}

// setupFiles are the files setup changes for the agent of hook s, in the
// order it writes them: the hook first, then what records its trust.
func (s *hookSpec) setupFiles() []setupFile {
	files := []setupFile{{
		what: "the hook", path: s.file,
		install: func(text []byte, r *setupRun) ([]byte, error) {
			out, _, err := s.install(text, r.prog)
			return out, err
		},
		remove: func(text []byte, r *setupRun) ([]byte, error) { return s.uninstall(text) },
	}}
	return append(files, s.trust...)
}

// uninstall returns text without pbwrap's hooks for the agent; nil when
// the file held nothing else, or is pbwrap's extension.
func (s *hookSpec) uninstall(text []byte) ([]byte, error) {
	if text == nil {
		return nil, nil
	}
	if s.event == "" {
		if _, ok := piExtensionProgram(text); ok {
			return nil, nil
		}
		return text, nil // Not pbwrap's: not setup's to remove.
	}
	out, err := removeAll(text, s.removeHook)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(out, text) && jsonc.IsEmptyObject(out) {
		return nil, nil
	}
	return out, nil
}

// codexTrust is the trust record of pbwrap's hook in Codex's config.toml.
var codexTrust = setupFile{
	what: "the hook's trust", path: codexConfigPath,
	install: func(text []byte, r *setupRun) ([]byte, error) {
		hooks, keyPath, err := r.codexHooksFile(r.after)
		if err != nil {
			return nil, err
		}
		return codexTrustInstall(text, hooks, keyPath)
	},
	remove: func(text []byte, r *setupRun) ([]byte, error) {
		if text == nil {
			return nil, nil
		}
		before, keyPath, err := r.codexHooksFile(r.before)
		if err != nil {
			return nil, err
		}
		after, _, _ := r.codexHooksFile(r.after)
		return codexTrustRemove(text, before, after, keyPath)
	},
}

// codexHooksFile returns the text of Codex's hooks file from texts, and
// its name as trust keys spell it.
func (r *setupRun) codexHooksFile(texts map[string][]byte) ([]byte, string, error) {
	name, err := codexHooksPath()
	if err != nil {
		return nil, "", err
	}
	keyPath, err := codexKeyPath()
	return texts[name], keyPath, err
}

// geminiTrust is the root's trust in Gemini CLI's trusted folders: with
// it, Gemini CLI adds the root given with --include-directories to its
// workspace without asking at every start.
var geminiTrust = setupFile{
	what: "the root's trust", path: geminiTrustedFoldersPath,
	install: func(text []byte, r *setupRun) ([]byte, error) { return geminiTrustInstall(text, r.root) },
	remove:  func(text []byte, r *setupRun) ([]byte, error) { return geminiTrustRemove(text, r.root) },
}

// geminiTrustInstall returns text, Gemini CLI's trusted folders, with root
// trusted: unchanged when a rule trusts it already, else root's own rule
// set to TRUST_FOLDER, or added as the last.
func geminiTrustInstall(text []byte, root string) ([]byte, error) {
	rules, err := geminiRulesOf(text)
	if err != nil {
		return nil, fmt.Errorf("cannot be read as Gemini CLI's trusted folders: %w", err)
	}
	if rule, ok := geminiTrusts(rules, root); ok && rule.level != geminiDoNotTrust {
		return text, nil
	}
	level := jsonc.String(geminiTrustFolder)
	if jsonc.IsBlank(text, true) {
		return jsonc.AfterComments(text, jsonc.Object{{Name: root, Value: level}}.Marshal()), nil
	}
	ed, err := jsonc.NewEditor(text, true)
	if err != nil {
		return nil, err
	}
	if v, ok, err := ed.Member(ed.Top(), root); err != nil {
		return nil, err
	} else if ok {
		ed.Replace(v, level)
	} else if err := ed.InsertMember(ed.Top(), root, level); err != nil {
		return nil, err
	}
	return ed.Apply(), nil
}

// geminiTrustRemove returns text without root's own TRUST_FOLDER rule;
// nil when the file held nothing else.
func geminiTrustRemove(text []byte, root string) ([]byte, error) {
	if jsonc.IsBlank(text, true) {
		return text, nil
	}
	ed, err := jsonc.NewEditor(text, true)
	if err != nil {
		return nil, err
	}
	v, ok, err := ed.Member(ed.Top(), root)
	if err != nil || !ok || string(ed.Raw(v)) != string(jsonc.String(geminiTrustFolder)) {
		return text, err
	}
	if _, err := ed.RemoveMember(ed.Top(), root); err != nil {
		return nil, err
	}
	out := ed.Apply()
	if jsonc.IsEmptyObject(out) {
		return nil, nil
	}
	return out, nil
}

// A plannedFile is a file setup read and what it will write there.
type plannedFile struct {
	*setupFile
	name, path   string // as the agent names it; the file it stands for
	old, updated []byte
	mode         fs.FileMode
}

func (p *plannedFile) changed() bool {
	return !bytes.Equal(p.old, p.updated) || (p.old == nil) != (p.updated == nil)
}

// plan reads the agent's files and works out setup's change to each (the
// inverse with remove).
func (s *hookSpec) plan(r *setupRun, remove bool) ([]*plannedFile, error) {
	r.before, r.after = map[string][]byte{}, map[string][]byte{}
	var plan []*plannedFile
	files := s.setupFiles()
	for i := range files {
		f := &files[i]
		name, err := f.path()
		if err != nil {
			return nil, fmt.Errorf("find %s's file for %s: %w", s.agent, f.what, err)
		}
		path, err := resolveSettings(name)
		if err != nil {
			return nil, err
		}
		old, mode, err := readSettings(path)
		if err != nil {
			return nil, err
		}
		change := f.install
		if remove {
			change = f.remove
		}
		updated, err := change(old, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; left as it is", path, err)
		}
		r.before[name], r.after[name] = old, updated
		plan = append(plan, &plannedFile{setupFile: f, name: name, path: path, old: old, updated: updated, mode: mode})
	}
	return plan, nil
}

// runPlan shows the planned changes, asks (unless yes) and writes them.
func (s *hookSpec) runPlan(plan []*plannedFile, prog, why string, yes, remove bool) error {
	verb := "setup " + s.agent
	if remove {
		verb = "setup --remove " + s.agent
	}
	var changed []*plannedFile
	for _, p := range plan {
		if p.changed() {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		fmt.Printf("pbwrap %s: %s: nothing to change\n", verb, s.unchanged(plan, prog, remove))
		return nil
	}
	var paths []string
	for _, p := range changed {
		fmt.Printf("pbwrap %s: %s", verb, printable(p.path))
		if p.path != p.name {
			fmt.Printf(" (%s links to it)", printable(p.name))
		}
		fmt.Printf(": %s\n", p.what)
		paths = append(paths, printable(p.path))
	}
	if !remove {
		fmt.Printf("the hook runs: %s", printable(s.command(prog)))
		if why != "" {
			fmt.Printf(" (%s)", why)
		}
		fmt.Println()
	}
	fmt.Println()
	for _, p := range changed {
		fmt.Printf("%s\n", unifiedDiff(p.path, p.old, p.updated))
	}
	if !yes {
		question := "Write this change to " + paths[0] + "?"
		if len(paths) > 1 {
			question = "Write these changes to " + strings.Join(paths, " and ") + "?"
		}
		asked, ok, err := askOnTerminal(question)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", verb, err)
		case !asked:
			return fmt.Errorf("%s: not written: standard input is not a terminal to ask on (--yes writes it)", verb)
		case !ok:
			fmt.Println("not written")
			return nil // Declining is an answer, not a failure, as for clean --all.
		}
	}
	for _, p := range changed {
		if err := p.write(verb); err != nil {
			return err
		}
	}
	if remove {
		fmt.Printf("pbwrap %s: done: %s\n", verb, s.afterRemove)
	} else {
		fmt.Printf("pbwrap %s: done: %s\n", verb, s.after)
	}
	return nil
}

// unchanged says why setup has nothing to change.
func (s *hookSpec) unchanged(plan []*plannedFile, prog string, remove bool) string {
	var parts []string
	for i, p := range plan {
		switch {
		case remove:
			parts = append(parts, fmt.Sprintf("no part of pbwrap's in %s", printable(p.path)))
		case i == 0:
			parts = append(parts, fmt.Sprintf("the hook is already in %s (it runs %s)", printable(p.path), printable(s.command(prog))))
		default:
			parts = append(parts, fmt.Sprintf("%s is already in %s", p.what, printable(p.path)))
		}
	}
	return strings.Join(parts, "; ")
}

// write replaces the file with what setup planned for it, after a backup
// of what it held, or removes it when nothing is to be left.
func (p *plannedFile) write(verb string) error {
	if p.old != nil {
		backup, err := writeBackup(p.path, p.old, p.mode)
		if err != nil {
			return fmt.Errorf("%s: back up %s: %w; left as it is", verb, p.path, err)
		}
		fmt.Printf("backup: %s\n", printable(backup))
	} else if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	// The agent may have written the file meanwhile: the change would
	// undo what it wrote.
	now, _, err := readSettings(p.path)
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	if !bytes.Equal(now, p.old) || (now == nil) != (p.old == nil) {
		return fmt.Errorf("%s: %s changed while pbwrap setup ran: not written; run it again", verb, p.path)
	}
	if p.updated == nil {
		if err := os.Remove(p.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: remove %s: %w", verb, p.path, err)
		}
		fmt.Printf("removed %s\n", printable(p.path))
		return nil
	}
	// A reader (the agent starting) finds the old file or the new one,
	// never a mix.
	err = fsutil.WriteFileAtomic(p.path, p.updated, fsutil.WriteOptions{
		Perm:        p.mode,
		TempPattern: "." + filepath.Base(p.path) + ".pbwrap-*",
		Durable:     true,
	})
	if err != nil {
		return fmt.Errorf("%s: write %s: %w", verb, p.path, err)
	}
	fmt.Printf("wrote %s\n", printable(p.path))
	return nil
}
