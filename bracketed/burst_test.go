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
	deadline time.Duration // wanted deadline since epoch after the step; 0 for none
}

func bread(at time.Duration, in string, deadline time.Duration) burstOp {
	return burstOp{kind: "read", in: in, at: at, deadline: deadline}
}
func bflush(at, deadline time.Duration) burstOp {
	return burstOp{kind: "flush", at: at, deadline: deadline}
}

var bend = burstOp{kind: "end"}

const (
	gap      = BurstGap
	interval = BurstInterval
)

var burstTests = []struct {
	name string
	ops  []burstOp
	want []event
	open bool // a burst is open after the last step
}{
	{
		name: "a key alone is typed at once",
		ops:  []burstOp{bread(0, "a", 0)},
		want: []event{typed("a")},
	},
	{
		name: "keys 30 ms apart are typed",
		ops:  []burstOp{bread(0, "h", 0), bread(30*ms, "i", 0), bread(60*ms, "\r", 0)},
		want: []event{typed("hi\r")},
	},
	{
		name: "the fastest key repeat is typed",
		ops:  []burstOp{bread(0, "x", 0), bread(15*ms, "x", 0), bread(30*ms, "x", 0), bread(45*ms, "x", 0)},
		want: []event{typed("xxxx")},
	},
	{
		name: "two keys in one read are typed: an Enter among them submits",
		ops:  []burstOp{bread(0, "s\r", 0), bread(100*ms, "l", 0)},
		want: []event{typed("s\rl")},
	},
	{
		name: "three characters in one read are a burst",
		ops:  []burstOp{bread(0, "ab\r", gap), bflush(gap-1, gap), bflush(gap, 0)},
		want: []event{start, data("ab\r"), end},
	},
	{
		name: "a paste in one read",
		ops:  []burstOp{bread(0, "one\rtwo\rthree", gap), bflush(gap, 0)},
		want: []event{start, data("one\rtwo\rthree"), end},
	},
	{
		name: "characters a millisecond apart: the third starts the burst",
		ops: []burstOp{
			bread(0, "a", 0), bread(ms, "b", 0), bread(2*ms, "c", 2*ms+gap), bread(3*ms, "\r", 3*ms+gap),
			bflush(3*ms+gap, 0),
		},
		want: []event{typed("ab"), start, data("c\r"), end},
	},
	{
		name: "reads BurstInterval apart count together",
		ops:  []burstOp{bread(0, "a", 0), bread(interval, "b", 0), bread(2*interval, "c", 2*interval+gap)},
		want: []event{typed("ab"), start, data("c")},
		open: true,
	},
	{
		name: "reads a little more than BurstInterval apart are typing",
		ops:  []burstOp{bread(0, "a", 0), bread(interval+ms, "b", 0), bread(2*interval+2*ms, "c", 0)},
		want: []event{typed("abc")},
	},
	{
		name: "a burst ends BurstGap after its last input, not before",
		ops: []burstOp{
			bread(0, "abc", gap),
			bread(gap-ms, "d", 2*gap-ms),
			bflush(gap, 2*gap-ms), // early: harmless
			bflush(2*gap-ms-1, 2*gap-ms),
			bflush(2*gap-ms, 0),
		},
		want: []event{start, data("abcd"), end},
	},
	{
		name: "after a burst a key alone is typed again",
		ops:  []burstOp{bread(0, "abc", gap), bflush(gap, 0), bread(gap+ms, "x", 0)},
		want: []event{start, data("abc"), end, typed("x")},
	},
	{
		// The caller calls Flush only if nothing arrived by the deadline:
		// input read late was waiting before it.
		name: "a late read joins the burst",
		ops:  []burstOp{bread(0, "abc", gap), bread(time.Second, "d", time.Second+gap)},
		want: []event{start, data("abcd")},
		open: true,
	},
	{
		name: "an empty read is no input",
		ops:  []burstOp{bread(0, "abc", gap), bread(10*ms, "", gap), bflush(gap, 0)},
		want: []event{start, data("abc"), end},
	},
	{
		name: "an arrow key ends the burst and is typed at once",
		ops:  []burstOp{bread(0, "abc", gap), bread(ms, "\x1b[A", 0), bread(2*ms, "de", 0)},
		want: []event{start, data("abc"), end, typed("\x1b[Ade")},
	},
	{
		name: "text after a key in the same read starts a burst of its own",
		ops:  []burstOp{bread(0, "abc\x1b[Bdef", gap)},
		want: []event{start, data("abc"), end, typed("\x1b[B"), start, data("def")},
		open: true,
	},
	{
		name: "an Esc key ends the burst",
		ops:  []burstOp{bread(0, "abc", gap), bread(2*ms, "\x1b", 0), bread(100*ms, "\x1b", 0)},
		want: []event{start, data("abc"), end, typed("\x1b\x1b")},
	},
	{
		name: "Alt and a key is a key, and so is Esc followed late by text",
		ops:  []burstOp{bread(0, "\x1bx", 0), bread(100*ms, "\x1b", 0), bread(200*ms, "abc", 200*ms+gap)},
		want: []event{typed("\x1bx\x1b"), start, data("abc")},
		open: true,
	},
	{
		name: "Esc followed at once by text takes its first character, as Alt",
		ops:  []burstOp{bread(0, "\x1b", 0), bread(5*ms, "abcd", 5*ms+gap)},
		want: []event{typed("\x1ba"), start, data("bcd")},
		open: true,
	},
	{
		name: "terminal reports and key events are keys",
		ops: []burstOp{bread(0, strings.Join([]string{
			"\x1b[12;40R",                      // cursor position
			"\x1b[?64;1;2;6;22c",               // DA1
			"\x1b[?2004;1$y",                   // DECRPM
			"\x1b[I\x1b[O",                     // focus in, out
			"\x1b[<0;10;5M\x1b[<0;10;5m",       // SGR mouse press, release
			"\x1b[M !!\x1b[M#\x7f~",            // X10 mouse press, release
			"\x1b[97;5u\x1b[13;2u",             // kitty keys
			"\x1bOA\x1bOP\x1bO5Q",              // SS3 keys
			"\x1b[1;5C\x1b[15~\x1b[Z",          // Ctrl+Right, F5, Shift+Tab
			"\x1b]11;rgb:0000/0000/0000\x1b\\", // OSC 11 reply, ST
			"\x1b]10;rgb:ffff/ffff/ffff\x07",   // OSC 10 reply, BEL
			"\x1bP1$r0m\x1b\\",                 // DECRQSS reply
			"\x1bP1+r544e=787465726d\x1b\\",    // XTGETTCAP reply
			"\x1b_Gi=1;OK\x1b\\",               // kitty graphics reply (APC)
		}, ""), 0)},
		want: []event{typed(strings.Join([]string{
			"\x1b[12;40R", "\x1b[?64;1;2;6;22c", "\x1b[?2004;1$y", "\x1b[I\x1b[O", "\x1b[<0;10;5M\x1b[<0;10;5m",
			"\x1b[M !!\x1b[M#\x7f~", "\x1b[97;5u\x1b[13;2u", "\x1bOA\x1bOP\x1bO5Q", "\x1b[1;5C\x1b[15~\x1b[Z",
			"\x1b]11;rgb:0000/0000/0000\x1b\\", "\x1b]10;rgb:ffff/ffff/ffff\x07", "\x1bP1$r0m\x1b\\",
			"\x1bP1+r544e=787465726d\x1b\\", "\x1b_Gi=1;OK\x1b\\",
		}, ""))},
	},
	{
		name: "a report split across reads is still a report",
		ops: []burstOp{
			bread(0, "\x1b[12;4", 0), bread(ms, "0R", 0),
			bread(100*ms, "\x1b]11;rgb:00", 0), bread(101*ms, "00/0000/0000\x07", 0),
			bread(200*ms, "\x1b[M", 0), bread(201*ms, " !!", 0),
		},
		want: []event{typed("\x1b[12;40R\x1b]11;rgb:0000/0000/0000\x07\x1b[M !!")},
	},
	{
		name: "a report during a burst ends it",
		ops:  []burstOp{bread(0, "abc", gap), bread(ms, "\x1b[I", 0), bread(2*ms, "def", 2*ms+gap)},
		want: []event{start, data("abc"), end, typed("\x1b[I"), start, data("def")},
		open: true,
	},
	{
		// Alt+] is ESC ], which starts an OSC string: the keys typed
		// after it are not a report.
		name: "a sequence that stops was keys typed",
		ops:  []burstOp{bread(0, "\x1b]", 0), bread(100*ms, "abc", 100*ms+gap)},
		want: []event{typed("\x1b]"), start, data("abc")},
		open: true,
	},
	{
		name: "a sequence stops after EscHold, not before",
		ops:  []burstOp{bread(0, "\x1b]", 0), bread(EscHold, "abc", 0), bread(2*EscHold+ms, "def", 2*EscHold+ms+gap)},
		want: []event{typed("\x1b]abc"), start, data("def")},
		open: true,
	},
	{
		name: "ESC in a string starts a new sequence",
		ops:  []burstOp{bread(0, "\x1b]0;x\x1b[Aabc", gap)},
		want: []event{typed("\x1b]0;x\x1b[A"), start, data("abc")},
		open: true,
	},
	{
		name: "CAN and SUB cancel a sequence",
		ops:  []burstOp{bread(0, "\x1b[1\x18abc", gap), bflush(gap, 0), bread(time.Second, "\x1b]x\x1aabc", time.Second+gap)},
		want: []event{typed("\x1b[1\x18"), start, data("abc"), end, typed("\x1b]x\x1a"), start, data("abc")},
		open: true,
	},
	{
		name: "a control sequence broken by a newline ends there",
		ops:  []burstOp{bread(0, "\x1b[1\rabc", gap)},
		want: []event{typed("\x1b[1"), start, data("\rabc")},
		open: true,
	},
	{
		name: "control keys end a burst and are typed at once",
		ops: []burstOp{
			bread(0, "abc", gap), bread(ms, "\x03", 0),
			bread(2*ms, "def\x7fghi", 2*ms+gap),
		},
		want: []event{start, data("abc"), end, typed("\x03"), start, data("def"), end, typed("\x7f"), start, data("ghi")},
		open: true,
	},
	{
		name: "tab, CR and LF are text",
		ops:  []burstOp{bread(0, "\t\r\n", gap)},
		want: []event{start, data("\t\r\n")},
		open: true,
	},
	{
		name: "a UTF-8 character counts once",
		ops:  []burstOp{bread(0, "é", 0), bread(100*ms, "日本", 0), bread(200*ms, "日本語", 200*ms+gap)},
		want: []event{typed("é日本"), start, data("日本語")},
		open: true,
	},
	{
		name: "a character split across reads stays out of the burst",
		ops:  []burstOp{bread(0, "\xc3", 0), bread(ms, "\xa9ab", ms+gap)},
		want: []event{typed("é"), start, data("ab")},
		open: true,
	},
	{
		name: "End ends the burst and forgets the text before",
		ops:  []burstOp{bread(0, "abc", gap), bend, bread(ms, "d", 0), bread(2*ms, "e", 0)},
		want: []event{start, data("abc"), end, typed("de")},
	},
	{
		name: "End forgets a sequence in progress",
		ops:  []burstOp{bread(0, "\x1b[", 0), bend, bread(ms, "abc", ms+gap)},
		want: []event{typed("\x1b["), start, data("abc")},
		open: true,
	},
	{
		name: "End with no burst open emits nothing",
		ops:  []burstOp{bread(0, "a", 0), bend, bflush(time.Hour, 0)},
		want: []event{typed("a")},
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
		if o.deadline != 0 {
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
		b := NewBurst(&r)
		runBurstOps(t, tt.name, b, tt.ops)
		if got := r.String(); got != fmt.Sprint(tt.want) {
			t.Errorf("%s: events\n got %s\nwant %v", tt.name, got, tt.want)
		}
		if b.Open() != tt.open {
			t.Errorf("%s: Open() = %v, want %v", tt.name, b.Open(), tt.open)
		}
	}
}

// burstSpacings are the times between reads that TestBurstReadSizes
// tries: at once, a serial line's, VS Code's, around BurstInterval, around
// BurstGap, key repeat, slow typing.
var burstSpacings = []time.Duration{
	0, ms, 5 * ms,
	interval - ms, interval, interval + ms,
	gap - ms, gap, gap + ms,
	33 * ms, 120 * ms,
}

// feedReads writes body to b in reads of n bytes, spacing apart, and calls
// Flush at each deadline that passes before the next read, as ptyproxy
// does when nothing has arrived by then, and at the end.
func feedReads(t *testing.T, b *Burst, body string, n int, spacing time.Duration) {
	t.Helper()
	now, deadline := epoch, time.Time{}
	for k := 0; len(body) > 0; k++ {
		now = epoch.Add(time.Duration(k) * spacing)
		if !deadline.IsZero() && !now.Before(deadline) {
			deadline = b.Flush(deadline)
		}
		c := min(n, len(body))
		deadline = b.Write([]byte(body[:c]), now)
		if b.Open() && !deadline.Equal(now.Add(gap)) {
			t.Fatalf("read size %d, %v apart: read at %v: deadline %v, want BurstGap after it", n, spacing, since(now), since(deadline))
		}
		body = body[c:]
	}
	for !deadline.IsZero() {
		deadline = b.Flush(deadline)
	}
}

// wantReads is what Burst must emit for text body in reads of n bytes,
// spacing apart (see the rules in the Burst doc). body is ASCII text.
func wantReads(body string, n int, spacing time.Duration) []event {
	var reads []string
	for ; len(body) > 0; body = body[min(n, len(body)):] {
		reads = append(reads, body[:min(n, len(body))])
	}
	var r recorder
	switch {
	case spacing <= interval:
		// The characters count together: the read that makes
		// BurstMinChars starts one burst, to the end.
		k, count := 0, 0
		for ; count+len(reads[k]) < BurstMinChars && k < len(reads)-1; k++ {
			count += len(reads[k])
			r.Typed([]byte(reads[k]))
		}
		if count+len(reads[k]) < BurstMinChars {
			r.Typed([]byte(reads[k]))
			break
		}
		r.PasteStart()
		r.PasteData([]byte(strings.Join(reads[k:], "")))
		r.PasteEnd()
	case spacing < gap:
		// Each read on its own: a burst from the first with enough
		// characters, on through the rest, none of them BurstGap apart.
		if len(reads[0]) < BurstMinChars {
			r.Typed([]byte(strings.Join(reads, "")))
			break
		}
		r.PasteStart()
		r.PasteData([]byte(strings.Join(reads, "")))
		r.PasteEnd()
	default:
		// Each read on its own, and each burst ended before the next.
		for _, rd := range reads {
			if len(rd) < BurstMinChars {
				r.Typed([]byte(rd))
				continue
			}
			r.PasteStart()
			r.PasteData([]byte(rd))
			r.PasteEnd()
		}
	}
	return r.events()
}

// A paste of text in reads of every size, at every spacing around
// BurstInterval and BurstGap, with the clock the test's.
func TestBurstReadSizes(t *testing.T) {
	for _, body := range []string{"one\rtwo\rthree\r", "ab", strings.Repeat("0123456789abcdef\r", 8)} {
		for n := 1; n <= len(body); n++ {
			for _, spacing := range burstSpacings {
				var r recorder
				b := NewBurst(&r)
				feedReads(t, b, body, n, spacing)
				if got, want := r.String(), fmt.Sprint(wantReads(body, n, spacing)); got != want {
					t.Errorf("%q in reads of %d, %v apart: events\n got %s\nwant %s", body, n, spacing, got, want)
				}
			}
		}
	}
}

// TestBurstRuns checks that text is emitted as runs, not byte by byte.
func TestBurstRuns(t *testing.T) {
	var r recorder
	b := NewBurst(&r)
	b.Write([]byte(strings.Repeat("x", 1000)+"\x1b[A"+strings.Repeat("y", 1000)), epoch)
	b.Write([]byte(strings.Repeat("z", 1000)), epoch.Add(ms))
	// start, data, end, typed, start, data, data
	if r.calls != 7 {
		t.Errorf("%d Sink calls (%s), want 7", r.calls, r.String())
	}
}

// TestBurstAllocs guards the keystroke path: a key, a key sequence and
// a burst cost no allocation.
func TestBurstAllocs(t *testing.T) {
	b := NewBurst(nopSink{})
	key, arrow, paste := []byte("a"), []byte("\x1b[A"), []byte(strings.Repeat("x", 4096))
	now := epoch
	tests := []struct {
		name string
		f    func()
	}{
		{"typed key", func() { now = now.Add(time.Second); b.Write(key, now) }},
		{"arrow key", func() { b.Write(arrow, now) }},
		{"burst", func() { now = now.Add(time.Second); b.Write(paste, now); b.Flush(now.Add(gap)) }},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(1000, tt.f); got != 0 {
			t.Errorf("%s: %v allocations per run, want 0", tt.name, got)
		}
	}
}

// TypedAhead counts down with the characters that arrive together (CR
// among them), is 0 within a key sequence or a burst, and is back to 2
// after a control key; it never counts on time having passed.
func TestBurstTypedAhead(t *testing.T) {
	var r recorder
	b := NewBurst(&r)
	at := epoch
	for _, step := range []struct {
		in    string
		after time.Duration
		want  int
	}{
		{"", 0, 2},
		{"a", 0, 1},
		{"b", time.Second, 1}, // The streak starts again, at 1.
		{"\r", 0, 0},          // CR is text: pasted text has it.
		{"\x7f", 0, 2},        // A control key ends the streak.
		{"\x1b", 0, 0},        // A sequence may be under way.
		{"[A", 0, 2},
		{"xyz", 0, 0}, // A burst is open.
	} {
		at = at.Add(step.after)
		b.Write([]byte(step.in), at)
		if got := b.TypedAhead(); got != step.want {
			t.Fatalf("after %q: TypedAhead = %d, want %d", step.in, got, step.want)
		}
	}
}
