package kittyclip

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

var epoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// events records what a Scanner reports, runs of passed bytes merged.
type events struct{ list []string }

func (e *events) Pass(p []byte) {
	if n := len(e.list); n > 0 && strings.HasPrefix(e.list[n-1], "pass ") {
		e.list[n-1] += string(p)
		return
	}
	e.list = append(e.list, "pass "+string(p))
}
func (e *events) Packet(meta, payload []byte) {
	e.list = append(e.list, fmt.Sprintf("packet %s;%s", meta, payload))
}
func (e *events) Lost() { e.list = append(e.list, "lost") }

func (e *events) String() string { return strings.Join(e.list, " | ") }

// What kitty 0.48.2 sent, as measured (doc: kitty-clipboard.md): a paste
// event, a read's replies, an error; Ghostty ends with BEL when asked so.
const (
	kittyEventOK   = "\x1b]5522;type=read:status=OK:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==\x1b\\"
	kittyEventData = "\x1b]5522;type=read:status=DATA:mime=Lg==:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==;aW1hZ2UvcG5nCg==\x1b\\"
	kittyEventDone = "\x1b]5522;type=read:status=DONE:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==\x1b\\"
	kittyEPERM     = "\x1b]5522;type=read:status=EPERM:id=probe2\x1b\\"
	ghosttyDone    = "\x1b]5522;type=read:status=DONE:id=x\a"
)

var scanTests = []struct {
	name, in, want string
}{
	{"a paste event", kittyEventOK + kittyEventData + kittyEventDone,
		"packet type=read:status=OK:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==; | " +
			"packet type=read:status=DATA:mime=Lg==:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==;aW1hZ2UvcG5nCg== | " +
			"packet type=read:status=DONE:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==;"},
	{"keys around a packet", "ab" + kittyEPERM + "c", "pass ab | packet type=read:status=EPERM:id=probe2; | pass c"},
	{"BEL ends a packet", ghosttyDone + "x", "packet type=read:status=DONE:id=x; | pass x"},
	{"other sequences pass", "\x1b[A\x1b]52;c;eA==\x1b\\\x1b]55;x\a\x1b", "pass \x1b[A\x1b]52;c;eA==\x1b\\\x1b]55;x\a\x1b"},
	{"a paste passes", "\x1b[200~hello\x1b[201~", "pass \x1b[200~hello\x1b[201~"},
	{"an empty DATA", "\x1b]5522;type=read:status=DATA:mime=Lg==\x1b\\", "packet type=read:status=DATA:mime=Lg==;"},
	{"CAN cuts a packet", "\x1b]5522;type=read\x18x", "lost | pass x"},
	{"an ESC cuts a packet and starts a key", "\x1b]5522;type=re\x1b[Ax", "lost | pass \x1b[Ax"},
	{"an ESC cuts a packet and starts one", "\x1b]5522;ty\x1b]5522;a=b\x1b\\", "lost | packet a=b;"},
	{"ESC ESC", "\x1b]5522;ty\x1b\x1bx", "lost | pass \x1b\x1bx"},
	{"a prefix refuted by ESC", "\x1b]55\x1b]5522;a=b\a", "pass \x1b]55 | packet a=b;"},
	{"a payload with ';'", "\x1b]5522;a=b;c;d\a", "packet a=b;c;d"},
}

// Every case at every read size gives the same events.
func TestScanner(t *testing.T) {
	for _, tt := range scanTests {
		for n := 1; n <= len(tt.in); n++ {
			var e events
			s := NewScanner(&e)
			for rest := tt.in; len(rest) > 0; rest = rest[min(n, len(rest)):] {
				s.Write([]byte(rest[:min(n, len(rest))]), epoch)
			}
			s.Close()
			if e.String() != tt.want {
				t.Errorf("%s, reads of %d:\n got %q\nwant %q", tt.name, n, e.String(), tt.want)
			}
		}
	}
}

// A held prefix goes on after EscHold, not before; a packet is lost after
// PacketSilence, counted from its last byte.
func TestScannerDeadlines(t *testing.T) {
	var e events
	s := NewScanner(&e)
	if d := s.Write([]byte("a\x1b]"), epoch); !d.Equal(epoch.Add(termproto.EscHold)) {
		t.Fatalf("prefix: deadline %v", d.Sub(epoch))
	}
	s.Flush(epoch.Add(termproto.EscHold - 1))
	if e.String() != "pass a" {
		t.Fatalf("early flush: %q", e.String())
	}
	if d := s.Flush(epoch.Add(termproto.EscHold)); !d.IsZero() || e.String() != "pass a\x1b]" {
		t.Fatalf("flush: %q, deadline %v", e.String(), d)
	}
	// With a digit after ESC ], no key: held as a packet is.
	e.list = nil
	if d := s.Write([]byte("\x1b]5"), epoch); !d.Equal(epoch.Add(PacketSilence)) {
		t.Fatalf("ESC ] 5: deadline %v", d.Sub(epoch))
	}
	if s.Flush(epoch.Add(PacketSilence)); e.String() != "pass \x1b]5" {
		t.Fatalf("ESC ] 5 at its deadline: %q", e.String())
	}
	e.list = nil
	s.Write([]byte("\x1b]5522;type=read"), epoch)
	later := epoch.Add(time.Second)
	if d := s.Write([]byte(":status=OK"), later); !d.Equal(later.Add(PacketSilence)) {
		t.Fatalf("packet: deadline %v", d.Sub(epoch))
	}
	s.Flush(epoch.Add(PacketSilence))
	if len(e.list) != 0 || !s.InPacket() {
		t.Fatalf("a packet that went on was lost: %q", e.String())
	}
	s.Flush(later.Add(PacketSilence))
	if e.String() != "lost" || !s.Idle() {
		t.Fatalf("silent packet: %q", e.String())
	}
}

// A packet past its limits is dropped whole, and what follows is read.
func TestScannerLimits(t *testing.T) {
	for _, in := range []string{
		"\x1b]5522;" + strings.Repeat("m", MaxMeta+1) + "\x1b\\x",
		"\x1b]5522;a=b;" + strings.Repeat("A", MaxPayload+1) + "\x1b\\x",
	} {
		var e events
		s := NewScanner(&e)
		s.Write([]byte(in), epoch)
		if e.String() != "lost | pass x" {
			t.Errorf("%d bytes: %q", len(in), e.String())
		}
	}
}

// While a reply is expected, a held prefix waits as a packet does.
func TestScannerExpect(t *testing.T) {
	var e events
	s := NewScanner(&e)
	s.Expect(true)
	if d := s.Write([]byte("\x1b"), epoch); !d.Equal(epoch.Add(PacketSilence)) {
		t.Fatalf("deadline %v", d.Sub(epoch))
	}
	s.Flush(epoch.Add(termproto.EscHold))
	s.Write([]byte("]5522;a=b\a"), epoch.Add(time.Second))
	if e.String() != "packet a=b;" {
		t.Fatalf("got %q", e.String())
	}
	s.Expect(false)
	s.Write([]byte("\x1b"), epoch)
	if s.Flush(epoch.Add(termproto.EscHold)); e.String() != "packet a=b; | pass \x1b" {
		t.Fatalf("not expecting: %q", e.String())
	}
}

// countPass counts the Pass calls a Scanner makes.
type countPass struct {
	events
	calls int
}

func (c *countPass) Pass(p []byte) { c.calls++; c.events.Pass(p) }

// A key that starts with ESC (an arrow, Alt-x) and a run of text around it
// read at once pass as one run, without allocating: a child that reads a
// lone ESC takes it for the Esc key, and each run is a write to the PTY.
func TestScannerKeysStayWhole(t *testing.T) {
	for _, in := range []string{"\x1b[A", "ab\x1b[Acd", "\x1bx", "\x1b]52;c;?\a", "a\x1b\x1b[B"} {
		c := &countPass{}
		s := NewScanner(c)
		s.Write([]byte(in), epoch)
		if c.calls != 1 || c.String() != "pass "+in {
			t.Errorf("%q: %d calls, %s; want it passed whole in one", in, c.calls, c.String())
		}
	}
	s := NewScanner(discard{})
	key := []byte("\x1b[A")
	if n := testing.AllocsPerRun(100, func() { s.Write(key, epoch) }); n != 0 {
		t.Errorf("an arrow key allocates %v times, want 0", n)
	}
}

// discard is a Sink that keeps nothing.
type discard struct{}

func (discard) Pass([]byte)        {}
func (discard) Packet(_, _ []byte) {}
func (discard) Lost()              {}

// HeldSince is when the held prefix was read, through later Writes that
// extend it, and zero once nothing is held.
func TestScannerHeldSince(t *testing.T) {
	var e events
	s := NewScanner(&e)
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	if !s.HeldSince().IsZero() {
		t.Fatal("a new Scanner holds something")
	}
	s.Write([]byte("a\x1b"), t0)
	s.Write([]byte("]"), t0.Add(time.Millisecond))
	if got := s.HeldSince(); !got.Equal(t0) {
		t.Errorf("HeldSince = %v, want the ESC's read time %v", got, t0)
	}
	s.Write([]byte("x"), t0.Add(2*time.Millisecond))
	if !s.HeldSince().IsZero() {
		t.Errorf("HeldSince = %v once the prefix is refuted, want zero", s.HeldSince())
	}
}
