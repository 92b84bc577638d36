package agent

// amp is Amp, which reads any path.
var amp = &Agent{
	Name: "amp", Title: "Amp", Reads: "nothing: reads any path",
	E2E: E2E{Unavailable: "it runs only signed in to Amp's service (ampcode.com), which runs its model; " +
		"no fake model stands in for that service"},
}
