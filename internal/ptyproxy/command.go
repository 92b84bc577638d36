package ptyproxy

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// The command, as pbwrap hands it to the session process (see Start):
// commandMagic, then the path, the number of arguments, the arguments and
// the environment, each ended by a NUL. None of them can hold a NUL: exec
// takes C strings.
const commandMagic = "pbwrap-command-1"

// maxCommand bounds the command's size as the session process reads it:
// far above what exec takes (ARG_MAX: 2 MiB on Linux for the arguments
// and environment together, 1 MiB on macOS).
const maxCommand = 16 << 20

// errNoCommand is decodeCommand's error for nothing at all: pbwrap did
// not run a command after all.
var errNoCommand = errors.New("no command")

// encodeCommand returns the command path with argv and env as the session
// process reads it, or an error if a string holds a NUL.
func encodeCommand(path string, argv, env []string) ([]byte, error) {
	if path == "" || len(argv) == 0 {
		return nil, errors.New("encode command: no path or no argv[0]")
	}
	var b bytes.Buffer
	add := func(s string) error {
		if bytes.IndexByte([]byte(s), 0) >= 0 {
			return fmt.Errorf("encode command: %q holds a NUL byte", s)
		}
		b.WriteString(s)
		b.WriteByte(0)
		return nil
	}
	if err := add(commandMagic); err != nil {
		return nil, err
	}
	if err := add(path); err != nil {
		return nil, err
	}
	if err := add(strconv.Itoa(len(argv))); err != nil {
		return nil, err
	}
	for _, s := range append(argv[:len(argv):len(argv)], env...) {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// decodeCommand reads what encodeCommand wrote: errNoCommand for nothing,
// an error saying what is wrong for anything else it did not write.
func decodeCommand(b []byte) (path string, argv, env []string, err error) {
	if len(b) == 0 {
		return "", nil, nil, errNoCommand
	}
	if b[len(b)-1] != 0 {
		return "", nil, nil, errors.New("decode command: not NUL-terminated")
	}
	f := bytes.Split(b[:len(b)-1], []byte{0})
	if len(f) < 3 || string(f[0]) != commandMagic {
		return "", nil, nil, errors.New("decode command: not a command")
	}
	n, err := strconv.Atoi(string(f[2]))
	if err != nil || n < 1 || n > len(f)-3 {
		return "", nil, nil, fmt.Errorf("decode command: bad argument count %q", f[2])
	}
	if len(f[1]) == 0 {
		return "", nil, nil, errors.New("decode command: empty path")
	}
	strs := func(f [][]byte) []string {
		out := make([]string, len(f))
		for i, s := range f {
			out[i] = string(s)
		}
		return out
	}
	return string(f[1]), strs(f[3 : 3+n]), strs(f[3+n:]), nil
}
