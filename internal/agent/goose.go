package agent

// goose is Goose, which reads any path.
var goose = &Agent{
	Name: "goose", Title: "Goose", Reads: "nothing: reads any path",
	E2E: E2E{Unavailable: "it ships as a binary from its GitHub releases, which this machine cannot reach " +
		"(there is no npm or Debian package of it)"},
}
