//go:build !darwin && !linux

package frontend

// Ancestors returns nothing where they are not read: the environment is
// all that Detect looks at.
func Ancestors() []Process { return nil }

// ownTerminal is not known here.
func ownTerminal() (uint64, bool) { return 0, false }

// screenVersionOf runs the screen on PATH with -v.
func screenVersionOf(Process) string { return runVersion("screen") }
