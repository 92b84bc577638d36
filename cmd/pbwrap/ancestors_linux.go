package main

import (
	"bytes"
	"os"
	"strconv"
)

// maxAncestors bounds the walk up the process tree: a login over SSH
// into a multiplexer is a handful of processes deep.
const maxAncestors = 32

// processAncestors returns the command names (comm) of pbwrap's parent,
// its parent, and so on up to init, read from /proc; what cannot be read
// ends the list early.
func processAncestors() []string {
	var names []string
	pid := os.Getppid()
	for range maxAncestors {
		if pid <= 1 {
			break
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		// pid (comm) state ppid ...: comm may hold spaces and ')'.
		open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || end < open {
			break
		}
		names = append(names, string(stat[open+1:end]))
		fields := bytes.Fields(stat[end+1:])
		if len(fields) < 2 {
			break
		}
		if pid, err = strconv.Atoi(string(fields[1])); err != nil {
			break
		}
	}
	return names
}
