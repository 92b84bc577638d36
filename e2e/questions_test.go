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
// it, natively and through pbwrap (after pbwrap setup, where pbwrap has
// it). The agent's own first-start questions (trust this folder?) are
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
func (r *run) startQuestions(a agentCase, wrapped bool) (asked []string, unknown string) {
	s := r.startUnready(a, wrapped)
	defer s.kill()
	deadline := time.Now().Add(startTimeout)
	var answered []string
	for time.Now().Before(deadline) {
		// An agent that does not use the alternate screen leaves a question
		// it was answered on the screen: what counts is what follows it.
		screen := after(s.screen(), answered)
		if q := a.ownQuestion(screen); q != nil {
			asked = append(asked, q.text)
			answered = append(answered, q.text)
			// A key sent before the question takes keys is lost, and the next
			// one answers it wrong (Claude Code's default is "No, exit").
			s.settle()
			for _, k := range q.keys {
				s.keys(k)
				time.Sleep(time.Second)
			}
			time.Sleep(2 * time.Second) // The next screen.
			continue
		}
		if p := promptsOn(screen, a.prompts); p != "none" {
			return asked, p + " on:\n" + s.screen()
		}
		if strings.Contains(screen, a.ready) {
			time.Sleep(3 * time.Second) // A question that comes late.
			if late := after(s.screen(), answered); a.ownQuestion(late) == nil && promptsOn(late, a.prompts) == "none" {
				return asked, ""
			}
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	return asked, "never ready:\n" + s.screen()
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

// ownQuestion returns the agent's own question the screen shows, or nil.
func (a agentCase) ownQuestion(screen string) *question {
	for i := range a.questions {
		if strings.Contains(screen, a.questions[i].text) {
			return &a.questions[i]
		}
	}
	return nil
}

// setup runs pbwrap setup for the agent in the run's HOME, where pbwrap
// has a setup for it.
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

// runQuestions counts the questions of a first and a second start, native
// and through pbwrap, and fails when pbwrap's differ.
func runQuestions(t *testing.T, srv *server, a agentCase) (native, wrapped [2][]string, roundTrip string) {
	roundTrip = "no setup"
	for _, through := range []bool{false, true} {
		r := newRun(t, srv, a, false, true)
		srv.reset(scenario{})
		if through {
			r.setup(a)
		}
		defer func() {
			if !through && a.hook {
				roundTrip = r.roundTrip(a) // On the files the agent wrote itself at its starts.
			}
		}()
		for i := range 2 {
			asked, unknown := r.startQuestions(a, through)
			if unknown != "" {
				t.Errorf("start %d (through pbwrap: %v): a question pbwrap cannot answer for: %s", i+1, through, unknown)
			}
			if through {
				wrapped[i] = asked
			} else {
				native[i] = asked
			}
		}
	}
	for i := range 2 {
		if !slices.Equal(native[i], wrapped[i]) {
			t.Errorf("start %d asked %q natively, %q through pbwrap", i+1, native[i], wrapped[i])
		}
	}
	return native, wrapped, roundTrip
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
