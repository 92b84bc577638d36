package agent

// cursor is Cursor's agent CLI, which reads any path.
var cursor = &Agent{Name: "cursor-agent", Title: "Cursor Agent", Reads: "nothing: reads any path"}
