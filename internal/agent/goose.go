package agent

// goose is Goose, which reads any path.
var goose = &Agent{Name: "goose", Title: "Goose", Reads: "nothing: reads any path"}
