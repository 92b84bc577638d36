package agent

// amp is Amp, which reads any path.
var amp = &Agent{Name: "amp", Title: "Amp", Reads: "nothing: reads any path"}
