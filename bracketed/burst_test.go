package bracketed

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// burstOp is one step of a Burst test.
type burstOp struct {
	kind     string        // "read" (one Write), "flush" or "end"
	in       string        // for read
	at       time.Duration // since epoch, for read and flush
	deadline time.Duration // wanted deadline since epoch after the step; -1 for none
}

func bread(at time.Duration, in string, deadline time.Duration) burstOp {
	return burstOp{kind: "read", in: in, at: at, deadline: deadline}
}
func bflush(at, deadline time.Duration) burstOp {
	return burstOp{kind: "flush", at: at, deadline: deadline}
}

var bend = burstOp{kind: "end", deadline: none}

const (
	none  = -1
	bhold = BurstHold
	gap   = BurstGap
	span  = TypingSpan
)

// The thresholds of the table's Bursts: 16 bytes, or 3 line breaks.
const (
	testMinBytes = 16
	testMinLines = 3
)

var burstTests = []struct {
	name string
	ops  []burstOp
	want []event
	open bool // a paste is open after the last step
	// minBytes is the Burst's threshold in bytes: testMinBytes when 0.
	minBytes int
}{
	{
		name: "a key alone is typed once the input pauses",
		ops:  []burstOp{bread(0, "a", bhold), bflush(bhold-1, bhold), bflush(bhold, none)},
		want: []event{typed("a")},
	},
	{
		name: "keys 30 ms apart are typed, each after its pause",
		ops: []burstOp{
			bread(0, "h", bhold), bflush(bhold, none),
			bread(30*ms, "i", 30*ms+bhold), bflush(30*ms+bhold, none),
			bread(60*ms, "\r", 60*ms+bhold), bflush(60*ms+bhold, none),
		},
		want: []event{typed("hi\r")},
	},
	{
		name: "a line and its Enter in one read are typed: the Enter submits",
		ops:  []burstOp{bread(0, "git commit -m\r", bhold), bflush(bhold, none)},
		want: []event{typed("git commit -m\r")},
	},
	{
		name: "keys, arrows and control keys as they came: typed",
		ops:  []burstOp{bread(0, "\x1b[A\x03", bhold), bread(ms, "\x7f\x1bOB", ms+bhold), bflush(ms+bhold, none)},
		want: []event{typed("\x1b[A\x03\x7f\x1bOB")},
	},
	{
		name: "a small paste that pauses is typed, newlines and all",
		ops:  []burstOp{bread(0, "one\rtwo\r", bhold), bflush(bhold, none)},
		want: []event{typed("one\rtwo\r")},
	},
	{
		name: "a large paste in one read is one paste",
		ops:  []burstOp{bread(0, strings.Repeat("x", 20), gap), bflush(gap, none)},
		want: []event{start, data(strings.Repeat("x", 20)), end},
	},
	{
		name: "a large paste whose first read is one character holds it: whole",
		ops: []burstOp{
			bread(0, "a", bhold), bread(ms, "b", ms+bhold), bread(2*ms, strings.Repeat("c", 30), 2*ms+gap),
			bflush(2*ms+gap, none),
		},
		want: []event{start, data("ab" + strings.Repeat("c", 30)), end},
	},
	{
		name: "a large paste a byte at a time, 0.1 ms apart",
		ops: func() []burstOp {
			var ops []burstOp
			for i := range 16 {
				at := time.Duration(i) * 100 * time.Microsecond
				d := at + bhold
				if i == 15 {
					d = at + gap
				}
				ops = append(ops, bread(at, string(rune('a'+i)), d))
			}
			return append(ops, bflush(1500*time.Microsecond+gap, none))
		}(),
		want: []event{start, data("abcdefghijklmnop"), end},
	},
	{
		name: "control characters and escape sequences are the large paste's",
		ops:  []burstOp{bread(0, "\x1b[31merr\x1b[0m\f\x08", bhold), bread(ms, "\x03 more text here", ms+gap), bflush(ms+gap, none)},
		want: []event{start, data("\x1b[31merr\x1b[0m\f\x08\x03 more text here"), end},
	},
	{
		name: "line breaks make it large; CRLF counts once",
		ops:  []burstOp{bread(0, "a\r\nb\r\n", bhold), bread(ms, "c\rd", ms+gap), bflush(ms+gap, none)},
		want: []event{start, data("a\r\nb\r\nc\rd"), end},
	},
	{
		name: "pauses shorter than BurstHold keep it one",
		ops: []burstOp{
			bread(0, "0123456789", bhold), bread(bhold-ms, "abcdef", bhold-ms+gap),
			bread(bhold-ms+20*ms, "tail", bhold+19*ms+gap), bflush(bhold+19*ms+gap, none),
		},
		want: []event{start, data("0123456789abcdeftail"), end},
	},
	{
		name: "after a large paste has ended, input is held anew",
		ops: []burstOp{
			bread(0, strings.Repeat("x", 16), gap), bflush(gap, none),
			bread(gap+ms, "\r", gap+ms+bhold), bflush(gap+ms+bhold, none),
		},
		want: []event{start, data(strings.Repeat("x", 16)), end, typed("\r")},
	},
	{
		name: "a program typing a key a millisecond apart is typed after a span, then at once",
		ops: func() []burstOp {
			var ops []burstOp
			for i := 0; i <= 40; i++ {
				at := time.Duration(i) * ms
				d := at + bhold
				if i < 32 && span < d {
					d = span
				}
				ops = append(ops, bread(at, "k", d))
			}
			return append(ops, bflush(40*ms+bhold, none))
		}(),
		want:     []event{typed(strings.Repeat("k", 41))},
		minBytes: 8192,
	},
	{
		name: "pbwrap stalled past the deadline: the read is not a pause",
		ops:  []burstOp{bread(0, "a", bhold), bread(bhold+20*ms, strings.Repeat("b", 100), bhold+20*ms+gap), bflush(bhold+20*ms+gap, none)},
		want: []event{start, data("a" + strings.Repeat("b", 100)), end},
	},
	{
		name: "End types what is held",
		ops:  []burstOp{bread(0, "ab", bhold), bend, bflush(time.Hour, none)},
		want: []event{typed("ab")},
	},
	{
		name: "End ends a paste",
		ops:  []burstOp{bread(0, strings.Repeat("y", 17), gap), bend},
		want: []event{start, data(strings.Repeat("y", 17)), end},
	},
	{
		name: "a paste still open",
		ops:  []burstOp{bread(0, strings.Repeat("y", 17), gap), bflush(gap-1, gap)},
		want: []event{start, data(strings.Repeat("y", 17))},
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

// feedReads writes body to b in reads of n bytes, spacing apart, and calls
// Flush at each deadline that passes before the next read, as ptyproxy
// does when nothing has arrived by then, and at the end.
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
// apart, where the reads take less than a TypingSpan (see Burst): reads
// closer than BurstHold are one input, a paste when large, typed when not;
// reads further apart are each their own, until one is large, whose paste
// then takes the reads that follow within BurstGap.
func wantReads(body string, n int, spacing time.Duration) []event {
	var reads []string
	for ; len(body) > 0; body = body[min(n, len(body)):] {
		reads = append(reads, body[:min(n, len(body))])
	}
	var r recorder
	large := func(s string) bool {
		breaks := strings.Count(strings.ReplaceAll(s, "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(s, "\r\n", "\n"), "\r")
		return len(s) >= testMinBytes || breaks >= testMinLines
	}
	if spacing < bhold {
		if all := strings.Join(reads, ""); large(all) {
			r.PasteStart()
			r.PasteData([]byte(all))
			r.PasteEnd()
		} else {
			r.Typed([]byte(all))
		}
		return r.events()
	}
	for k, rd := range reads {
		if !large(rd) {
			r.Typed([]byte(rd))
			continue
		}
		r.PasteStart()
		r.PasteData([]byte(rd))
		if spacing < gap {
			r.PasteData([]byte(strings.Join(reads[k+1:], "")))
			r.PasteEnd()
			break
		}
		r.PasteEnd()
	}
	return r.events()
}

// Every case at every read size, at spacings around BurstHold and
// BurstGap, with the clock the test's: a paste is saved whole, or typed
// whole, however it is chunked.
func TestBurstReadSizes(t *testing.T) {
	for _, body := range []string{
		"one\rtwo\rthree\r", "ab", "a line\r", strings.Repeat("0123456789abcdef", 3),
		"\x1b[1mbold\x1b[0m\r\x08\x7f and more\r", "x\r\ny\r\nz",
	} {
		for n := 1; n <= len(body); n++ {
			for _, spacing := range []time.Duration{0, 100 * time.Microsecond, ms, 5 * ms, bhold - 1, bhold, bhold + ms, gap - ms, gap, 33 * ms} {
				reads := (len(body) + n - 1) / n
				if time.Duration(reads-1)*spacing >= span && spacing < bhold {
					continue // The typing rule's: TestBurst has it.
				}
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
// in every chunking a terminal makes (whole, 4 KiB, a byte at a time), is
// one paste with every byte.
func TestBurstColouredLog(t *testing.T) {
	var log strings.Builder
	for i := 0; log.Len() < 12<<10; i++ {
		fmt.Fprintf(&log, "\x1b[32m2026-12-01T10:00:%02d\x1b[0m \x1b[1mINFO\x1b[0m request %d served\r\n", i%60, i)
	}
	for _, n := range []int{1, 2, 4096, log.Len()} {
		var r recorder
		b := NewBurst(&r, 8192, 200)
		feedReads(b, log.String(), n, 0)
		if got, want := r.String(), fmt.Sprint([]event{start, data(log.String()), end}); got != want {
			t.Errorf("reads of %d: %.300s", n, got)
		}
	}
}

// TestBurstRuns checks that input is emitted as runs, not byte by byte.
func TestBurstRuns(t *testing.T) {
	var r recorder
	b := NewBurst(&r, 8192, 200)
	b.Write([]byte(strings.Repeat("x", 1000)+"\x1b[A"+strings.Repeat("y", 1000)), epoch)
	b.Flush(epoch.Add(bhold))
	b.Write([]byte(strings.Repeat("z", 9000)), epoch.Add(time.Second))
	b.Write([]byte(strings.Repeat("w", 1000)), epoch.Add(time.Second+ms))
	// typed, start, data (the held run), data (the read's rest), data
	if r.calls != 5 {
		t.Errorf("%d Sink calls (%s), want 5", r.calls, r.String())
	}
}

// TestBurstAllocs guards the input path: once its bhold has grown, a key,
// a key sequence and a paste cost no allocation.
func TestBurstAllocs(t *testing.T) {
	b := NewBurst(nopSink{}, 8192, 200)
	key, arrow, paste := []byte("a"), []byte("\x1b[A"), []byte(strings.Repeat("x", 9000))
	now := epoch
	b.Write(paste[:8000], now) // Grows the bhold.
	b.Flush(now.Add(bhold))
	tests := []struct {
		name string
		f    func()
	}{
		{"typed key", func() { now = now.Add(time.Second); b.Write(key, now); b.Flush(now.Add(bhold)) }},
		{"arrow key", func() { now = now.Add(time.Second); b.Write(arrow, now); b.Flush(now.Add(bhold)) }},
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
	for i := range 1000 {
		b.Write([]byte(strings.Repeat("x", 7)), epoch.Add(time.Duration(i)*time.Microsecond))
		if len(b.held) > 100 {
			t.Fatalf("after %d reads: %d bytes held", i+1, len(b.held))
		}
	}
}
