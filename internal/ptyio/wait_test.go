package ptyio

import "testing"

// Raw wait statuses as the kernels write them.
func exitStatus(code int) uint32 { return uint32(code) << 8 }
func stopStatus(sig int) uint32  { return uint32(sig)<<8 | 0x7f }
func killStatus(sig int) uint32  { return uint32(sig) }
func coreStatus(sig int) uint32  { return uint32(sig) | 0x80 }
func exited(code int) WaitState  { return WaitState{Kind: Exited, N: code} }
func stopped(sig int) WaitState  { return WaitState{Kind: Stopped, N: sig} }
func killed(sig int) WaitState   { return WaitState{Kind: Killed, N: sig} }
func cored(sig int) WaitState    { return WaitState{Kind: Killed, N: sig, Core: true} }

// signals are the numbers that differ between the systems.
type signals struct {
	stop, tstp, ttin, ttou int
}

// Every system's encoding decodes the same on every system: the stops
// by SIGSTOP on Darwin and FreeBSD, which x/sys's WaitStatus.Stopped
// misses there, and on Linux 0x137f, a stop by SIGSTOP that is Darwin's
// continued.
func TestDecodeWait(t *testing.T) {
	t.Parallel()
	for _, sys := range []struct {
		name      string
		continued uint32
		sig       signals
	}{
		{"linux", continuedLinux, signals{stop: 19, tstp: 20, ttin: 21, ttou: 22}},
		{"darwin", continuedDarwin, signals{stop: 17, tstp: 18, ttin: 21, ttou: 22}},
		{"freebsd", continuedFreeBSD, signals{stop: 17, tstp: 18, ttin: 21, ttou: 22}},
	} {
		for _, tc := range []struct {
			name string
			raw  uint32
			want WaitState
		}{
			{"stop by SIGSTOP", stopStatus(sys.sig.stop), stopped(sys.sig.stop)},
			{"stop by SIGTSTP", stopStatus(sys.sig.tstp), stopped(sys.sig.tstp)},
			{"stop by SIGTTIN", stopStatus(sys.sig.ttin), stopped(sys.sig.ttin)},
			{"stop by SIGTTOU", stopStatus(sys.sig.ttou), stopped(sys.sig.ttou)},
			{"exit 0", exitStatus(0), exited(0)},
			{"exit 3", exitStatus(3), exited(3)},
			{"exit 255", exitStatus(255), exited(255)},
			{"SIGKILL", killStatus(9), killed(9)},
			{"SIGTERM", killStatus(15), killed(15)},
			{"SIGQUIT, core dumped", coreStatus(3), cored(3)},
			{"SIGSEGV, core dumped", coreStatus(11), cored(11)},
			{"continued", sys.continued, WaitState{Kind: Continued}},
		} {
			if got := decodeWait(tc.raw, sys.continued); got != tc.want {
				t.Errorf("%s: %s (%#x): got %+v, want %+v", sys.name, tc.name, tc.raw, got, tc.want)
			}
		}
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		st   WaitState
		want int
	}{
		{exited(0), 0},
		{exited(3), 3},
		{exited(255), 255},
		{killed(9), 137},
		{cored(3), 131},
		{stopped(20), -1},
		{WaitState{Kind: Continued}, -1},
	} {
		if got := tc.st.ExitCode(); got != tc.want {
			t.Errorf("%+v: exit code %d, want %d", tc.st, got, tc.want)
		}
	}
}

// ru_maxrss is in bytes on macOS, in KiB on Linux and FreeBSD.
func TestMaxRSSKiBIsInBytesOnlyOnDarwin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		goos   string
		maxrss int64
		want   int
	}{
		{"darwin", 25 << 20, 25 << 10},
		{"linux", 25 << 10, 25 << 10},
		{"freebsd", 25 << 10, 25 << 10},
	} {
		if got := MaxRSSKiB(tc.goos, tc.maxrss); got != tc.want {
			t.Errorf("%s: MaxRSSKiB(%d) = %d, want %d", tc.goos, tc.maxrss, got, tc.want)
		}
	}
}
