package agent

import "strings"

// Instructions is what pbwrap help agents prints for an agent's
// instructions file (AGENTS.md, CLAUDE.md): how to read a saved paste,
// for every agent, and, for an agent pbwrap has a hook for, how to write
// {{file:...}} references in its edits. For nil, the text for any agent.
func Instructions(a *Agent) string {
	return strings.Join(InstructionParts(a), "")
}

// InstructionParts are the parts Instructions(a) is made of, each a
// paragraph or more, for documents that show them one by one.
func InstructionParts(a *Agent) []string {
	if a == nil || a.Hook == nil {
		return []string{pasteHead, pasteText}
	}
	use := a.Hook.refUse
	if use == "" {
		use = refUse
	}
	return []string{bothHead, pasteText, refIntro, use, refRules}
}

// The parts of the instructions.
const (
	pasteHead = `## Pasted files (pbwrap)

The user runs you through pbwrap, which keeps large pastes out of this
conversation.
`
	bothHead = `## Pasted files and file references (pbwrap)

The user runs you through pbwrap, which keeps large text out of this
conversation in both directions.
`
	pasteText = `
**[paste saved: PATH]** in a user message is something the user pasted: it
was saved to PATH instead of being typed in. Treat it as part of the message
and read the file with your file-reading tool, only as far as the task needs:
check its size first (for example wc -l PATH), read the lines that matter or
search it, and do not print it whole or ask the user to paste it again.
`
	refIntro = `
**{{file:/absolute/path:START:END}}** stands for lines START to END (1-based,
inclusive) of a file, exactly as they are, trailing newline included.
`
	refUse = `When a file write or edit would repeat more than a few lines that already
exist in a file (moving or copying a block, or putting a pasted file into the
repository: {{file:PATH:1:N}} for a paste of N lines), write the reference
instead of retyping the lines. It is expanded before the edit is applied.
`
	refRules = `If it is wrong (a relative path, a missing file, a range outside the file)
the edit is refused with the reason and nothing is written: check the path
and the line numbers (wc -l) and try again. Write new text directly;
references are for text that already exists. You have not seen the text a
reference brought into a file: read the file before you edit it again, even
when the tool says its content is current in your context. To write the
literal characters {{file: in a file, put a backslash before them: \{{file:
`
)
