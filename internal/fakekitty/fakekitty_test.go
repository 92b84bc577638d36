package fakekitty

import (
	"strings"
	"testing"
)

// The paste event as kitty 0.48.2 sent it when measured (kittyclip's
// scan_test.go holds the same capture): Event writes it byte for byte.
func TestEventIsKittys(t *testing.T) {
	const captured = "\x1b]5522;type=read:status=OK:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==\x1b\\" +
		"\x1b]5522;type=read:status=DATA:mime=Lg==:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==;aW1hZ2UvcG5nCg==\x1b\\" +
		"\x1b]5522;type=read:status=DONE:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==\x1b\\"
	if got := Event(PW, "image/png", ""); got != captured {
		t.Errorf("Event = %q, want kitty's %q", got, captured)
	}
}

// A reply carries the data in packets of 4096 bytes, between OK and DONE.
func TestReplyPackets(t *testing.T) {
	r := Reply("pbwrap-1", "image/png", make([]byte, 4096*2+1))
	if n := strings.Count(r, ":status=DATA:id=pbwrap-1:mime=aW1hZ2UvcG5n;"); n != 3 {
		t.Errorf("%d DATA packets for 8193 bytes, want 3", n)
	}
	if !strings.HasPrefix(r, "\x1b]5522;type=read:status=OK:id=pbwrap-1\x1b\\") || !strings.HasSuffix(r, "\x1b]5522;type=read:status=DONE:id=pbwrap-1\x1b\\") {
		t.Errorf("reply %q does not go from OK to DONE", r[:80])
	}
}

// ReadRequest takes pbwrap's read as kittyclip writes it (kittyclip's
// packet_test.go): id, password, types.
func TestReadRequest(t *testing.T) {
	m := ReadRequest.FindStringSubmatch("x\x1b]5522;type=read:id=probe3:name=UGFzdGUgZXZlbnQ=:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==;aW1hZ2UvcG5n\x1b\\y")
	if m == nil || m[1] != "probe3" || m[2] != PW || m[3] != "aW1hZ2UvcG5n" {
		t.Errorf("ReadRequest found %q", m)
	}
}

// A Screen reads strings as kitty does: only ST and BEL end one, so a
// mode or a request inside one the program left open does nothing.
func TestScreen(t *testing.T) {
	for _, tt := range []struct {
		in      string
		on      bool
		packets int
	}{
		{"\x1b[?5522h", true, 0},
		{"\x1b[?1049;5522h", true, 0},
		{"\x1b[?5522h\x1b[?5522l", false, 0},
		{"\x1b]0;title\x1b[?5522h", false, 0},
		{"\x1b]0;title\x18\x1b[?5522h\x07", false, 0},
		{"\x1b]0;title\x1b\\\x1b[?5522h", true, 0},
		{"\x1bPq#0\x07\x1b]5522;type=read;Lg==\x1b\\", false, 1},
		{"\x1b_Gabc\x1b]5522;type=read;Lg==\x1b\\", false, 0},
		{"\x1b]0;" + strings.Repeat("x", MaxString) + "\x1b[?5522h", true, 0},
		{"\x1b[?5522h\x1bc", false, 0},
		{"\x1b[?5522h\x1b[!p", false, 0},
		{"\x1b[?5522h\x1bc\x1b[?5522h", true, 0},
	} {
		var s Screen
		s.Write([]byte(tt.in))
		if s.PasteEvents != tt.on || len(s.Packets) != tt.packets {
			t.Errorf("%.40q: paste events %v, packets %q; want %v, %d", tt.in, s.PasteEvents, s.Packets, tt.on, tt.packets)
		}
	}
}
