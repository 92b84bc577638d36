package agent

import (
	"path/filepath"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

// pi is Pi. It reads any path; it runs hooks from extensions, code it
// loads, so pbwrap's hook for it is an extension of pbwrap's, which runs
// pbwrap hook pi from Pi's tool_call event.
var pi = &Agent{
	Name: "pi", Title: "Pi",
	Reads: "nothing: reads any path",
	Hook: &Hook{
		Protocol: fileref.Protocol{Event: "tool_call", Reply: fileref.ToolInput, Tools: []fileref.Tool{
			{Name: "write", Fields: []string{"content"}, Target: "path"},
			{Name: "edit", Fields: []string{"newText"}, List: "edits", Item: "newText", Target: "path"},
		}},
		File: func(env Env) (string, error) {
			return env.file("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent"), filepath.Join("extensions", "pbwrap.ts"))
		},
		Where:     "$PI_CODING_AGENT_DIR/extensions/pbwrap.ts, else ~/.pi/agent/extensions/pbwrap.ts",
		Extension: &Extension{Text: piExtension, call: "spawn("},
		About: `It speaks the protocol of Gemini CLI's hook, as the tool_call event of a
small Pi extension that replaces the tool's input with the answer or blocks
the call with the reason: pbwrap help agents pi-extension prints the
extension.`,
		After:       "/reload in Pi, or start it again",
		AfterRemove: "/reload in Pi, or start it again",
	},
	E2E: E2E{
		// The built-in anthropic provider pointed at the fake model, a
		// dummy key, PI_OFFLINE=1 (no downloads of helper tools). Pi 1.x
		// needs Node.js 22.
		Env: map[string]string{"ANTHROPIC_API_KEY": anthropicKey, "PI_OFFLINE": "1"},
		Files: func(s E2EStart) map[string]string {
			return map[string]string{".pi/agent/models.json": mustJSON(map[string]any{"providers": map[string]any{
				"anthropic": map[string]any{"baseUrl": s.URL}}})}
		},
		Ready:   "ctrl+c",
		Prompts: []string{"Allow", "Approve", "trust"},
	},
}

// piExtension is pbwrap's Pi extension: from Pi's tool_call event, which
// may change a call's input in place or block the call, it runs pbwrap
// hook pi on write and edit calls with a reference.
const piExtension = `// pbwrap's Pi extension: expands {{file:/absolute/path:START:END}} references
// in write and edit calls before they run, with "pbwrap hook pi". A reference
// that does not expand blocks the call, with the reason, and nothing is
// written. Save it as ~/.pi/agent/extensions/pbwrap.ts (pbwrap help agents
// pi-extension prints it), then /reload in Pi.
import { spawn } from "node:child_process";

type Result = { code: number | null; stdout: string; stderr: string };

// hook runs pbwrap hook pi with the call on its standard input.
function hook(call: string, cwd: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn("pbwrap", ["hook", "pi"], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", (err: Error) => resolve({ code: -1, stdout, stderr: String(err) }));
    child.on("close", (code: number | null) => resolve({ code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(call);
  });
}

export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    if (event.toolName !== "write" && event.toolName !== "edit") return;
    if (!JSON.stringify(event.input).includes("{{file:")) return;
    const call = { hook_event_name: "tool_call", tool_name: event.toolName, tool_input: event.input, cwd: ctx.cwd };
    const r = await hook(JSON.stringify(call), ctx.cwd);
    if (r.code !== 0) {
      return { block: true, reason: r.stderr.trim() || "pbwrap hook pi failed (exit status " + r.code + ")" };
    }
    if (r.stdout.trim() === "") return;
    const answer = JSON.parse(r.stdout);
    if (answer.decision === "deny") return { block: true, reason: answer.reason };
    const input = answer.hookSpecificOutput?.tool_input;
    if (typeof input !== "object" || input === null) {
      return { block: true, reason: "pbwrap hook pi gave no tool_input" };
    }
    // Pi runs the call with event.input: replace its members in place.
    for (const key of Object.keys(event.input)) delete event.input[key];
    Object.assign(event.input, input);
  });
}
`
