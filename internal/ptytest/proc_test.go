package ptytest

import (
	"encoding/binary"
	"errors"
	"testing"
)

// Each system's process state decodes the same on every system.
func TestLinuxStopped(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want bool
		err  bool
	}{
		{"4242 (sleep) T 1 4242 4242 0 -1", true, false},
		{"4242 (sleep) S 1 4242 4242 0 -1", false, false},
		{"4242 (sleep) t 1 4242 4242 0 -1", false, false}, // Stopped by a tracer, not a signal.
		{"4242 (a) T (b) S 1 4242", false, false},         // The name holds ") T ": the last ")" ends it.
		{"4242 (a) T (b) T 1 4242", true, false},
		{"4242 (sleep)", false, true},
		{"", false, true},
	} {
		got, err := linuxStopped([]byte(tc.stat))
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("linuxStopped(%q) = %v, %v; want %v, error %v", tc.stat, got, err, tc.want, tc.err)
		}
	}
}

// freebsdProc is a 64-bit FreeBSD kinfo_proc with ki_stat stat.
func freebsdProc(size uint32, n int, stat byte) []byte {
	raw := make([]byte, n)
	binary.NativeEndian.PutUint32(raw, size)
	if freebsdKiStatOffset < n {
		raw[freebsdKiStatOffset] = stat
	}
	return raw
}

func TestFreeBSDStopped(t *testing.T) {
	const (
		srun   = 2
		ssleep = 3
	)
	for _, tc := range []struct {
		name        string
		raw         []byte
		want        bool
		unsupported bool
		err         bool
	}{
		{"SSTOP", freebsdProc(1088, 1088, sstop), true, false, false},
		{"SRUN", freebsdProc(1088, 1088, srun), false, false, false},
		{"SSLEEP", freebsdProc(1088, 1088, ssleep), false, false, false},
		{"i386 layout", freebsdProc(768, 768, sstop), false, true, true},
		{"short answer", freebsdProc(1088, 400, sstop), false, true, true},
		{"empty answer", nil, false, false, true},
	} {
		got, err := freebsdStopped(tc.raw)
		if got != tc.want || (err != nil) != tc.err || errors.Is(err, errors.ErrUnsupported) != tc.unsupported {
			t.Errorf("%s: freebsdStopped = %v, %v; want %v, error %v (unsupported %v)", tc.name, got, err, tc.want, tc.err, tc.unsupported)
		}
	}
}
