package termproto

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// burstOp is one step of a Burst test.
type burstOp struct {
	kind     string        // "read" (one Write), "flush", "busy" or "end"
	in       string        // for read
	at       time.Duration // since epoch, for read, flush and busy
	deadline time.Duration // wanted deadline since epoch after the step; -1 for none
}

func bread(at time.Duration, in string, deadline time.Duration) burstOp {
	return burstOp{kind: "read", in: in, at: at, deadline: deadline}
}
func bflush(at, deadline time.Duration) burstOp {
	return burstOp{kind: "flush", at: at, deadline: deadline}
}
func bbusy(until, deadline time.Duration) burstOp {
	return burstOp{kind: "busy", at: until, deadline: deadline}
}

var bend = burstOp{kind: "end", deadline: none}

const (
	none = -1
	gap  = BurstGap
)

// The thresholds of the table's Bursts: 16 bytes, or 3 line breaks.
const (
	testMinBytes = 16
	testMinLines = 3
)

// longLine is a read longer than LineBytes, with no line break: no one's
// typing, and smaller than the default thresholds.
var longLine = strings.Repeat("l", LineBytes+1)

var burstTests = []struct {
	name string
	ops  []burstOp
	want []event
	open bool // a paste is open after the last step
	// minBytes is the Burst's threshold in bytes: testMinBytes when 0.
	minBytes int
}{
	{
		name: "a key is typed at once",
		ops:  []burstOp{bread(0, "a", none)},
		want: []event{typed("a")},
	},
	{
		name: "keys a millisecond apart are typed, each at once",
		ops:  []burstOp{bread(0, "h", none), bread(ms, "i", none), bread(2*ms, "\r", none)},
		want: []event{typed("hi\r")},
	},
	{
		name: "a line and its Enter in one read are typed at once: the Enter submits",
		ops:  []burstOp{bread(0, "git commit -m 'the first line typed by a program'\r", none)},
		want: []event{typed("git commit -m 'the first line typed by a program'\r")},
	},
	{
		name: "CRLF at a line's end is its one line break",
		ops:  []burstOp{bread(0, "ls -la\r\n", none)},
		want: []event{typed("ls -la\r\n")},
	},
	{
		name: "keys, arrows and control keys piled up in one read are typed at once",
		ops:  []burstOp{bread(0, "\x1b[A\x03", none), bread(ms, "\x7f\x1bOB", none)},
		want: []event{typed("\x1b[A\x03\x7f\x1bOB")},
		// minBytes: 4 would make the second read large if it were held.
		minBytes: 4,
	},
	{
		name: "a small paste of two lines in one read is held, then typed as it came",
		ops:  []burstOp{bread(0, "one\rtwo", gap), bflush(gap-1, gap), bflush(gap, none)},
		want: []event{typed("one\rtwo")},
	},
	{
		name: "a read longer than LineBytes is held, then typed as it came",
		ops:  []burstOp{bread(0, longLine, gap), bflush(gap, none)},
		want: []event{typed(longLine)},
		// Large only at 8192 bytes.
		minBytes: 8192,
	},
	{
		name: "a large paste in one read is one paste",
		ops:  []burstOp{bread(0, "one\rtwo\rthree\rfour", gap), bflush(gap, none)},
		want: []event{start, data("one\rtwo\rthree\rfour"), end},
	},
	{
		name: "a paste's pieces within the gap are one paste",
		ops: []burstOp{
			bread(0, "one\rtwo", gap), bread(20*ms, "\rthree\rfour", 20*ms+gap),
			bread(40*ms, "\rfive\rsix", 40*ms+gap), bflush(40*ms+gap, none),
		},
		want: []event{start, data("one\rtwo\rthree\rfour\rfive\rsix"), end},
	},
	{
		name: "a key typed 5 ms before a paste is typed, not the paste's",
		ops:  []burstOp{bread(0, "k", none), bread(5*ms, "one\rtwo\rthree\r", 5*ms+gap), bflush(5*ms+gap, none)},
		want: []event{typed("k"), start, data("one\rtwo\rthree\r"), end},
	},
	{
		name: "an Enter 5 ms after a paste ends it, and is typed",
		ops:  []burstOp{bread(0, "one\rtwo\rthree\r", gap), bread(5*ms, "\r", none)},
		want: []event{start, data("one\rtwo\rthree\r"), end, typed("\r")},
	},
	{
		name: "an Enter KeyGap after a small paste held sends it on, then is typed",
		ops:  []burstOp{bread(0, "one\rtwo", gap), bread(KeyGap, "\r", none)},
		want: []event{typed("one\rtwo\r")},
	},
	{
		name: "an arrow key after a paste ends it; so does a key with Alt",
		ops:  []burstOp{bread(0, "one\rtwo\rthree\r", gap), bread(5*ms, "\x1b[1;5A", none), bread(10*ms, "\x1bb", none)},
		want: []event{start, data("one\rtwo\rthree\r"), end, typed("\x1b[1;5A\x1bb")},
	},
	{
		name: "a byte right after a large read is the rest of the terminal's write: the paste's",
		ops: []burstOp{
			bread(0, "one\rtwo", gap), bread(50*time.Microsecond, "\r", 50*time.Microsecond+gap),
			bread(100*time.Microsecond, "three\r", 100*time.Microsecond+gap), bflush(100*time.Microsecond+gap, none),
		},
		want: []event{start, data("one\rtwo\rthree\r"), end},
	},
	{
		name: "a byte after a read that filled the kernel's buffer is the rest of the write, however late",
		ops: []burstOp{
			bread(0, strings.Repeat("x\r", FullRead/2), gap), bread(0, "y", gap), bread(10*ms, "\r", 10*ms+gap),
			bread(20*ms, "z", none),
		},
		want:     []event{start, data(strings.Repeat("x\r", FullRead/2) + "y\r"), end, typed("z")},
		minBytes: 8192,
	},
	{
		name: "a byte read after the caller was busy, within KeyGap of that, is the paste's",
		ops: []burstOp{
			bread(0, "one\rtwo\rthree", gap), bbusy(30*ms, 30*ms+gap), bread(30*ms+KeyGap-1, "\r", 30*ms+KeyGap-1+gap),
			bread(40*ms, "x", none),
		},
		want: []event{start, data("one\rtwo\rthree\r"), end, typed("x")},
	},
	{
		name: "the caller busy past the gap: the paste waits for what came meanwhile",
		ops: []burstOp{
			bread(0, "one\rtwo\rthree\r", gap), bbusy(150*ms, 150*ms+gap), bflush(150*ms, 150*ms+gap),
			bread(150*ms+ms, "four\r", 151*ms+gap), bflush(151*ms+gap, none),
		},
		want: []event{start, data("one\rtwo\rthree\rfour\r"), end},
	},
	{
		name: "text a piece after a paste joins it: a paste's last piece may be short",
		ops:  []burstOp{bread(0, "one\rtwo\rthree\r", gap), bread(20*ms, "four", 20*ms+gap), bflush(20*ms+gap, none)},
		want: []event{start, data("one\rtwo\rthree\rfour"), end},
	},
	{
		name: "the rest of a read at the same time goes where the read went",
		ops: []burstOp{
			bread(0, "a", none), bread(0, "\x1b", none),
			bread(ms, "one\rtwo", ms+gap), bread(ms, "\x1b", ms+gap), bflush(ms+gap, none),
		},
		want: []event{typed("a\x1bone\rtwo\x1b")},
	},
	{
		name: "control characters and escape sequences are a large paste's",
		ops:  []burstOp{bread(0, "\x1b[31merr\x1b[0m\f\x08\r\x1b[1mmore", gap), bread(20*ms, "\x03 text here", 20*ms+gap), bflush(20*ms+gap, none)},
		want: []event{start, data("\x1b[31merr\x1b[0m\f\x08\r\x1b[1mmore\x03 text here"), end},
	},
	{
		name: "line breaks make it large; CRLF counts once",
		ops:  []burstOp{bread(0, "a\r\nb\r\n", gap), bread(ms, "c\rd", ms+gap), bflush(ms+gap, none)},
		want: []event{start, data("a\r\nb\r\nc\rd"), end},
	},
	{
		name: "after a paste has ended at the gap, a key is typed at once",
		ops: []burstOp{
			bread(0, strings.Repeat("x\r", 8), gap), bflush(gap, none),
			bread(gap+ms, "\r", none),
		},
		want: []event{start, data(strings.Repeat("x\r", 8)), end, typed("\r")},
	},
	{
		name: "pbwrap stalled past the deadline: the read is not a pause",
		ops:  []burstOp{bread(0, "a\rb", gap), bread(gap+20*ms, "\rc\r", gap+20*ms+gap), bflush(gap+20*ms+gap, none)},
		want: []event{start, data("a\rb\rc\r"), end},
	},
	{
		name: "End types what is held",
		ops:  []burstOp{bread(0, "a\rb", gap), bend, bflush(time.Hour, none)},
		want: []event{typed("a\rb")},
	},
	{
		name: "End ends a paste",
		ops:  []burstOp{bread(0, strings.Repeat("y\r", 9), gap), bend},
		want: []event{start, data(strings.Repeat("y\r", 9)), end},
	},
	{
		name: "a paste still open",
		ops:  []burstOp{bread(0, strings.Repeat("y\r", 9), gap), bflush(gap-1, gap)},
		want: []event{start, data(strings.Repeat("y\r", 9))},
		open: true,
	},
}

// runBurstOps runs ops on b and checks the deadline after each step.
func runBurstOps(t *testing.T, name string, b *Burst, ops []burstOp) {
	t.Helper()
	for k, o := range ops {
		var got time.Time
		switch o.kind {
		case "read":
			got = b.Write([]byte(o.in), epoch.Add(o.at))
		case "flush":
			got = b.Flush(epoch.Add(o.at))
		case "busy":
			b.Busy(epoch.Add(o.at))
			got = b.Deadline()
		case "end":
			b.End()
			got = b.Deadline()
		}
		want := time.Time{}
		if o.deadline != none {
			want = epoch.Add(o.deadline)
		}
		if !got.Equal(want) {
			t.Errorf("%s, step %d (%s %q at %v): deadline = %v, want %v", name, k, o.kind, o.in, o.at, since(got), since(want))
		}
	}
}

func TestBurst(t *testing.T) {
	for _, tt := range burstTests {
		var r recorder
		minBytes := tt.minBytes
		if minBytes == 0 {
			minBytes = testMinBytes
		}
		b := NewBurst(&r, minBytes, testMinLines)
		runBurstOps(t, tt.name, b, tt.ops)
		if got := r.String(); got != fmt.Sprint(tt.want) {
			t.Errorf("%s: events\n got %s\nwant %v", tt.name, got, tt.want)
		}
		if b.Open() != tt.open {
			t.Errorf("%s: Open() = %v, want %v", tt.name, b.Open(), tt.open)
		}
	}
}

// What one read is: a key, typing, or no one's typing.
func TestBurstReadKinds(t *testing.T) {
	keys := []string{
		"a", "\r", "\x7f", "\x03", "\x1b", "é", "日", "🙂", "\x1b[A", "\x1bOP", "\x1b[1;5C", "\x1b[200;2~",
		"\x1b[<35;120;45M", "\x1b[M !!", "\x1b[97;5u", "\x1bb", "\x1b\x1b[A", "\x1b\x1b", "\x1bé", "\x1b[I",
	}
	notKeys := []string{"ab", "\r\r", "\x1b[A\x1b[B", "\x1b[1;", "ls\r", "\xff\xfe", "é!", "\x1bab", "\x1b[M !"}
	for _, k := range keys {
		if !oneKey([]byte(k)) {
			t.Errorf("oneKey(%q) = false, want true", k)
		}
		if pasteLike([]byte(k)) {
			t.Errorf("pasteLike(%q) = true: a key is typing", k)
		}
	}
	for _, k := range notKeys {
		if oneKey([]byte(k)) {
			t.Errorf("oneKey(%q) = true, want false", k)
		}
	}
	typing := []string{"ls -la\r", "ls -la\n", "ls -la\r\n", "no line break", strings.Repeat("x", LineBytes), "日本語の文"}
	pastes := []string{"a\rb", "a\nb", "\r\r", "\r\n\r\n", "one\r\ntwo", strings.Repeat("x", LineBytes+1), "a\n\r"}
	for _, s := range typing {
		if pasteLike([]byte(s)) {
			t.Errorf("pasteLike(%.40q) = true, want false: typing", s)
		}
	}
	for _, s := range pastes {
		if !pasteLike([]byte(s)) {
			t.Errorf("pasteLike(%.40q) = false, want true", s)
		}
	}
}

// feedReads writes body to b in reads of n bytes, spacing apart (each at
// its own time), and calls Flush at each deadline that passes before the
// next read, as ptyproxy does when nothing has arrived by then, and at the
// end.
func feedReads(b *Burst, body string, n int, spacing time.Duration) {
	now, deadline := epoch, time.Time{}
	for k := 0; len(body) > 0; k++ {
		now = epoch.Add(time.Duration(k) * spacing)
		for !deadline.IsZero() && !now.Before(deadline) {
			deadline = b.Flush(deadline)
		}
		c := min(n, len(body))
		deadline = b.Write([]byte(body[:c]), now)
		body = body[c:]
	}
	for !deadline.IsZero() {
		deadline = b.Flush(deadline)
	}
}

// wantReads is what Burst must emit for body in reads of n bytes, spacing
// apart, by the rules read by read: typing passes, what is no one's typing
// is held with what follows until it is large, a key KeyGap after the read
// before ends what is held or open, and so does a pause of BurstGap.
func wantReads(body string, n int, spacing time.Duration) []event {
	var r recorder
	held, open := "", false
	large := func(s string) bool {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		return len(s) >= testMinBytes || strings.Count(s, "\n")+strings.Count(s, "\r") >= testMinLines
	}
	finish := func() {
		if open {
			r.PasteEnd()
		} else if held != "" {
			r.Typed([]byte(held))
		}
		held, open = "", false
	}
	first := true
	for ; len(body) > 0; body = body[min(n, len(body)):] {
		rd := body[:min(n, len(body))]
		pending := open || held != ""
		if pending && spacing >= gap {
			finish()
			pending = false
		}
		switch {
		case !pending && !pasteLike([]byte(rd)):
			r.Typed([]byte(rd))
		case pending && !first && spacing >= KeyGap && oneKey([]byte(rd)):
			finish()
			r.Typed([]byte(rd))
		case open:
			r.PasteData([]byte(rd))
		default:
			held += rd
			if large(held) {
				r.PasteStart()
				r.PasteData([]byte(held))
				held, open = "", true
			}
		}
		first = false
	}
	finish()
	return r.events()
}

// Every case at every read size, at spacings around KeyGap and BurstGap,
// with the clock the test's: a paste is saved whole, or typed whole,
// however it is chunked, and typing is never held.
func TestBurstReadSizes(t *testing.T) {
	for _, body := range []string{
		"one\rtwo\rthree\r", "ab", "a line\r", strings.Repeat("0123456789abcdef", 3),
		"\x1b[1mbold\x1b[0m\r\x08\x7f and more\r", "x\r\ny\r\nz", "k" + strings.Repeat("line\r", 5) + "\r",
	} {
		for n := 1; n <= len(body); n++ {
			for _, spacing := range []time.Duration{time.Microsecond, 100 * time.Microsecond, KeyGap - 1, KeyGap, 5 * ms, 20 * ms, gap - 1, gap, 150 * ms} {
				var r recorder
				b := NewBurst(&r, testMinBytes, testMinLines)
				feedReads(b, body, n, spacing)
				if got, want := r.String(), fmt.Sprint(wantReads(body, n, spacing)); got != want {
					t.Errorf("%q in reads of %d, %v apart: events\n got %s\nwant %s", body, n, spacing, got, want)
				}
			}
		}
	}
}

// A paste at the default thresholds: 12 KB of log lines in colour, read
// in every chunking a terminal makes (whole, 4 KiB reads back to back, 4
// KiB and a byte, 1 KB every 20 ms), is one paste with every byte.
func TestBurstColouredLog(t *testing.T) {
	var log strings.Builder
	for i := 0; log.Len() < 12<<10; i++ {
		fmt.Fprintf(&log, "\x1b[32m2026-12-01T10:00:%02d\x1b[0m \x1b[1mINFO\x1b[0m request %d served\r\n", i%60, i)
	}
	for _, tc := range []struct {
		n       int
		spacing time.Duration
	}{{log.Len(), 0}, {4095, 20 * time.Microsecond}, {1024, 20 * ms}, {300, 5 * ms}} {
		var r recorder
		b := NewBurst(&r, 8192, 200)
		feedReads(b, log.String(), tc.n, tc.spacing)
		if got, want := r.String(), fmt.Sprint([]event{start, data(log.String()), end}); got != want {
			t.Errorf("reads of %d, %v apart: %.300s", tc.n, tc.spacing, got)
		}
	}
}

// The mis-framing of a terminal that paces its paste: 100 KB arriving 1
// KB every 20 ms is one paste (it was typed as its lines, each Entered,
// when what was held went on after 16 ms), and an Enter 5 ms after its
// last piece is typed after it, not saved in it.
func TestBurstPacedPaste(t *testing.T) {
	var text strings.Builder
	for i := 0; text.Len() < 100<<10; i++ {
		fmt.Fprintf(&text, "%05d the quick brown fox\r", i)
	}
	body := text.String()[:100<<10]
	var r recorder
	b := NewBurst(&r, 8192, 200)
	now := epoch
	for p := body; len(p) > 0; p = p[min(1024, len(p)):] {
		if d := b.Deadline(); !d.IsZero() && !now.Before(d) {
			b.Flush(d)
		}
		b.Write([]byte(p[:min(1024, len(p))]), now)
		now = now.Add(20 * ms)
	}
	b.Write([]byte("\r"), now.Add(-20*ms+5*ms))
	if got, want := r.String(), fmt.Sprint([]event{start, data(body), end, typed("\r")}); got != want {
		t.Errorf("events: %.200s ... %.100s", got, got[max(0, len(got)-100):])
	}
}

// GNU screen 4 pauses within a paste for up to 200 ms: with a gap longer
// than that, the paste stays one.
func TestBurstSetGap(t *testing.T) {
	var r recorder
	b := NewBurst(&r, testMinBytes, testMinLines)
	b.SetGap(300 * ms)
	ops := []burstOp{
		bread(0, "one\rtwo\rthree\r", 300*ms), bflush(200*ms, 300*ms),
		bread(200*ms, "four\rfive\r", 500*ms), bflush(500*ms, none),
	}
	runBurstOps(t, "SetGap", b, ops)
	if got, want := r.String(), fmt.Sprint([]event{start, data("one\rtwo\rthree\rfour\rfive\r"), end}); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestBurstRuns checks that input is emitted as runs, not byte by byte.
func TestBurstRuns(t *testing.T) {
	var r recorder
	b := NewBurst(&r, 8192, 200)
	b.Write([]byte(strings.Repeat("x", 1000)+"\x1b[A"+strings.Repeat("y", 1000)), epoch)
	b.Flush(epoch.Add(gap))
	b.Write([]byte(strings.Repeat("z", 9000)), epoch.Add(time.Second))
	b.Write([]byte(strings.Repeat("w", 1000)), epoch.Add(time.Second+ms))
	// typed, start, data (the held run), data (the read's rest), data
	if r.calls != 5 {
		t.Errorf("%d Sink calls (%s), want 5", r.calls, r.String())
	}
}

// TestBurstAllocs guards the input path: once its hold has grown, a key,
// a key sequence and a paste cost no allocation.
func TestBurstAllocs(t *testing.T) {
	b := NewBurst(nopSink{}, 8192, 200)
	key, arrow, paste := []byte("a"), []byte("\x1b[A"), []byte(strings.Repeat("x", 9000))
	now := epoch
	b.Write(paste[:8000], now) // Grows the hold.
	b.Flush(now.Add(gap))
	tests := []struct {
		name string
		f    func()
	}{
		{"typed key", func() { now = now.Add(time.Second); b.Write(key, now) }},
		{"arrow key", func() { now = now.Add(time.Second); b.Write(arrow, now) }},
		{"paste", func() { now = now.Add(time.Second); b.Write(paste, now); b.Flush(now.Add(gap)) }},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(1000, tt.f); got != 0 {
			t.Errorf("%s: %v allocations per run, want 0", tt.name, got)
		}
	}
}

// What is held never outgrows the threshold: the rest streams.
func TestBurstHoldBounded(t *testing.T) {
	b := NewBurst(nopSink{}, 100, 200)
	b.Write([]byte("a\rb"), epoch)
	for i := range 1000 {
		b.Write([]byte(strings.Repeat("x", 7)), epoch.Add(time.Duration(i+1)*time.Microsecond))
		if len(b.held) > 100 {
			t.Fatalf("after %d reads: %d bytes held", i+1, len(b.held))
		}
	}
}
