package capture

// A large paste that could not be saved goes to the child as text, as the
// terminal sent it (see fallback): nothing is lost. But pbwrap never
// writes to the terminal while the child owns it, and an agent shows a
// large paste as its own placeholder ("[Pasted text #1 +600 lines]"), so
// without a word the user could not tell that pbwrap had stopped saving.
// The word goes where the user looks as it happens, and where it cannot
// hide under a full-screen agent: into the agent's input, right after the
// paste, as a paste of its own (bracketed exactly when the child has
// bracketed paste on, as every delivery is), so that no key of it is taken
// for a command. The user sees it beside the placeholder and can delete
// it; sent as it is, it tells the model only what happened. Claude Code,
// Codex, Gemini CLI, Qwen Code, Pi and opencode show it as text beside
// their placeholder, and send it after the paste; Copilot CLI takes
// whatever comes within about a second of a paste, typed or pasted, for
// more of it, so there the note ends the paste it saved itself
// (scripts/e2e-agents, TestUnsavedPaste).

// UnsavedNote is the line typed into the child after a large paste that
// went in as text because saving it failed; why is the reason in a few
// words (store.Why). It holds no newline and no path.
func UnsavedNote(why string) string {
	return "[pbwrap: not saved (" + why + "), so this paste went in as text]"
}

// noteUnsaved types UnsavedNote into the child, once the paste has been
// delivered; nothing once the child has ended.
func (in *Input) noteUnsaved(why string) {
	if in.gone {
		return
	}
	bracketed := in.deliver([]byte(UnsavedNote(why)))
	in.cfg.Debugf("paste: typed the note that it was not saved (%s), bracketed %v", why, bracketed)
}
