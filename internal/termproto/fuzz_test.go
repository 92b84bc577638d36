package termproto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// chunks splits in at points chosen by cuts: each byte of cuts, in turn and
// cycling, gives the length of the next chunk, from 1 to 16.
func chunks(in, cuts []byte) [][]byte {
	var out [][]byte
	for k := 0; len(in) > 0; k++ {
		n := len(in)
		if len(cuts) > 0 {
			n = min(n, int(cuts[k%len(cuts)]%16)+1)
		}
		out = append(out, in[:n])
		in = in[n:]
	}
	return out
}

// parserSeeds are the inputs of the parser table, each case's writes
// joined.
func parserSeeds() []string {
	var seeds []string
	for _, tt := range parserTests {
		var b strings.Builder
		for _, o := range tt.ops {
			b.WriteString(o.in)
		}
		seeds = append(seeds, b.String())
	}
	return seeds
}

// referenceEvents parses in byte by byte, the obvious way, then closes. With
// late, in follows a paste that ended at the silence: unless it starts with
// a marker, or is all a marker's prefix, it is that paste's rest.
func referenceEvents(in []byte, late bool) []event {
	var r recorder
	inPaste := false
	if late && isRest(in) {
		r.PasteStart()
		inPaste = true
	}
	for i := 0; i < len(in); {
		switch {
		case !inPaste && bytes.HasPrefix(in[i:], []byte("\x1b[200~")):
			r.PasteStart()
			inPaste = true
			i += 6
		case bytes.HasPrefix(in[i:], []byte("\x1b[201~")):
			if inPaste {
				r.PasteEnd()
			} else {
				r.StrayEnd()
			}
			inPaste = false
			i += 6
		case inPaste:
			r.PasteData(in[i : i+1])
			i++
		default:
			r.Typed(in[i : i+1])
			i++
		}
	}
	if inPaste {
		r.PasteEnd()
	}
	return r.events()
}

// isRest reports whether in, after a paste that ended at the silence, is
// that paste's rest: it neither starts with a marker nor is, all of it, a
// marker's prefix.
func isRest(in []byte) bool {
	if len(in) >= markerLen {
		return string(in[:markerLen]) != StartMarker && string(in[:markerLen]) != EndMarker
	}
	return !strings.HasPrefix(StartMarker, string(in)) && !strings.HasPrefix(EndMarker, string(in))
}

// newLateParser returns a Parser whose last paste ended at the silence,
// and forgets the events that took.
func newLateParser(r *recorder) *Parser {
	p := NewParser(r)
	p.Write([]byte(StartMarker+"x"), epoch)
	p.Flush(epoch.Add(PasteSilence))
	*r = recorder{}
	return p
}

// FuzzParserChunking requires that any split of the input across Writes
// gives the events of a one-shot Write, and that those are the reference
// parse's, for a new Parser and for one whose last paste ended at the
// silence.
func FuzzParserChunking(f *testing.F) {
	for _, s := range parserSeeds() {
		f.Add([]byte(s), []byte{0}, false)
		f.Add([]byte(s), []byte{1, 4, 2}, true)
	}
	f.Fuzz(func(t *testing.T, in, cuts []byte, late bool) {
		newParser := NewParser
		if late {
			newParser = func(s Sink) *Parser { return newLateParser(s.(*recorder)) }
		}
		var one recorder
		p := newParser(&one)
		oneDeadline := p.Write(in, epoch)
		oneInPaste := p.InPaste()
		oneOpen := one.String()
		p.Close()

		var many recorder
		q := newParser(&many)
		var manyDeadline time.Time
		for _, c := range chunks(in, cuts) {
			manyDeadline = q.Write(c, epoch)
		}
		if got := many.String(); got != oneOpen {
			t.Errorf("input %q in chunks %v: events\n got %s\nwant %s", in, cuts, got, oneOpen)
		}
		if !manyDeadline.Equal(oneDeadline) || q.InPaste() != oneInPaste {
			t.Errorf("input %q in chunks %v: deadline %v, InPaste %v; one-shot: %v, %v",
				in, cuts, since(manyDeadline), q.InPaste(), since(oneDeadline), oneInPaste)
		}
		q.Close()
		if got, want := many.String(), one.String(); got != want {
			t.Errorf("input %q in chunks %v: events after Close\n got %s\nwant %s", in, cuts, got, want)
		}
		if got, want := one.String(), fmt.Sprint(referenceEvents(in, late)); got != want {
			t.Errorf("input %q, late %v: events\n got %s\nwant (reference) %s", in, late, got, want)
		}
	})
}

// rebuilder is a Sink that rebuilds the input from the events: a marker for
// each PasteStart but a continuation's, for each PasteEnd emitted by Write
// (Flush and Close end a paste without one) and for each StrayEnd. It fails
// the test on an event out of order.
type rebuilder struct {
	t       *testing.T
	p       *Parser
	out     []byte
	inPaste bool
	inWrite bool // the current call is Write
}

func (r *rebuilder) Typed(p []byte) {
	if len(p) == 0 || r.inPaste {
		r.t.Fatalf("Typed(%q) with InPaste %v", p, r.inPaste)
	}
	r.out = append(r.out, p...)
}

func (r *rebuilder) PasteData(p []byte) {
	if len(p) == 0 || !r.inPaste {
		r.t.Fatalf("PasteData(%q) with InPaste %v", p, r.inPaste)
	}
	r.out = append(r.out, p...)
}

func (r *rebuilder) PasteStart() {
	if r.inPaste || !r.inWrite && !r.p.cont {
		r.t.Fatalf("PasteStart with InPaste %v, in Write %v", r.inPaste, r.inWrite)
	}
	r.inPaste = true
	if !r.p.cont {
		r.out = append(r.out, StartMarker...)
	}
}

func (r *rebuilder) StrayEnd() {
	if r.inPaste || !r.inWrite {
		r.t.Fatalf("StrayEnd with InPaste %v, in Write %v", r.inPaste, r.inWrite)
	}
	r.out = append(r.out, EndMarker...)
}

func (r *rebuilder) PasteEnd() {
	if !r.inPaste {
		r.t.Fatalf("PasteEnd outside a paste")
	}
	r.inPaste = false
	if r.inWrite {
		r.out = append(r.out, EndMarker...)
	}
}

// FuzzParserConservation requires that typed bytes and paste data are
// exactly the input without the recognised markers, whatever the chunking,
// the Flush times and the Closes. Each byte of ops gives a chunk length
// (bits 0-3, 1 to 16), the time that passes before it (bits 4-5: none,
// 1 ms, EscHold, PasteSilence), whether Flush is called before it (bit 6),
// and whether Close is (bit 7).
func FuzzParserConservation(f *testing.F) {
	for _, s := range parserSeeds() {
		f.Add([]byte(s), []byte{0})
		f.Add([]byte(s), []byte{0x13, 0x62, 0xa1, 0x70})
	}
	steps := [4]time.Duration{0, time.Millisecond, EscHold, PasteSilence}
	f.Fuzz(func(t *testing.T, in, ops []byte) {
		if len(ops) == 0 {
			ops = []byte{0xf}
		}
		r := &rebuilder{t: t}
		p := NewParser(r)
		r.p = p
		now, deadline := epoch, time.Time{}
		for k, rest := 0, in; len(rest) > 0; k++ {
			o := ops[k%len(ops)]
			now = now.Add(steps[o>>4&3])
			if o&0x40 != 0 {
				due := !deadline.IsZero() && !now.Before(deadline)
				wasInPaste := p.InPaste()
				deadline = p.Flush(now)
				// Past the deadline, a paste ends; a hold is released, which
				// may open a late paste's continuation.
				if due && (wasInPaste && p.InPaste() || !wasInPaste && p.nhold > 0 || !p.InPaste() && !deadline.IsZero()) {
					t.Fatalf("Flush at %v, past the deadline: InPaste %v, deadline %v", since(now), p.InPaste(), since(deadline))
				}
			}
			if o&0x80 != 0 {
				p.Close()
			}
			n := min(len(rest), int(o&15)+1)
			r.inWrite = true
			deadline = p.Write(rest[:n], now)
			r.inWrite = false
			rest = rest[n:]
			checkDeadline(t, p, now, deadline)
		}
		p.Close()
		if !bytes.Equal(r.out, in) {
			t.Errorf("input %q with ops %v: rebuilt\n %q", in, ops, r.out)
		}
	})
}

// checkDeadline checks the deadline a Write at now returned: PasteSilence
// after now in a paste, EscHold after at most now while a prefix is held,
// none otherwise.
func checkDeadline(t *testing.T, p *Parser, now, deadline time.Time) {
	t.Helper()
	switch {
	case p.InPaste():
		if !deadline.Equal(now.Add(PasteSilence)) {
			t.Fatalf("in a paste: Write at %v returned deadline %v", since(now), since(deadline))
		}
	case p.nhold > 0:
		if deadline.IsZero() || deadline.After(now.Add(EscHold)) {
			t.Fatalf("holding %q: Write at %v returned deadline %v", p.hold[:p.nhold], since(now), since(deadline))
		}
	case !deadline.IsZero():
		t.Fatalf("nothing held, no paste: Write at %v returned deadline %v", since(now), since(deadline))
	}
}
