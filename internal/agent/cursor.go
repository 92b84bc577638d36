package agent

// cursor is Cursor's agent CLI, which reads any path.
var cursor = &Agent{
	Name: "cursor-agent", Title: "Cursor Agent", Reads: "nothing: reads any path",
	E2E: E2E{Unavailable: "it installs from cursor.com's own script, not from npm (the npm package named cursor-agent is another project), " +
		"and runs only signed in to Cursor's service"},
}
