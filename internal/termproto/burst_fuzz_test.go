package termproto

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// burstRig is a Parser whose typed bytes go through a Burst, wired as
// capture.Input wires them: typed bytes to the Burst with the time of the
// read, a bracketed paste or a stray end marker ends the open burst
// first, Flush flushes both, Close closes both. It rebuilds the input
// from the events of both (rebuilder) and fails the test on an event out
// of order.
type burstRig struct {
	t   *testing.T
	p   *Parser
	b   *Burst
	rb  *rebuilder
	now time.Time
	// lastRead is the time of the last read.
	lastRead time.Time
	lastLen  int    // its bytes
	inBur    bool   // a burst is open, as its events say
	typed    []byte // what the Burst emitted as typed
	pasted   []byte // the open burst's data
}

func newBurstRig(t *testing.T) *burstRig {
	g := &burstRig{t: t, rb: &rebuilder{t: t}}
	g.p = NewParser(parserSide{g})
	g.rb.p = g.p
	g.b = NewBurst(burstSide{g}, testMinBytes, testMinLines)
	return g
}

// parserSide receives the Parser's events.
type parserSide struct{ g *burstRig }

func (s parserSide) Typed(p []byte)     { s.g.b.Write(p, s.g.now) }
func (s parserSide) PasteStart()        { s.g.b.End(); s.g.rb.PasteStart() }
func (s parserSide) PasteData(p []byte) { s.g.rb.PasteData(p) }
func (s parserSide) PasteEnd()          { s.g.rb.PasteEnd() }
func (s parserSide) StrayEnd()          { s.g.b.End(); s.g.rb.StrayEnd() }

// burstSide receives the Burst's events.
type burstSide struct{ g *burstRig }

func (s burstSide) Typed(p []byte) {
	if s.g.inBur {
		s.g.t.Fatalf("Typed(%q) in a burst", p)
	}
	s.g.typed = append(s.g.typed, p...)
	s.g.rb.Typed(p)
}

func (s burstSide) PasteStart() {
	if s.g.inBur || s.g.rb.inPaste {
		s.g.t.Fatalf("burst start in a burst (%v) or a paste (%v)", s.g.inBur, s.g.rb.inPaste)
	}
	s.g.inBur = true
}

func (s burstSide) PasteData(p []byte) {
	if !s.g.inBur || len(p) == 0 {
		s.g.t.Fatalf("burst data %q outside a burst", p)
	}
	s.g.rb.out = append(s.g.rb.out, p...)
	s.g.pasted = append(s.g.pasted, p...)
}

func (s burstSide) PasteEnd() {
	if !s.g.inBur {
		s.g.t.Fatalf("burst end outside a burst")
	}
	norm := bytes.ReplaceAll(s.g.pasted, []byte("\r\n"), []byte("\n"))
	if breaks := bytes.Count(norm, []byte("\n")) + bytes.Count(norm, []byte("\r")); len(s.g.pasted) < testMinBytes && breaks < testMinLines {
		s.g.t.Fatalf("a paste of %q: not large", s.g.pasted)
	}
	s.g.inBur, s.g.pasted = false, s.g.pasted[:0]
}

func (s burstSide) StrayEnd() { s.g.t.Fatalf("StrayEnd from the burst detector") }

// write passes one read at now; it returns the next deadline.
func (g *burstRig) write(p []byte, now time.Time) time.Time {
	g.now = now
	g.rb.inWrite = true
	d := g.p.Write(p, now)
	g.rb.inWrite = false
	return earliest(d, g.b.Deadline())
}

// flush lets time pass to now. What the Parser releases reaches the Burst
// with the time it was read, as capture.Input passes it.
func (g *burstRig) flush(now time.Time) time.Time {
	g.now = now
	if at := g.p.HeldSince(); !at.IsZero() {
		g.now = at
	}
	d := g.p.Flush(now)
	g.now = now
	return earliest(d, g.b.Flush(now))
}

// close ends the input, at the time of the last read or flush.
func (g *burstRig) close() {
	g.p.Close()
	g.b.End()
}

// earliest is the earlier of two deadlines, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// burstSteps are the times that pass between reads in FuzzBurstConservation.
var burstSteps = [8]time.Duration{0, 20 * time.Microsecond, KeyGap, 5 * time.Millisecond, EscHold, 20 * time.Millisecond, BurstGap, PasteSilence}

// burstChunks are the lengths of the reads in FuzzBurstConservation: a
// key's, typing's, and a terminal's reads of a paste, around LineBytes.
var burstChunks = [16]int{1, 1, 2, 3, 4, 5, 6, 8, 12, 16, 32, 64, LineBytes, LineBytes + 1, 1024, 4095}

// FuzzBurstConservation requires that the Parser and the Burst detector
// together emit exactly the input without the recognised markers, in
// order (no byte lost, reordered or duplicated), whatever the chunking and
// timing; that the events nest; that a paste the detector opens is large:
// it holds the threshold's bytes or line breaks; and that typing is never
// held: a read of typing that the Parser passes whole, while nothing is
// held, or of one key KeyGap after the read before, reaches the sink as
// typed before Write returns. Each byte of ops gives a chunk length (bits
// 0-3, burstChunks), the time that passes before it (bits 4-6,
// burstSteps), and whether pbwrap stalled meanwhile (bit 7), so that a
// deadline passed without Flush (the input was waiting).
func FuzzBurstConservation(f *testing.F) {
	for _, s := range burstSeeds() {
		f.Add([]byte(s), []byte{0x0f})
		f.Add([]byte(s), []byte{0x10, 0x22, 0x63, 0x51, 0x90})
	}
	f.Fuzz(func(t *testing.T, in, ops []byte) {
		if len(ops) == 0 {
			ops = []byte{0xf}
		}
		g := newBurstRig(t)
		now, deadline := epoch, time.Time{}
		for k, rest := 0, in; len(rest) > 0; k++ {
			o := ops[k%len(ops)]
			now = now.Add(burstSteps[o>>4&7])
			if o&0x80 == 0 {
				for !deadline.IsZero() && !now.Before(deadline) {
					deadline = g.flush(deadline)
				}
			}
			n := min(len(rest), burstChunks[o&15])
			rd := rest[:n]
			pending, quiet := g.b.Pending(), !g.p.Unfinished() && !g.p.late
			since := now.Sub(g.lastRead)
			typedBefore := len(g.typed)
			deadline = g.write(rd, now)
			g.lastRead, g.lastLen = now, len(rd)
			rest = rest[n:]
			plain := !bytes.Contains(rd, []byte{esc}) // The Parser passes it whole, at once.
			typing := !pending && !pasteLike(rd) || pending && since >= KeyGap && oneKey(rd) && g.lastLen < FullRead
			if quiet && plain && typing && since > 0 && !bytes.HasSuffix(g.typed[typedBefore:], rd) {
				t.Fatalf("read %d, %q, %v after the one before (held or open before it: %v): not typed at once", k, rd, since, pending)
			}
			if g.b.Open() != g.inBur {
				t.Fatalf("Open() = %v, events say %v", g.b.Open(), g.inBur)
			}
		}
		g.close()
		if g.inBur || g.rb.inPaste {
			t.Fatalf("after Close: in a burst %v, in a paste %v", g.inBur, g.rb.inPaste)
		}
		if !bytes.Equal(g.rb.out, in) {
			t.Errorf("input %q with ops %v: rebuilt\n %q", in, ops, g.rb.out)
		}
	})
}

// burstSeeds are the inputs of the Burst table, each case's reads
// joined, and the Parser's seeds with text around them.
func burstSeeds() []string {
	var seeds []string
	for _, tt := range burstTests {
		var b strings.Builder
		for _, o := range tt.ops {
			b.WriteString(o.in)
		}
		seeds = append(seeds, b.String())
	}
	for _, s := range parserSeeds() {
		seeds = append(seeds, "abc"+s+"one\rtwo\x1b[A")
	}
	return seeds
}
