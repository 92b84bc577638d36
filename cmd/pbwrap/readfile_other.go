//go:build !unix

package main

// readOpenFlags adds nothing where opening a named pipe does not wait for
// a writer.
const readOpenFlags = 0
