package termproto

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// event is one Sink call, as recorded.
type event struct {
	kind string // "typed", "start", "data", "end", "stray"
	data string
}

func (e event) String() string {
	if e.data == "" {
		return e.kind
	}
	return fmt.Sprintf("%s(%q)", e.kind, e.data)
}

func typed(s string) event { return event{"typed", s} }
func data(s string) event  { return event{"data", s} }

var (
	start = event{kind: "start"}
	end   = event{kind: "end"}
	stray = event{kind: "stray"}
)

// recorder is a Sink that records events, merging adjacent runs of the same
// kind so that any chunking of the input records the same list.
type recorder struct {
	kinds []string // one per merged event
	data  [][]byte // each event's bytes
	calls int      // Sink calls, before merging
}

func (r *recorder) add(kind string, p []byte) {
	r.calls++
	if n := len(r.kinds); n > 0 && r.kinds[n-1] == kind && p != nil {
		r.data[n-1] = append(r.data[n-1], p...)
		return
	}
	r.kinds = append(r.kinds, kind)
	r.data = append(r.data, append([]byte(nil), p...))
}

func (r *recorder) Typed(p []byte)     { r.add("typed", p) }
func (r *recorder) PasteStart()        { r.add("start", nil) }
func (r *recorder) PasteData(p []byte) { r.add("data", p) }
func (r *recorder) PasteEnd()          { r.add("end", nil) }
func (r *recorder) StrayEnd()          { r.add("stray", nil) }

// events returns the merged events.
func (r *recorder) events() []event {
	evs := make([]event, len(r.kinds))
	for i, k := range r.kinds {
		evs[i] = event{k, string(r.data[i])}
	}
	return evs
}

func (r *recorder) String() string { return fmt.Sprint(r.events()) }

// epoch is the tests' time zero.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// op is one step of a parser test case.
type op struct {
	kind     string        // "write", "flush" or "close"
	in       string        // for write: written in chunks of the run's read size
	at       time.Duration // since epoch, for write and flush
	deadline time.Duration // wanted deadline since epoch after the step; 0 for none
}

func write(at time.Duration, in string, deadline time.Duration) op {
	return op{kind: "write", in: in, at: at, deadline: deadline}
}
func flush(at, deadline time.Duration) op { return op{kind: "flush", at: at, deadline: deadline} }

var closeOp = op{kind: "close"}

const (
	ms     = time.Millisecond
	hold   = EscHold      // deadline after a hold that began at time zero
	silent = PasteSilence // deadline in a paste whose last input was at time zero
)

var parserTests = []struct {
	name    string
	ops     []op
	want    []event
	inPaste bool // after the last step
}{
	{
		name: "typed only",
		ops:  []op{write(0, "hello, world\r", 0)},
		want: []event{typed("hello, world\r")},
	},
	{
		name: "paste only",
		ops:  []op{write(0, "\x1b[200~line 1\rline 2\r\x1b[201~", 0)},
		want: []event{start, data("line 1\rline 2\r"), end},
	},
	{
		name: "typed paste typed",
		ops:  []op{write(0, "ab\x1b[200~pasted\x1b[201~cd", 0)},
		want: []event{typed("ab"), start, data("pasted"), end, typed("cd")},
	},
	{
		name: "two pastes",
		ops:  []op{write(0, "\x1b[200~one\x1b[201~ \x1b[200~two\x1b[201~", 0)},
		want: []event{start, data("one"), end, typed(" "), start, data("two"), end},
	},
	{
		name: "back to back pastes",
		ops:  []op{write(0, "\x1b[200~one\x1b[201~\x1b[200~two\x1b[201~", 0)},
		want: []event{start, data("one"), end, start, data("two"), end},
	},
	{
		name: "empty paste",
		ops:  []op{write(0, "x\x1b[200~\x1b[201~y", 0)},
		want: []event{typed("x"), start, end, typed("y")},
	},
	{
		name: "lone ESC released after EscHold",
		ops: []op{
			write(0, "\x1b", hold),
			flush(hold-1, hold), // not yet
			flush(hold, 0),
		},
		want: []event{typed("\x1b")},
	},
	{
		name: "lone ESC then typed",
		ops:  []op{write(0, "\x1b", hold), write(5*ms, "x", 0)},
		want: []event{typed("\x1bx")},
	},
	{
		name: "hold measured from when it began",
		ops: []op{
			write(0, "\x1b", hold),
			write(5*ms, "[20", hold),
			flush(9*ms, hold),
			flush(hold, 0),
			write(hold+ms, "0~x", 0),
		},
		want: []event{typed("\x1b[200~x")},
	},
	{
		name: "marker completed before EscHold",
		ops: []op{
			write(0, "a\x1b[2", hold),
			flush(5*ms, hold),
			write(9*ms, "00~p\x1b[201~", 0),
		},
		want: []event{typed("a"), start, data("p"), end},
	},
	{
		name: "a new hold restarts the clock",
		ops: []op{
			write(0, "\x1b", hold),
			write(5*ms, "\x1b", 5*ms+hold),
			flush(hold, 5*ms+hold),
			flush(5*ms+hold, 0),
		},
		want: []event{typed("\x1b\x1b")},
	},
	{
		name: "arrow keys",
		ops:  []op{write(0, "\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA", 0)},
		want: []event{typed("\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA")},
	},
	{
		name: "near markers are typed",
		ops:  []op{write(0, "\x1b[2~\x1b[20~\x1b[200;5~\x1b[1;5A\x1b\x1b[", hold)},
		want: []event{typed("\x1b[2~\x1b[20~\x1b[200;5~\x1b[1;5A\x1b")},
	},
	{
		name: "StartMarker inside a paste is data",
		ops:  []op{write(0, "\x1b[200~a\x1b[200~b\x1b[201~", 0)},
		want: []event{start, data("a\x1b[200~b"), end},
	},
	{
		name: "the first EndMarker ends the paste",
		ops:  []op{write(0, "\x1b[200~a\x1b[201~b\x1b[201~", 0)},
		want: []event{start, data("a"), end, typed("b"), stray},
	},
	{
		// Issue 10: a stray end marker typed reached the child.
		name: "EndMarker outside a paste is dropped",
		ops:  []op{write(0, "x\x1b[201~y\x1b[201~\x1b[201~", 0)},
		want: []event{typed("x"), stray, typed("y"), stray, stray},
	},
	{
		name: "near markers outside a paste are typed",
		ops:  []op{write(0, "\x1b[202~\x1b[20\x1b[201\x1b[2017~\x1b[200", hold)},
		want: []event{typed("\x1b[202~\x1b[20\x1b[201\x1b[2017~")},
	},
	{
		name: "escape sequences inside a paste are data",
		ops:  []op{write(0, "\x1b[200~\x1b[A\x1b\x1b[20\x1b[201\x1b[201~", 0)},
		want: []event{start, data("\x1b[A\x1b\x1b[20\x1b[201"), end},
	},
	{
		// Issue 10: the rest of a paste delayed past the silence reached
		// the child as keystrokes, newlines as Enter, then a stray marker.
		name: "after the silence, the rest of the paste is a paste",
		ops: []op{
			write(0, "\x1b[200~abc", silent),
			write(time.Second, "def", time.Second+silent),
			flush(time.Second+silent-1, time.Second+silent),
			flush(time.Second+silent, 0),
			write(time.Hour, "gh\ri", time.Hour+silent),
			write(time.Hour+ms, "\x1b[201~typed", 0),
		},
		want: []event{start, data("abcdef"), end, start, data("gh\ri"), end, typed("typed")},
	},
	{
		name: "a continuation that ends at the silence is not continued",
		ops: []op{
			write(0, "\x1b[200~abc", silent),
			flush(silent, 0),
			write(time.Hour, "typed", time.Hour+silent),
			flush(time.Hour+silent, 0),
			write(2*time.Hour, "x", 0),
		},
		want: []event{start, data("abc"), end, start, data("typed"), end, typed("x")},
	},
	{
		name: "after the silence, the paste's late end marker is dropped",
		ops: []op{
			write(0, "\x1b[200~abc", silent),
			flush(silent, 0),
			write(time.Hour, "\x1b[2", time.Hour+hold),
			write(time.Hour+ms, "01~x", 0),
		},
		want: []event{start, data("abc"), end, stray, typed("x")},
	},
	{
		name: "after the silence, a new paste is a paste",
		ops: []op{
			write(0, "\x1b[200~abc", silent),
			flush(silent, 0),
			write(time.Hour, "\x1b[200~def\x1b[201~x", 0),
		},
		want: []event{start, data("abc"), end, start, data("def"), end, typed("x")},
	},
	{
		name: "after the silence, a released hold opens the continuation",
		ops: []op{
			write(0, "\x1b[200~abc", silent),
			flush(silent, 0),
			write(time.Hour, "\x1b", time.Hour+hold),
			flush(time.Hour+hold, time.Hour+silent),
			write(time.Hour+time.Second, "[A\x1b[201~", 0),
		},
		want: []event{start, data("abc"), end, start, data("\x1b[A"), end},
	},
	{
		name: "held end prefix waits for the silence",
		ops: []op{
			write(0, "\x1b[200~abc\x1b[20", silent),
			flush(hold, silent),
			flush(silent, 0),
			write(silent+ms, "1~", silent+ms+silent),
		},
		want:    []event{start, data("abc\x1b[20"), end, start, data("1~")},
		inPaste: true,
	},
	{
		name: "held end prefix completed late",
		ops: []op{
			write(0, "\x1b[200~abc\x1b[20", silent),
			write(time.Second, "1~x", 0),
		},
		want: []event{start, data("abc"), end, typed("x")},
	},
	{
		name: "Close mid-paste",
		ops:  []op{write(0, "a\x1b[200~bc", silent), closeOp},
		want: []event{typed("a"), start, data("bc"), end},
	},
	{
		name: "Close with a held start prefix",
		ops:  []op{write(0, "a\x1b[200", hold), closeOp},
		want: []event{typed("a\x1b[200")},
	},
	{
		name: "Close with a held end prefix",
		ops:  []op{write(0, "\x1b[200~a\x1b[201", silent), closeOp},
		want: []event{start, data("a\x1b[201"), end},
	},
	{
		name:    "open paste",
		ops:     []op{write(0, "x\x1b[200~y", silent)},
		want:    []event{typed("x"), start, data("y")},
		inPaste: true,
	},
	{
		name: "UTF-8 and controls",
		ops:  []op{write(0, "h\u00e9\u4e16\x03\x7f\r\x1b[200~\u00e9\x00\r\n\x1b[201~", 0)},
		want: []event{typed("h\u00e9\u4e16\x03\x7f\r"), start, data("\u00e9\x00\r\n"), end},
	},
}

// runOps runs ops on p, writing each input in chunks of n bytes, and checks
// the deadline after each step.
func runOps(t *testing.T, name string, p *Parser, ops []op, n int) {
	t.Helper()
	for k, o := range ops {
		var got time.Time
		switch o.kind {
		case "write":
			for in := o.in; len(in) > 0; {
				c := min(n, len(in))
				got = p.Write([]byte(in[:c]), epoch.Add(o.at))
				in = in[c:]
			}
		case "flush":
			got = p.Flush(epoch.Add(o.at))
		case "close":
			p.Close()
		}
		want := time.Time{}
		if o.deadline != 0 {
			want = epoch.Add(o.deadline)
		}
		if !got.Equal(want) {
			t.Errorf("%s, read size %d, step %d (%s %q at %v): deadline = %v, want %v",
				name, n, k, o.kind, o.in, o.at, since(got), since(want))
		}
	}
}

// since shows a deadline relative to epoch.
func since(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.Sub(epoch).String()
}

func TestParser(t *testing.T) {
	for _, tt := range parserTests {
		longest := 1
		for _, o := range tt.ops {
			longest = max(longest, len(o.in))
		}
		for n := 1; n <= longest; n++ {
			var r recorder
			p := NewParser(&r)
			runOps(t, tt.name, p, tt.ops, n)
			if got := r.String(); got != fmt.Sprint(tt.want) {
				t.Errorf("%s, read size %d: events\n got %s\nwant %v", tt.name, n, got, tt.want)
			}
			if got := p.InPaste(); got != tt.inPaste {
				t.Errorf("%s, read size %d: InPaste() = %v, want %v", tt.name, n, got, tt.inPaste)
			}
		}
	}
}

// TestParserRuns checks that a Write emits each run of bytes in one call, not
// byte by byte: the recorder counts calls before merging.
func TestParserRuns(t *testing.T) {
	tests := []struct {
		in    string
		calls int
	}{
		{"hello", 1},
		{"ab\x1b[200~pasted\x1b[201~cd", 5},
		{"\x1b[A\x1b[B" + strings.Repeat("x", 1000), 1},
		{"\x1b[200~" + strings.Repeat("\x1b[200~\r\n", 100) + "\x1b[201~", 3},
	}
	for _, tt := range tests {
		var r recorder
		NewParser(&r).Write([]byte(tt.in), epoch)
		if r.calls != tt.calls {
			t.Errorf("Write(%.20q...): %d Sink calls (%s), want %d", tt.in, r.calls, r.String(), tt.calls)
		}
	}
}

func TestParserEmptyWrite(t *testing.T) {
	var r recorder
	p := NewParser(&r)
	if got := p.Write(nil, epoch); !got.IsZero() {
		t.Errorf("Write(nil) on a new Parser: deadline = %v, want none", since(got))
	}
	p.Write([]byte("\x1b[200~x"), epoch)
	// An empty Write is no input: the silence still runs from epoch.
	if got, want := p.Write(nil, epoch.Add(time.Second)), epoch.Add(silent); !got.Equal(want) {
		t.Errorf("Write(nil) in a paste: deadline = %v, want %v", since(got), since(want))
	}
	if got, want := r.String(), fmt.Sprint([]event{start, data("x")}); got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
}

// TestParserCloseThenWrite checks that a Parser is as new after Close.
func TestParserCloseThenWrite(t *testing.T) {
	var r recorder
	p := NewParser(&r)
	p.Write([]byte("\x1b[200~a\x1b[20"), epoch)
	p.Close()
	if p.InPaste() {
		t.Errorf("InPaste() after Close = true, want false")
	}
	if got := p.Write([]byte("b"), epoch); !got.IsZero() {
		t.Errorf("Write after Close: deadline = %v, want none", since(got))
	}
	want := []event{start, data("a\x1b[20"), end, typed("b")}
	if got := r.String(); got != fmt.Sprint(want) {
		t.Errorf("events = %s, want %v", got, want)
	}
}

// Unfinished is what a caller asks when the input must stop (the child is
// gone): whether a paste or a marker prefix is still open.
func TestParserUnfinished(t *testing.T) {
	p := NewParser(nopSink{})
	for _, step := range []struct {
		in   string
		at   time.Duration
		want bool
	}{
		{"", 0, false},
		{"typed", 0, false},
		{"\x1b", 0, true},
		{"[A", 0, false},
		{"\x1b[20", 0, true},
		{"0~pasted", 0, true},
		{"\x1b[201~", 0, false},
		{"\x1b[200~cut", time.Second, true},
		{"flush", time.Second + silent, false}, // Ended at the silence: its rest is not awaited.
	} {
		if step.in == "flush" {
			p.Flush(epoch.Add(step.at))
		} else {
			p.Write([]byte(step.in), epoch.Add(step.at))
		}
		if got := p.Unfinished(); got != step.want {
			t.Errorf("after %q: Unfinished() = %v, want %v", step.in, got, step.want)
		}
	}
}

// SetSilence replaces PasteSilence in the deadlines.
func TestParserSetSilence(t *testing.T) {
	var r recorder
	p := NewParser(&r)
	p.SetSilence(time.Second)
	if got, want := p.Write([]byte("\x1b[200~x"), epoch), epoch.Add(time.Second); !got.Equal(want) {
		t.Errorf("deadline %v, want %v", since(got), since(want))
	}
	p.Flush(epoch.Add(time.Second))
	if want := fmt.Sprint([]event{start, data("x"), end}); r.String() != want {
		t.Errorf("events %s, want %s", r.String(), want)
	}
}

// nopSink discards events.
type nopSink struct{}

func (nopSink) Typed([]byte)     {}
func (nopSink) PasteStart()      {}
func (nopSink) PasteData([]byte) {}
func (nopSink) PasteEnd()        {}
func (nopSink) StrayEnd()        {}

// TestParserAllocs guards the keystroke path: typing, holding and releasing
// an ESC, and passing paste data cost no allocation.
func TestParserAllocs(t *testing.T) {
	p := NewParser(nopSink{})
	key, escKey, seq := []byte("a"), []byte("\x1b"), []byte("[A")
	paste := []byte("\x1b[200~" + strings.Repeat("x", 4096) + "\x1b[201~")
	tests := []struct {
		name string
		f    func()
	}{
		{"typed key", func() { p.Write(key, epoch) }},
		{"ESC held then flushed", func() { p.Write(escKey, epoch); p.Flush(epoch.Add(hold)) }},
		{"ESC held then refuted", func() { p.Write(escKey, epoch); p.Write(seq, epoch) }},
		{"paste", func() { p.Write(paste, epoch) }},
		{"stray end marker", func() { p.Write(endMarker, epoch) }},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(1000, tt.f); got != 0 {
			t.Errorf("%s: %v allocations per run, want 0", tt.name, got)
		}
	}
}
