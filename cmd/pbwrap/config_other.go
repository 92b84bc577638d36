//go:build !unix

package main

// configOpenFlags adds nothing where named pipes do not block an open.
const configOpenFlags = 0
