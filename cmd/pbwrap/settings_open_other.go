//go:build !unix

package main

// settingsOpenFlags adds nothing where opening a named pipe does not wait
// for a writer.
const settingsOpenFlags = 0
