package frontend

import (
	"bytes"
	"os"
	"strconv"
)

// maxAncestors bounds the walk up the process tree: a login over SSH
// into a multiplexer is a handful of processes deep.
const maxAncestors = 32

// Ancestors returns pbwrap's parent, its parent, and so on up to init,
// read from /proc; what cannot be read ends the list early.
func Ancestors() []Process {
	var ps []Process
	pid := os.Getppid()
	for range maxAncestors {
		if pid <= 1 {
			break
		}
		p, ppid, ok := readStat(strconv.Itoa(pid))
		if !ok {
			break
		}
		p.PID = pid
		ps = append(ps, p)
		pid = ppid
	}
	return ps
}

// ownTerminal returns this process's controlling terminal, and whether it
// is a virtual console (major 4, minors 1 to 63; from 64 on, serial
// lines).
func ownTerminal() (tty uint64, console bool) {
	p, _, ok := readStat("self")
	if !ok {
		return 0, false
	}
	major, minor := p.TTY>>8&0xfff, p.TTY&0xff|p.TTY>>12&0xfff00
	return p.TTY, major == 4 && minor >= 1 && minor <= 63
}

// readStat reads /proc/PID/stat: the command name, the controlling
// terminal and the parent.
func readStat(pid string) (p Process, ppid int, ok bool) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return p, 0, false
	}
	// pid (comm) state ppid pgrp session tty_nr ...: comm may hold spaces
	// and ')'.
	open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return p, 0, false
	}
	fields := bytes.Fields(stat[end+1:])
	if len(fields) < 5 {
		return p, 0, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	tty, err2 := strconv.ParseInt(string(fields[4]), 10, 64)
	if err1 != nil || err2 != nil {
		return p, 0, false
	}
	return Process{Name: string(stat[open+1 : end]), TTY: uint64(uint32(tty))}, ppid, true
}

// screenVersionOf runs the screen that p runs (its /proc/PID/exe; the
// screen on PATH when that cannot be read) with -v.
func screenVersionOf(p Process) string {
	if p.PID > 0 {
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(p.PID) + "/exe"); err == nil {
			if _, err := os.Stat(exe); err == nil { // Not "(deleted)" by an upgrade.
				return runVersion(exe)
			}
		}
	}
	return runVersion("screen")
}
