package ptyproxy

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// terminalPath opens the terminal on standard input anew: a file
// description of pbwrap's own, which it can make non-blocking without
// changing the one it shares with the shell.
const terminalPath = "/proc/self/fd/0"

// isPTYMaster reports whether fd is the master side of a PTY (only a
// master has a PTY number to give): reopening it through terminalPath
// would open /dev/ptmx, a new PTY, not the same terminal, though the
// device numbers agree.
func isPTYMaster(fd int) bool {
	_, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	return err == nil
}

// rawRead reads fd, which must be non-blocking, without the runtime's
// system call bookkeeping: the call cannot block, so it holds up neither
// the garbage collector nor other goroutines, and skipping entersyscall
// spares the wake-up of the runtime's monitor thread that each system
// call made after a pause costs (doc/performance.md).
func rawRead(fd int, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	n, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}

// rawWrite is rawRead's counterpart for writing.
func rawWrite(fd int, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	n, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}
