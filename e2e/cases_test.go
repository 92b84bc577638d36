//go:build e2e

package e2e

import (
	"maps"

	"github.com/pbwrap/pbwrap/agent"
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
			continue // Not installable here (scripts/e2e-agents).
		}
		c := agentCase{name: a.Name, ready: e.Ready, prompts: e.Prompts, hook: a.Hook != nil, pasteMark: e.PasteMark,
			refuses: a.Hook != nil && a.Hook.Protocol.Approves}
		for _, q := range e.Questions {
			c.questions = append(c.questions, question{q.Text, q.Keys})
		}
		c.setup = func(r *run) {
			maps.Copy(r.env, e.StartEnv(r.srv.url))
			if e.Files != nil {
				for name, text := range e.Files(agent.E2EStart{URL: r.srv.url, Work: r.work, Trusted: !r.untrusted}) {
					r.writeFile(name, text)
				}
			}
			if r.write {
				r.args = append(r.args, e.WriteArgs...)
			}
		}
		cases = append(cases, c)
	}
	return cases
}()
