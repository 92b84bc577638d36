package agent

// copilot is GitHub Copilot CLI. It reads its working directory and the
// temporary directory by default, but compares paths as written: on macOS
// its /var/folders/... is not the /private/var/folders/... a reference
// carries. --add-dir for a directory it reads anyway costs nothing.
var copilot = &Agent{
	Name: "copilot", Title: "Copilot CLI",
	Subcommands: []string{"help", "init", "login", "logout", "mcp", "plugin", "plugins", "skill", "update",
		"version", "completion", "config"},
	Batch: []string{"-p", "--prompt"},
	Args:  func(argv []string, root string) []string { return insertAfterName(argv, "--add-dir", root) },
	Reads: "copilot --add-dir ROOT",
}
