package ptyproxy

import (
	"errors"
	"slices"
	"testing"
)

// What pbwrap sends, the session process reads back, whatever the
// strings hold but a NUL.
func TestCommandRoundTrip(t *testing.T) {
	for _, c := range []struct {
		path      string
		argv, env []string
	}{
		{"/bin/true", []string{"true"}, nil},
		{"/usr/bin/env", []string{"env", "", "a b", "\\x1b]0;\\x07", "é"}, []string{"A=1", "EMPTY=", "=odd", "B=x=y"}},
	} {
		b, err := encodeCommand(c.path, c.argv, c.env)
		if err != nil {
			t.Fatal(err)
		}
		path, argv, env, err := decodeCommand(b)
		if err != nil || path != c.path || !slices.Equal(argv, c.argv) || !slices.Equal(env, c.env) {
			t.Errorf("decode(encode(%q, %q, %q)) = %q, %q, %q, %v", c.path, c.argv, c.env, path, argv, env, err)
		}
	}
}

// A string with a NUL, no path or no argv[0] is refused, not cut short.
func TestEncodeCommandRefuses(t *testing.T) {
	for _, c := range []struct {
		path      string
		argv, env []string
	}{
		{"/bin/a\x00b", []string{"a"}, nil},
		{"/bin/a", []string{"a\x00"}, nil},
		{"/bin/a", []string{"a"}, []string{"A=\x00"}},
		{"", []string{"a"}, nil},
		{"/bin/a", nil, nil},
	} {
		if _, err := encodeCommand(c.path, c.argv, c.env); err == nil {
			t.Errorf("encodeCommand(%q, %q, %q) took it", c.path, c.argv, c.env)
		}
	}
}

// Nothing at all is no command; anything else pbwrap did not write is an
// error.
func TestDecodeCommandRefuses(t *testing.T) {
	if _, _, _, err := decodeCommand(nil); !errors.Is(err, errNoCommand) {
		t.Errorf("decode of nothing: %v, want errNoCommand", err)
	}
	for _, b := range []string{
		"x",
		commandMagic,
		commandMagic + "\x00/bin/a\x00",
		commandMagic + "\x00/bin/a\x001\x00",
		commandMagic + "\x00/bin/a\x002\x00a\x00",
		commandMagic + "\x00/bin/a\x000\x00a\x00",
		commandMagic + "\x00/bin/a\x00-1\x00a\x00",
		commandMagic + "\x00\x001\x00a\x00",
		"pbwrap-command-0\x00/bin/a\x001\x00a\x00",
	} {
		if _, _, _, err := decodeCommand([]byte(b)); err == nil || errors.Is(err, errNoCommand) {
			t.Errorf("decode %q: %v, want an error", b, err)
		}
	}
}

// Whatever it is given, decodeCommand returns an error or a command that
// encodes back to the same bytes.
func FuzzDecodeCommand(f *testing.F) {
	b, _ := encodeCommand("/bin/sh", []string{"sh", "-c", "echo hi"}, []string{"HOME=/root", "TERM=xterm"})
	f.Add(b)
	f.Add([]byte(commandMagic + "\x00/a\x001\x00a\x00"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		path, argv, env, err := decodeCommand(b)
		if err != nil {
			return
		}
		again, err := encodeCommand(path, argv, env)
		if err != nil {
			t.Fatalf("decoded %q, %q, %q but cannot encode it: %v", path, argv, env, err)
		}
		if string(again) != string(b) {
			t.Fatalf("decode then encode: %q, want %q", again, b)
		}
	})
}
