package capture

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A stage's tests feed it alone, as the stage before it would, and record
// what it passes on: each case at every split of its input, then flushed
// at each deadline it owes until it owes none.

// stageT0 is when a stage test's input is read.
var stageT0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// pasteKinds names the kinds of paste, in a case's events.
var pasteKinds = [...]string{pasteMarked: "marked", pasteClip: "clip", pasteBurst: "burst"}

// recorder is the next of the stage under test, and the other stage of
// its chain, so that it hears the notices the stage tells: it records
// what it is passed, adjacent runs of the same kind (and time) merged.
type recorder struct {
	link
	events []recorded
}

type recorded struct {
	kind string // "input@<time after stageT0>", "data", or a whole event
	p    []byte
}

func (r *recorder) add(kind string, p []byte) {
	if n := len(r.events); n > 0 && p != nil && r.events[n-1].kind == kind && r.events[n-1].p != nil {
		r.events[n-1].p = append(r.events[n-1].p, p...)
		return
	}
	r.events = append(r.events, recorded{kind, bytes.Clone(p)})
}

func (r *recorder) input(p []byte, at time.Time) {
	if len(p) == 0 {
		r.add("empty input", nil) // A stage passes nothing empty on.
		return
	}
	r.add(fmt.Sprintf("input@%v", at.Sub(stageT0)), p)
}
func (r *recorder) pasteStart(k pasteKind) { r.add("start "+pasteKinds[k], nil) }
func (r *recorder) pasteData(p []byte)     { r.add("data", p) }
func (r *recorder) pasteEnd()              { r.add("end", nil) }
func (r *recorder) strayEnd()              { r.add("stray end", nil) }

// heard records pasteSilent and marksPastes; answersHeard comes after
// every read while the answers may come, so its count depends on the
// split: the replies stage's test checks the answers instead.
func (r *recorder) heard(n notice, now time.Time) {
	switch n {
	case pasteSilent:
		r.add(fmt.Sprintf("notice pasteSilent@%v", now.Sub(stageT0)), nil)
	case marksPastes:
		r.add(fmt.Sprintf("notice marksPastes@%v", now.Sub(stageT0)), nil)
	}
}

// strings renders the events, as a case's want lists them.
func (r *recorder) strings() []string {
	var out []string
	for _, e := range r.events {
		if e.p == nil {
			out = append(out, e.kind)
		} else {
			out = append(out, fmt.Sprintf("%s %q", e.kind, e.p))
		}
	}
	return out
}

// stageRig is one stage of an Input, cut out of its chain: what it passes
// on goes to rec, and so do the notices it tells.
type stageRig struct {
	t     *testing.T
	in    *Input
	s     stage
	rec   *recorder
	child bytes.Buffer
	term  bytes.Buffer // what Input writes to the terminal
	at    time.Time    // when the input being written was read
}

func newStageRig(t *testing.T, cfg Config, pick func(*Input) stage) *stageRig {
	t.Helper()
	if cfg.MinBytes == 0 {
		cfg.MinBytes = DefaultMinBytes
	}
	if cfg.MinLines == 0 {
		cfg.MinLines = DefaultMinLines
	}
	r := &stageRig{t: t, in: NewInput(cfg), rec: &recorder{}, at: stageT0}
	r.in.clock = func() time.Time { return r.at } // The work of each call takes no time.
	r.in.SetTell(func(f func() []byte) { r.term.Write(f()) })
	r.s = pick(r.in)
	r.in.stages = []stage{r.s, r.rec}
	r.in.relink()
	return r
}

// write feeds the stage in, read at r.at: its bytes in reads of n (all
// of a run at once if n is 0), and between «» what a stage before passes
// on that is no input: «start marked» (or clip, or burst), «data TEXT»,
// «end», «stray», the notices «silent» (pasteSilent), «marked»
// (marksPastes) and «answers» (answersHeard), and «+D», the next input read D later (a
// time.ParseDuration), after Filter's work on the last is done.
func (r *stageRig) write(in string, n int) {
	r.in.begin(&r.child, r.at)
	defer r.in.end()
	for in != "" {
		text, rest, ok := strings.Cut(in, "«")
		for b := []byte(text); len(b) > 0; {
			k := len(b)
			if n > 0 {
				k = min(n, len(b))
			}
			r.s.input(b[:k], r.at)
			b = b[k:]
		}
		if !ok {
			return
		}
		event, rest, _ := strings.Cut(rest, "»")
		r.event(event)
		in = rest
	}
}

func (r *stageRig) event(event string) {
	switch name, arg, _ := strings.Cut(event, " "); {
	case name == "start":
		r.s.pasteStart(pasteKind(slices.Index(pasteKinds[:], arg)))
	case name == "data":
		r.s.pasteData([]byte(arg))
	case name == "end":
		r.s.pasteEnd()
	case name == "stray":
		r.s.strayEnd()
	case name == "silent":
		r.s.heard(pasteSilent, r.at)
	case name == "answers":
		r.s.heard(answersHeard, r.at)
	case name == "marked":
		r.s.heard(marksPastes, r.at)
	case strings.HasPrefix(name, "+"):
		d, err := time.ParseDuration(name[1:])
		if err != nil {
			r.t.Fatalf("«%s»: %v", event, err)
		}
		r.done()
		r.in.end()
		r.at = r.at.Add(d)
		r.in.begin(&r.child, r.at)
	default:
		r.t.Fatalf("no event «%s»", event)
	}
}

// done tells the stage, if it hears it, that Filter's work is done.
func (r *stageRig) done() {
	if d, ok := r.s.(doneStage); ok {
		d.done(r.in.clock)
	}
}

// flush flushes the stage at each deadline it owes, until it owes none
// (or max flushes), and returns the deadlines, after stageT0.
func (r *stageRig) flush(max int) []time.Duration {
	var ds []time.Duration
	for range max {
		d := r.s.deadline()
		if d.IsZero() {
			break
		}
		ds = append(ds, d.Sub(stageT0))
		r.in.begin(&r.child, d)
		r.s.flush(d)
		r.in.end()
	}
	return ds
}

// stageCase is one case of a stage's table: its input, what the stage
// passes on before any flush (before) and after flushing at each deadline
// (after, everything passed on), and the deadlines.
type stageCase struct {
	name      string
	in        string
	before    []string
	deadlines []time.Duration
	after     []string
	// closed, if set, is what the stage passes on in all when it is
	// closed after the input, instead of flushed.
	closed []string
	// check, if set, says what is wrong with the stage at the end, or "".
	check func(*stageRig) string
	// reads: each run of input is one read, never split (the burst
	// stage tells reads apart, and takes a read's first bytes for what
	// the read is).
	reads bool
}

// run runs c at every split of its input: the stage must pass on the same,
// and owe the same deadlines, however its input is split.
func (c stageCase) run(t *testing.T, rig func() *stageRig) {
	t.Helper()
	splits := []int{0}
	if !c.reads {
		splits = splits[:0]
		for n := 1; n <= max(1, len(c.in)); n++ {
			splits = append(splits, n)
		}
	}
	for _, n := range splits {
		r := rig()
		r.write(c.in, n)
		r.done()
		if got := r.rec.strings(); !slices.Equal(got, c.before) {
			t.Errorf("%s, reads of %d: passed on\n\t%s\nwant\n\t%s", c.name, n, strings.Join(got, "\n\t"), strings.Join(c.before, "\n\t"))
			continue
		}
		if pending := r.s.pending(); pending != (len(c.deadlines) > 0) {
			t.Errorf("%s, reads of %d: pending %v with deadlines %v", c.name, n, pending, c.deadlines)
		}
		if ds := r.flush(len(c.deadlines) + 1); !slices.Equal(ds, c.deadlines) {
			t.Errorf("%s, reads of %d: deadlines %v, want %v", c.name, n, ds, c.deadlines)
		}
		after := c.after
		if after == nil {
			after = c.before
		}
		if got := r.rec.strings(); !slices.Equal(got, after) {
			t.Errorf("%s, reads of %d: after the flushes passed on\n\t%s\nwant\n\t%s", c.name, n, strings.Join(got, "\n\t"), strings.Join(after, "\n\t"))
		}
		if r.s.pending() {
			t.Errorf("%s, reads of %d: still pending after its deadlines", c.name, n)
		}
		if c.check != nil {
			if bad := c.check(r); bad != "" {
				t.Errorf("%s, reads of %d: %s", c.name, n, bad)
			}
		}
		if c.closed != nil {
			r := rig()
			r.write(c.in, n)
			r.in.begin(&r.child, r.at)
			r.s.close()
			r.in.end()
			if got := r.rec.strings(); !slices.Equal(got, c.closed) {
				t.Errorf("%s, reads of %d: closed, passed on\n\t%s\nwant\n\t%s", c.name, n, strings.Join(got, "\n\t"), strings.Join(c.closed, "\n\t"))
			}
			if r.s.pending() {
				t.Errorf("%s, reads of %d: still pending after close", c.name, n)
			}
		}
	}
}

// Each stage of the list passes on to the next that is not bypassed, the
// last to the paste policy, and Filter's input goes to the first that is
// not; a stage that turns on or off is linked in or out at once.
func TestStagesLinked(t *testing.T) {
	check := func(name string, in *Input, want ...stage) {
		t.Helper()
		var path []stage
		for s := in.first; s != sink(in); {
			st, ok := s.(stage)
			if !ok || len(path) > len(in.stages) {
				t.Fatalf("%s: the path goes to %T", name, s)
			}
			path = append(path, st)
			s = nextOf(st)
		}
		if !slices.Equal(path, want) {
			t.Errorf("%s: the input goes through %s, want %s", name, stageNames(in, path), stageNames(in, want))
		}
		for i, s := range in.stages {
			var next sink = in
			for _, t := range in.stages[i+1:] {
				if !t.bypassed() {
					next = t
					break
				}
			}
			if nextOf(s) != next {
				t.Errorf("%s: %s passes on to %T, want %T", name, stageNames(in, []stage{s}), nextOf(s), next)
			}
		}
	}
	in := NewInput(Config{MinBytes: 8, MinLines: 3})
	check("nothing asked, burst off", in, in.clip, in.markers)
	in = NewInput(Config{MinBytes: 8, MinLines: 3, Burst: BurstAuto, Marks: MarksNo})
	check("asking, looking", in, in.clip, in.replies, in.markers, in.burst)
	in.Ask(stageT0)
	var child bytes.Buffer
	if _, err := in.Filter(&child, []byte("\x1b[?62c"), stageT0); err != nil {
		t.Fatal(err)
	}
	check("answered, looking", in, in.clip, in.markers, in.burst)
	if _, err := in.Filter(&child, []byte(start+"x"+end), stageT0); err != nil {
		t.Fatal(err)
	}
	check("a marked paste", in, in.clip, in.markers)
	in = NewInput(Config{MinBytes: 8, MinLines: 3, Burst: BurstOn})
	if err := in.Close(&child); err != nil {
		t.Fatal(err)
	}
	check("burst on, closed", in, in.clip, in.markers, in.burst)
}

// nextOf is what a stage passes on to.
func nextOf(s stage) sink {
	switch s := s.(type) {
	case *clip:
		return s.next
	case *repliesStage:
		return s.next
	case *markersStage:
		return s.next
	case *burstStage:
		return s.next
	}
	panic(fmt.Sprintf("no stage %T", s))
}

// stageNames names stages by their field in Input.
func stageNames(in *Input, ss []stage) string {
	var names []string
	for _, s := range ss {
		switch s {
		case in.clip:
			names = append(names, "clip")
		case in.replies:
			names = append(names, "replies")
		case in.markers:
			names = append(names, "markers")
		case in.burst:
			names = append(names, "burst")
		default:
			names = append(names, fmt.Sprintf("%T", s))
		}
	}
	return strings.Join(names, ", ")
}
