//go:build e2e

package e2e

import (
	"maps"
	"strings"

	"github.com/pbwrap/pbwrap/internal/agent"
)

// agentCases are the agents the registry says how to run offline
// (agent.E2E): what each needs in its fresh HOME and its environment so
// that it starts with no login, no network, no first-run dialog, and
// talks to the fake model.
var agentCases = func() []agentCase {
	var cases []agentCase
	for _, a := range agent.All() {
		e := a.E2E
		if e.Ready == "" {
			continue // No offline start here (agent.E2E.Unavailable says why).
		}
		c := agentCase{name: a.Name, ready: e.Ready, prompts: e.Prompts, hook: a.Hook != nil, pasteMark: e.PasteMark, pasteAttached: e.PasteAttached,
			refuses: a.Hook != nil && a.Hook.Protocol.Approves,
			noted:   a.Note != nil, patchDropsLastNewline: e.PatchDropsLastNewline}
		for _, q := range e.Questions {
			c.questions = append(c.questions, question{q.Text, q.Keys})
		}
		for _, q := range e.NotedQuestions {
			c.noted = true
			c.notedQuestions = append(c.notedQuestions, question{q.Text, q.Keys})
		}
		c.setup = func(r *run) {
			maps.Copy(r.env, e.StartEnv(r.srv.url))
			if e.Files != nil {
				for name, text := range e.Files(agent.E2EStart{URL: r.srv.url, Work: r.work, Trusted: !r.untrusted}) {
					r.writeFile(name, text)
				}
			}
			for _, arg := range e.Args {
				r.args = append(r.args, strings.ReplaceAll(arg, "{home}", r.home))
			}
			if r.write {
				r.args = append(r.args, e.WriteArgs...)
			}
		}
		cases = append(cases, c)
	}
	return cases
}()
