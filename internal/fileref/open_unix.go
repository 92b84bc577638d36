//go:build darwin || freebsd || linux

package fileref

import "syscall"

// openFlags makes opening a named pipe return at once instead of waiting for
// a writer; openRegular then refuses it. A regular file reads the same.
const openFlags = syscall.O_NONBLOCK
