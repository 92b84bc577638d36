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
