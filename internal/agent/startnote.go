package agent

// A start note is what pbwrap says on standard error, before the agent
// takes the terminal, when the agent will ask something because of
// pbwrap that nothing pbwrap can add to its start prevents: what it will
// ask, and the one command that fixes it for good. For the agents
// without a note, pbwrap's arguments and variables are enough.

// StartNote returns the note for a start of argv in cwd, pbwrap having
// added what the agent needs to read root; a zero Message when the agent
// will ask nothing because of pbwrap, or is not one pbwrap knows, or argv
// does not start its interactive session.
func StartNote(argv []string, env Env, cwd, root string) Message {
	a := forCommand(argv[0])
	if a == nil || a.Note == nil || root == "" || !a.interactive(argv[1:]) {
		return Message{}
	}
	return a.Note(env, cwd, root)
}

// geminiNote: in a folder it trusts, Gemini CLI asks at every start
// whether to trust a directory given with --include-directories that no
// rule trusts (useIncludeDirsTrust in its interactive UI), and nothing at
// its start adds a directory it may only read: its workspace takes
// directories the user trusts. It asks nothing when folder trust is off,
// or in a folder it does not trust, where it adds the directory as it is;
// a root it is told not to trust it refuses to add, and says so itself.
func geminiNote(env Env, cwd, root string) Message {
	if geminiFolderTrustOff(env) || env.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return Message{}
	}
	file, err := geminiTrustedFoldersPath(env)
	if err != nil {
		return Message{}
	}
	rules, err := readGeminiTrust(file)
	if err != nil {
		return Message{} // Gemini CLI stops on it, and says why; so does pbwrap doctor.
	}
	if rule, ok := geminiTrusts(rules, root); ok {
		if rule.level == geminiDoNotTrust {
			return msg("Gemini CLI will not read the saved pastes: %s is %s in %s (pbwrap doctor tells more)",
				quoted(rule.path), rule.level, file)
		}
		return Message{}
	}
	if env.Getenv("GEMINI_CLI_TRUST_WORKSPACE") != "true" {
		if rule, ok := geminiTrusts(rules, cwd); ok && rule.level == geminiDoNotTrust {
			return Message{}
		}
	}
	return msg("Gemini CLI asks at each start in a trusted folder whether to trust %s, where pbwrap saves pastes: "+
		"pbwrap setup gemini trusts it once for all", root)
}

// crushNote: Crush asks before its view tool reads outside the working
// directory, and only pbwrap's hook (pbwrap setup crush) allows the root
// alone: nothing at its start scopes a read permission to a directory.
func crushNote(env Env, cwd, root string) Message {
	findings := checkCrushReads(env, root)
	if len(findings) == 0 || findings[0].Problem.IsZero() {
		return Message{}
	}
	return msg("Crush asks before reading each saved paste: pbwrap setup crush lets it read them without asking")
}
