//go:build e2e

package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Questions at start: the first start of an agent in a fresh HOME where
// nothing is trusted, not even the working directory, and the start after
// it, natively, through pbwrap with nothing set up, and through pbwrap
// after pbwrap setup, where pbwrap has it. The agent's own first-start questions (trust this folder?) are
// answered as a user would, yes; any other question fails the run. What
// pbwrap is allowed to show is what the same start shows natively.

// A question is one of an agent's own first-start questions: what the
// screen shows while it asks, and the keys that answer yes.
type question struct {
	text string
	keys []string
}

// startQuestions starts the agent, answers its own questions and returns
// their texts, once it is ready; an unknown question is an error, with the
// screen.
func (r *run) startQuestions(a agentCase, wrapped, noted bool) (asked []string, unknown string) {
	s := r.startUnready(a, wrapped)
	defer s.kill()
	deadline := time.Now().Add(startTimeout)
	var answered []string
	var last *question // The question answered last: when, and how often again.
	var lastAt time.Time
	again := 0
	answer := func(q *question) {
		// A key sent before the question takes keys is lost, and the next
		// one answers it wrong (Claude Code's default is "No, exit").
		s.settle()
		for _, k := range q.keys {
			s.keys(k)
			time.Sleep(time.Second)
		}
		last, lastAt = q, time.Now()
		time.Sleep(2 * time.Second) // The next screen.
	}
	for time.Now().Before(deadline) {
		// An agent that does not use the alternate screen leaves a question
		// it was answered on the screen: what counts is what follows it.
		screen := after(s.screen(), answered)
		if q := a.ownQuestion(screen, noted); q != nil {
			asked = append(asked, q.text)
			answered = append(answered, q.text)
			again = 0
			answer(q)
			continue
		}
		if p := promptsOn(screen, a.prompts); p != "none" {
			// A question drawn in parts shows its frame before its text
			// (Copilot CLI's "Confirm folder trust" box): judge the
			// screen once it has stopped changing.
			s.settle()
			if whole := after(s.screen(), answered); a.ownQuestion(whole, noted) == nil && promptsOn(whole, a.prompts) != "none" {
				return asked, promptsOn(whole, a.prompts) + " on:\n" + s.screen()
			}
			continue
		}
		if strings.Contains(screen, a.ready) {
			time.Sleep(3 * time.Second) // A question that comes late.
			if late := after(s.screen(), answered); a.ownQuestion(late, noted) == nil && promptsOn(late, a.prompts) == "none" {
				return asked, ""
			}
			continue
		}
		if last != nil && again < 2 && time.Since(lastAt) >= 5*time.Second && stillAsks(s.screen(), last.text, a.ready) {
			// The answer was not taken: a user sees the same question still
			// there, nothing else, and answers again (Gemini CLI drops the
			// first key after it restarts for a trust change, natively too).
			s.settle()
			if whole := s.screen(); stillAsks(whole, last.text, a.ready) && promptsOn(after(whole, answered), a.prompts) == "none" {
				again++
				answer(last)
				continue
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return asked, "never ready:\n" + s.screen()
}

// stillAsks reports whether the screen still ends on the question q: it
// shows q, and nothing after q says the agent is ready.
func stillAsks(screen, q, ready string) bool {
	i := strings.LastIndex(screen, q)
	return i >= 0 && !strings.Contains(screen[i+len(q):], ready)
}

// after is what screen shows after the last of the questions answered.
func after(screen string, answered []string) string {
	for _, q := range answered {
		if i := strings.LastIndex(screen, q); i >= 0 {
			screen = screen[i+len(q):]
		}
	}
	return screen
}

// ownQuestion returns the agent's own question the screen shows, or nil;
// with noted, the questions pbwrap's start note announces count too.
func (a agentCase) ownQuestion(screen string, noted bool) *question {
	qs := a.questions
	if noted {
		qs = append(slices.Clone(qs), a.notedQuestions...)
	}
	for i := range qs {
		if strings.Contains(screen, qs[i].text) {
			return &qs[i]
		}
	}
	return nil
}

// setup runs pbwrap setup for the agent in the run's HOME, where pbwrap
// has a setup for it. The suite runs it only where it says so: every
// agent's first starts through pbwrap are made with nothing set up.
func (r *run) setup(a agentCase) {
	r.t.Helper()
	if !a.hook {
		return
	}
	cmd := exec.Command(pbwrap, "setup", "--yes", a.name)
	cmd.Dir = r.work
	cmd.Env = envList(r.env)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("pbwrap setup %s: %v\n%s", a.name, err, out)
	}
}

// runQuestions counts the questions of a first and a second start,
// natively, through pbwrap with nothing set up, and, for an agent pbwrap
// has a setup for, through pbwrap after pbwrap setup. Through pbwrap with
// nothing set up the starts must ask what the native ones ask and nothing
// else, but for the questions an agent asks because of pbwrap until
// setup (agent.E2E.NotedQuestions), which pbwrap's start note must have
// announced at that start; after setup, exactly what the native ones ask.
func runQuestions(t *testing.T, srv *server, a agentCase, o *outcome) {
	o.roundTrip = "no setup"
	o.hasSetup = a.hook
	for _, mode := range []string{"native", "wrapped", "set up"} {
		if mode == "set up" && !a.hook {
			continue
		}
		r := newRun(t, srv, a, false, true)
		srv.reset(scenario{})
		through := mode != "native"
		if mode == "set up" {
			r.setup(a)
		}
		for i := range 2 {
			asked, unknown := r.startQuestions(a, through, mode == "wrapped")
			if unknown != "" {
				t.Errorf("start %d (%s): a question pbwrap cannot answer for: %s", i+1, mode, unknown)
			}
			switch mode {
			case "native":
				o.native[i] = asked
			case "wrapped":
				o.wrapped[i] = asked
				o.notes[i] = r.startNote()
			default:
				o.setUp[i] = asked
			}
		}
		if mode == "native" && a.hook {
			o.roundTrip = r.roundTrip(a) // On the files the agent wrote itself at its starts.
		}
	}
	for i := range 2 {
		var added []string
		for _, q := range o.wrapped[i] {
			if !slices.Contains(o.native[i], q) {
				added = append(added, q)
			}
		}
		switch {
		case len(added) > 0 && !a.notes(added):
			t.Errorf("start %d asked %q natively, %q through pbwrap", i+1, o.native[i], o.wrapped[i])
		case len(added) > 0 && o.notes[i] == "":
			t.Errorf("start %d through pbwrap asked %q, and pbwrap's start note did not say so", i+1, added)
		}
		if a.hook && !slices.Equal(o.native[i], o.setUp[i]) {
			t.Errorf("start %d asked %q natively, %q through pbwrap after pbwrap setup", i+1, o.native[i], o.setUp[i])
		}
	}
}

// notes reports whether every question of qs is one pbwrap's start note
// announces for the agent.
func (a agentCase) notes(qs []string) bool {
	for _, q := range qs {
		if !slices.ContainsFunc(a.notedQuestions, func(n question) bool { return n.text == q }) {
			return false
		}
	}
	return true
}

// startNote is the start note pbwrap logged at the run's last start
// through it, "" for none, and empties the log.
func (r *run) startNote() string {
	file := filepath.Join(r.home, "pbwrap.log")
	log, _ := os.ReadFile(file)
	os.Remove(file)
	for line := range strings.Lines(string(log)) {
		for _, mark := range []string{"pbwrap setup", "pbwrap doctor tells more"} {
			// "pbwrap[PID] DATE TIME TEXT"
			if parts := strings.SplitN(strings.TrimSpace(line), " ", 4); len(parts) == 4 && strings.Contains(parts[3], mark) {
				return parts[3]
			}
		}
	}
	return ""
}

// addedQuestions says how many questions a start through pbwrap asked
// that the native start did not (0 when they are the same), and what the
// native start asked.
func addedQuestions(native, wrapped []string) string {
	added := 0
	for _, q := range wrapped {
		if !slices.Contains(native, q) {
			added++
		}
	}
	if len(native) == 0 {
		return fmt.Sprint(added)
	}
	return fmt.Sprintf("%d (both asked %q)", added, native)
}

// roundTrip runs pbwrap setup and then setup --remove in the run's HOME,
// and checks that every settings file there is as it was before, byte for
// byte: setup's backups aside, nothing is left of pbwrap.
func (r *run) roundTrip(a agentCase) string {
	r.t.Helper()
	before := r.settingsFiles()
	for _, args := range [][]string{{"setup", "--yes", a.name}, {"setup", "--remove", "--yes", a.name}} {
		cmd := exec.Command(pbwrap, args...)
		cmd.Dir = r.work
		cmd.Env = envList(r.env)
		if out, err := cmd.CombinedOutput(); err != nil {
			r.t.Errorf("pbwrap %s: %v\n%s", strings.Join(args, " "), err, out)
			return "failed"
		}
	}
	after := r.settingsFiles()
	diffs := 0
	for name, text := range before {
		if after[name] != text {
			r.t.Errorf("setup, then setup --remove: %s changed:\n%s\nbecame\n%s", name, text, after[name])
			diffs++
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			r.t.Errorf("setup, then setup --remove: %s was left behind", name)
			diffs++
		}
	}
	if diffs > 0 {
		return fmt.Sprintf("%d files differ", diffs)
	}
	return fmt.Sprintf("no diff in %d files", len(before))
}

// settingsFiles are the agents' settings files in the run's HOME (JSON,
// TOML, TypeScript below a dot-directory), by name, with their text.
func (r *run) settingsFiles() map[string]string {
	files := map[string]string{}
	filepath.WalkDir(r.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(d.Name(), ".pbwrap-backup-") {
			return nil
		}
		switch filepath.Ext(path) {
		case ".json", ".toml", ".ts":
			if text, err := os.ReadFile(path); err == nil && len(text) < 1<<20 {
				files[path] = string(text)
			}
		}
		return nil
	})
	return files
}

// settle waits until the screen has not changed for a second, for at
// most ten.
func (s *tmux) settle() {
	last, since := s.screen(), time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if now := s.screen(); now != last {
			last, since = now, time.Now()
		} else if time.Since(since) >= time.Second {
			return
		}
	}
}
