package ptytest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// How each system says that a process is stopped, and how much memory it
// used. Stopped reads the state with the system's own call
// (proc_linux.go, proc_darwin.go, proc_freebsd.go); the decisions are
// here, so that they are tested on every system with every system's data.

// linuxStopped reports whether a Linux /proc/PID/stat line is that of a
// stopped process: its state, the field after the command name in
// parentheses (which may itself hold ") "), is T.
func linuxStopped(stat []byte) (bool, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) || stat[i+1] != ' ' {
		return false, fmt.Errorf("no state in /proc stat %.60q", stat)
	}
	return stat[i+2] == 'T', nil
}

// sstop is SSTOP of <sys/proc.h> on macOS and FreeBSD: the p_stat (macOS)
// or ki_stat (FreeBSD) of a stopped process.
const sstop = 4

// The struct kinfo_proc of FreeBSD's <sys/user.h> as the sysctl
// kern.proc.pid returns it on 64-bit systems (amd64, arm64, riscv64,
// powerpc64): KINFO_PROC_SIZE bytes, starting with ki_structsize (an
// int), with the one-byte ki_stat at offset 388. x/sys/unix has no type
// for it on FreeBSD.
const (
	freebsdKinfoProcSize = 1088
	freebsdKiStatOffset  = 388
)

// errLayout is returned for a kinfo_proc whose layout is not known here
// (32-bit FreeBSD).
var errLayout = fmt.Errorf("kinfo_proc layout: %w", errors.ErrUnsupported)

// freebsdStopped reports whether raw, a FreeBSD kinfo_proc, is that of a
// stopped process.
func freebsdStopped(raw []byte) (bool, error) {
	if len(raw) < 4 {
		return false, fmt.Errorf("kinfo_proc of %d bytes", len(raw))
	}
	if size := binary.NativeEndian.Uint32(raw); size != freebsdKinfoProcSize || len(raw) < freebsdKinfoProcSize {
		return false, fmt.Errorf("%w: ki_structsize %d in %d bytes, want the 64-bit %d", errLayout, size, len(raw), freebsdKinfoProcSize)
	}
	return raw[freebsdKiStatOffset] == sstop, nil
}
