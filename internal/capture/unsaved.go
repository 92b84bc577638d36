package capture

import "time"

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
// more of it, so there the note ends the paste it saved itself; Crush
// sends a large paste as an attachment after what was typed, so there the
// note comes before it; Cline sends the paste with the line ends the
// terminal sent (CR), and the note after it. An agent with bracketed paste off gets
// the note after a pause (NoteGap), or it would join the paste
// (scripts/e2e-agents, TestUnsavedPaste).

// UnsavedNote is the line typed into the child after a large paste that
// went in as text because saving it failed; why is the reason in a few
// words (store.Why). It holds no newline and no path.
func UnsavedNote(why string) string {
	return "[pbwrap: not saved (" + why + "), so this paste went in as text]"
}

// NoteGap is how long the note waits after the paste when the child has
// bracketed paste off: such an agent tells a paste from typing by time,
// and takes what comes soon after one for more of it (Continue's cn joins
// input that comes within 200 ms, and ends a paste 250 ms after its
// last), so a note typed at once would vanish into its placeholder. Keys
// typed meanwhile go on as they come; the note follows them.
const NoteGap = 300 * time.Millisecond

// A pendingNote is the note of a paste that went in unbracketed, until its
// pause has passed (see NoteGap).
type pendingNote struct {
	why string
	due time.Time // zero: none waits
}

// owed reports whether a note waits and its pause has passed at now.
func (n *pendingNote) owed(now time.Time) bool {
	return !n.due.IsZero() && !now.Before(n.due)
}

// noteUnsaved types UnsavedNote into the child, once the paste has been
// delivered: at once as a paste of its own where the child has bracketed
// paste on, else after NoteGap (Flush; Close types one still waiting);
// nothing once the child has ended. Two failures within the gap share one
// note, with the later reason, since the note speaks of the paste before
// it.
func (in *Input) noteUnsaved(why string) {
	if in.gone {
		return
	}
	if !in.cfg.Mode() {
		in.note = pendingNote{why: why, due: in.now.Add(NoteGap)}
		in.cfg.Debugf("paste: the note that it was not saved (%s) waits %v: the child has bracketed paste off", why, NoteGap)
		return
	}
	in.deliver([]byte(UnsavedNote(why)))
	in.cfg.Debugf("paste: typed the note that it was not saved (%s), bracketed true", why)
}

// typeNote types the note that waited (see noteUnsaved), as a paste of its
// own if the child has turned bracketed paste on meanwhile.
func (in *Input) typeNote() {
	why := in.note.why
	in.note = pendingNote{}
	if in.gone {
		return
	}
	bracketed := in.deliver([]byte(UnsavedNote(why)))
	in.cfg.Debugf("paste: typed the note that it was not saved (%s), bracketed %v", why, bracketed)
}
