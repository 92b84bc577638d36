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
func (e *events) Packet(meta, payload []byte) bool {
	if _, err := Parse(meta, payload); err != nil {
		return false
	}
	e.list = append(e.list, fmt.Sprintf("packet %s;%s", meta, payload))
	return true
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
	{"a reply cut by the end", "\x1b]5522;type=read\x18x", "lost | pass \x18"},
	{"an ESC cuts a reply and starts a key", "\x1b]5522;type=re\x1b[Ax", "lost | pass \x1b[Ax"},
	{"an ESC cuts a reply and starts one", "\x1b]5522;type=read:st\x1b]5522;type=a\x1b\\", "lost | packet type=a;"},
	{"an ESC cuts a packet", "\x1b]5522;ty\x1b]5522;type=a\x1b\\", "pass \x1b]5522;ty | packet type=a;"},
	{"ESC ESC", "\x1b]5522;ty\x1b\x1bx", "pass \x1b]5522;ty\x1b\x1bx"},
	{"a prefix refuted by ESC", "\x1b]55\x1b]5522;type=b\a", "pass \x1b]55 | packet type=b;"},
	{"a payload with ';'", "\x1b]5522;type=b;c;d\a", "lost"},
	// Packets that are no reply pass whole: the user typed them, or a
	// program sent them.
	{"no reply", "\x1b]5522;a=b;c;d\a\x1b]5522;hello world\x1b\\x", "pass \x1b]5522;a=b;c;d\a\x1b]5522;hello world\x1b\\x"},
	{"no reply, cut", "\x1b]5522;typ\x1b[Ax", "pass \x1b]5522;typ\x1b[Ax"},
	{"no reply, controls in it", "\x1b]5522;t\ry\x18pe\x7fx\a", "pass \x1b]5522;t\ry\x18pe\x7fx\a"},
	{"no reply, empty", "\x1b]5522;\x1b\\\x1b]5522;\a", "pass \x1b]5522;\x1b\\\x1b]5522;\a"},
	// Inside a reply, as kitty reads a string, a C0 control, CAN and SUB
	// too, or DEL is no part of it: a key typed meanwhile, which passes
	// after it.
	{"keys inside a reply", "\x1b]5522;ty\x1ape=read:sta\x18tus=DATA:mime=Lg==:pw=QUJD;aW1h\x1a\rZ2U\x7fvcG5nCg==\x1b\\k",
		"packet type=read:status=DATA:mime=Lg==:pw=QUJD;aW1hZ2UvcG5nCg== | pass \x1a\x18\x1a\r\x7fk"},
	{"keys inside the prefix", "\x1b]55\x1a22\x7f;type=read:status=OK:pw=QUJD\x1b\\k", "packet type=read:status=OK:pw=QUJD; | pass \x1a\x7fk"},
	{"keys inside a prefix refuted", "\x1b]5\x03x\x1b]\x1a\x1b[A", "pass \x1b]5\x03x\x1b]\x1a\x1b[A"},
	{"keys inside the prefix of no reply", "\x1b]55\r22;hi\a", "pass \x1b]55\r22;hi\a"},
	{"keys inside a cut reply", "\x1b]5522;type=read:status=DATA;aW1\x03h\x1b[A", "lost | pass \x03\x1b[A"},
	// A reply with bytes no reply has is cut short: read on, and
	// dropped, to its end.
	{"a space in a reply", "\x1b]5522;type=read:status=DATA:id=x;AA AA\x1b\\k", "lost | pass k"},
	{"a record without '='", "\x1b]5522;type=read:bogus;AA\x1b\\k", "lost | pass k"},
	{"a non-ASCII byte", "\x1b]5522;type=read:st\xc3\xa9tus=OK\ak", "lost | pass k"},
	// What the user pastes passes whole, whatever it holds.
	{"a reply inside a paste", "\x1b[200~a" + kittyEventOK + "b\x1b[201~" + kittyEPERM,
		"pass \x1b[200~a" + kittyEventOK + "b\x1b[201~ | packet type=read:status=EPERM:id=probe2;"},
	{"a start marker inside a paste", "\x1b[200~\x1b[200~" + kittyEventOK + "\x1b[201~" + kittyEPERM,
		"pass \x1b[200~\x1b[200~" + kittyEventOK + "\x1b[201~ | packet type=read:status=EPERM:id=probe2;"},
	{"an end marker alone", "\x1b[201~" + kittyEPERM, "pass \x1b[201~ | packet type=read:status=EPERM:id=probe2;"},
	{"a near marker", "\x1b[20" + kittyEPERM + "\x1b[2000~" + kittyEPERM,
		"pass \x1b[20 | packet type=read:status=EPERM:id=probe2; | pass \x1b[2000~ | packet type=read:status=EPERM:id=probe2;"},
	{"ESC ESC [ 200 ~", "\x1b\x1b[200~" + kittyEPERM + "\x1b\x1b[201~x", "pass \x1b\x1b[200~" + kittyEPERM + "\x1b\x1b[201~x"},
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
	later := epoch.Add(CutGap / 2)
	if d := s.Write([]byte(":status=OK"), later); !d.Equal(later.Add(PacketSilence)) {
		t.Fatalf("packet: deadline %v", d.Sub(epoch))
	}
	s.Flush(epoch.Add(PacketSilence))
	if len(e.list) != 0 || s.Idle() {
		t.Fatalf("a packet that went on was lost: %q", e.String())
	}
	s.Flush(later.Add(PacketSilence))
	if e.String() != "lost" || !s.Idle() {
		t.Fatalf("silent packet: %q", e.String())
	}
	// Its rest may still come, for PacketSilence more: nothing is held,
	// and the wait ends then.
	if d := s.Deadline(); !d.Equal(later.Add(2 * PacketSilence)) {
		t.Fatalf("after the loss: deadline %v", d.Sub(epoch))
	}
	s.Write([]byte("abc"), later.Add(PacketSilence+time.Second))
	s.Flush(later.Add(2*PacketSilence + time.Second))
	if e.String() != "lost | pass abc" || !s.Idle() || !s.Deadline().IsZero() {
		t.Fatalf("letters after the loss, and its silence: %q", e.String())
	}
}

// The rest of a reply lost at its silence (a link that stalled longer
// than PacketSilence) is dropped when it comes, up to its terminator: no
// byte of the reply, its password least of all, reaches the program as
// keys. What is not such a rest passes.
func TestScannerLostReplyRest(t *testing.T) {
	for _, tt := range []struct{ first, rest, want string }{
		{kittyEventOK[:12], kittyEventOK[12:] + "x", "lost | pass x"},
		{kittyEventOK[:30], kittyEventOK[30:] + "x", "lost | pass x"},
		{kittyEventData[:50], kittyEventData[50:] + kittyEventDone, "lost | packet type=read:status=DONE:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==;"},
		{kittyEventOK[:30], "hello world\r", "lost | pass hello world\r"},
		{kittyEventOK[:30], "abc\x1b[A", "lost | pass abc\x1b[A"},
	} {
		var e events
		s := NewScanner(&e)
		s.Write([]byte(tt.first), epoch)
		s.Flush(epoch.Add(PacketSilence))
		s.Write([]byte(tt.rest), epoch.Add(PacketSilence+time.Second))
		s.Close()
		if e.String() != tt.want {
			t.Errorf("%q then %q:\n got %q\nwant %q", tt.first, tt.rest, e.String(), tt.want)
		}
	}
}

// A reply cut short does not take the keys typed after it: what came
// after its first pause of CutGap is read again as input, once the reply
// is known not to be whole (a byte no reply has, its silence, an ESC that
// starts a key). A reply that paused and ends whole is a reply.
func TestScannerCutReply(t *testing.T) {
	const cut = "\x1b]5522;type=read:status=DATA:id=pbwrap-1:mime=aW1hZ2UvcG5n;iVBORw0KGgoAAAAN"
	for _, tt := range []struct {
		name  string
		after string // typed CutGap after the cut reply
		flush bool   // then PacketSilence passes
		want  string
	}{
		{"a space", "hello world\r", false, "lost | pass hello world\r"},
		{"base64 only", "abc", true, "lost | pass abc"},
		{"an arrow key", "\x1b[Ax", false, "lost | pass \x1b[Ax"},
		{"Enter", "\r", true, "lost | pass \r"},
		{"a paste", "\x1b[200~" + kittyEPERM + "\x1b[201~", false, "lost | pass \x1b[200~" + kittyEPERM + "\x1b[201~"},
		{"a reply", kittyEPERM, false, "lost | packet type=read:status=EPERM:id=probe2;"},
		{"the rest", "AAAA\x1b\\x", false, "packet type=read:status=DATA:id=pbwrap-1:mime=aW1hZ2UvcG5n;iVBORw0KGgoAAAANAAAA | pass x"},
	} {
		var e events
		s := NewScanner(&e)
		s.Write([]byte(cut), epoch)
		at := epoch.Add(CutGap)
		s.Write([]byte(tt.after), at)
		if tt.flush {
			s.Flush(at.Add(PacketSilence))
		}
		if e.String() != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, e.String(), tt.want)
		}
	}

	// A reply that is already broken ends at the next pause.
	var e events
	s := NewScanner(&e)
	s.Write([]byte("\x1b]5522;type=read:status=DATA;AA AA"), epoch)
	s.Write([]byte("BBk"), epoch.Add(CutGap))
	if e.String() != "lost" {
		t.Errorf("broken, then a pause: %q, want the letters held (they may be its rest)", e.String())
	}
	s.Write([]byte(" "), epoch.Add(2*CutGap))
	if want := "lost | pass BBk "; e.String() != want {
		t.Errorf("broken, then a pause: %q, want %q", e.String(), want)
	}
}

// A packet past its limits is dropped whole, and what follows is read.
func TestScannerLimits(t *testing.T) {
	for _, in := range []string{
		"\x1b]5522;type=" + strings.Repeat("m", MaxMeta) + "\x1b\\x",
		"\x1b]5522;type=b;" + strings.Repeat("A", MaxPayload+1) + "\x1b\\x",
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
	s.Write([]byte("]5522;type=b\a"), epoch.Add(time.Second))
	if e.String() != "packet type=b;" {
		t.Fatalf("got %q", e.String())
	}
	s.Expect(false)
	s.Write([]byte("\x1b"), epoch)
	if s.Flush(epoch.Add(termproto.EscHold)); e.String() != "packet type=b; | pass \x1b" {
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
	for _, in := range []string{"\x1b[A", "ab\x1b[Acd", "\x1bx", "\x1b]52;c;?\a", "a\x1b\x1b[B", "\x1b\x7f", "\x1b\x03"} {
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

func (discard) Pass([]byte)             {}
func (discard) Packet(_, _ []byte) bool { return true }
func (discard) Lost()                   {}

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

// A paste event's packet cut short after a pause gives no byte of its
// password back as input, whichever side of the pause it is on.
func TestScannerCutEventKeepsPassword(t *testing.T) {
	for _, cut := range []int{len("\x1b]5522;type=read:status=OK:"), len("\x1b]5522;type=read:status=OK:pw=Sk5E")} {
		var e events
		s := NewScanner(&e)
		s.Write([]byte(kittyEventOK[:cut]), epoch)
		s.Write([]byte(kittyEventOK[cut:len(kittyEventOK)-2]+" \x03"), epoch.Add(CutGap))
		s.Close()
		if got := e.String(); got != "lost | pass \x03" {
			t.Errorf("cut at %d: %q", cut, got)
		}
	}
}

// A prefix that passed on at its hold (a lone Esc is a key) is still the
// start of a reply when the rest comes after all, late (a link that
// stalled): the reply is read, but for the bytes that passed, and no byte
// of it, its password least of all, passes as keys.
func TestScannerLateReply(t *testing.T) {
	for _, held := range []int{1, 2} {
		var e events
		s := NewScanner(&e)
		s.Write([]byte(kittyEventOK[:held]), epoch)
		s.Flush(epoch.Add(termproto.EscHold))
		s.Write([]byte(kittyEventOK[held:]+"x"), epoch.Add(time.Second))
		if want := "pass " + kittyEventOK[:held] + " | packet type=read:status=OK:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==; | pass x"; e.String() != want {
			t.Errorf("%d held:\n got %q\nwant %q", held, e.String(), want)
		}
	}
	var e events
	s := NewScanner(&e)
	s.Write([]byte("\x1b"), epoch)
	s.Flush(epoch.Add(termproto.EscHold))
	s.Write([]byte("x]5522;type=a\a"), epoch.Add(time.Second))
	if want := "pass \x1bx]5522;type=a\a"; e.String() != want {
		t.Errorf("a key after the Esc: %q, want %q", e.String(), want)
	}
	e.list = nil
	s.Write([]byte("\x1b]"), epoch)
	s.Flush(epoch.Add(termproto.EscHold))
	s.Write([]byte("5522;hello"), epoch.Add(time.Second))
	s.Close()
	if want := "pass \x1b]5522;hello"; e.String() != want {
		t.Errorf("no reply after the hold: %q, want %q", e.String(), want)
	}
}
