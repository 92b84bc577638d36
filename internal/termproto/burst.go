package termproto

import (
	"time"
	"unicode/utf8"
)

// Timing and size policy of the Burst detector, for a terminal that does
// not mark its pastes: what such a terminal does with a paste, against what
// a person or a program typing does. Measured on Linux (2 CPUs shared with
// other test runs), reading the PTY's slave side in raw mode with 32 KiB
// reads, as pbwrap does:
//
//   - A person's key comes in a read of its own: one character or one
//     escape sequence. A program typing (tmux send-keys, a text expander,
//     xdotool) sends a key a read, or a line and its Enter in one read.
//   - A terminal writes a paste in one go, and it is read in large reads:
//     20 KB written at once came in reads of 1,792 bytes and more, the
//     first one included, in 300 of 300 runs, and with two CPU burners
//     beside the reader too; 4,095 bytes at most, which leaves the rest of
//     a write for a read of a byte or two right after it (within 21 µs in
//     every run, burners or not). GNU screen 4.09 passes a paste on in
//     4,096-byte writes, read as 4,095 bytes and 1, with pauses of 100 or
//     200 ms within it (12 of 12 runs of 200 KB).
//   - A terminal that paces its paste writes a chunk at a time: 1 KB every
//     20 ms is read as 1 KB every 20 ms.
const (
	// LineBytes is the most that a read of typing holds: a read of at
	// most this many bytes with no line break but at its end (a key, a
	// few keys, a line and its Enter from a program) is typing, and goes
	// to the child at once. A read that is longer, or holds more than one
	// line, is no one's typing: it starts a paste, or joins the open one.
	LineBytes = 256

	// KeyGap tells the user's key from the last piece of a paste: a read
	// of one key that comes at least KeyGap after the input before it
	// (counted from when the caller could read again, see Busy) is a key,
	// and ends the paste held or open; one that comes sooner is the rest
	// of a terminal's write, which the kernel splits off a large read and
	// delivers tens of microseconds after it. A key a person types after
	// a paste comes milliseconds later at the very least.
	KeyGap = 2 * time.Millisecond

	// FullRead is the size of a read that filled the line discipline's
	// buffer (Linux's holds 4,096 bytes, less one): what the terminal
	// wrote beyond it waits in the kernel, and reaches pbwrap in a read of
	// its own once the kernel's worker has run, which a busy machine can
	// delay by milliseconds (a byte after each 4,095 of GNU screen's
	// 4,096-byte writes). So the read after such a read is the paste's,
	// whatever it is and whenever it comes within the gap.
	FullRead = 4095

	// BurstGap is how long a paste stays open when the terminal sends
	// nothing, by default (see SetGap): it ends when nothing has come for
	// this long. Until then a paste is held only while it is not yet
	// large, and only what makes a paste (reads of LineBytes or more, or
	// of more than one line) is held: no key waits for it. It outlasts the
	// pauses within a terminal's paste (2.3 ms at the 99th percentile,
	// 32 ms with 4 busy processes on 2 CPUs, 20 ms when the terminal paces
	// it), and is shorter than a person takes to act on what they pasted.
	BurstGap = 100 * time.Millisecond
)

// burstState is what the Burst detector does with input.
type burstState uint8

const (
	burstIdle    burstState = iota // nothing held: typing passes at once
	burstHolding                   // holding what may become a large paste
	burstPasting                   // in a large paste: PasteStart emitted
)

// Burst catches large pastes from terminals that do not mark them, by what
// each read brings. It reads the typed bytes that a Parser emits (Typed),
// with the time of the read they came in, and emits to its Sink: Typed, or
// PasteStart, PasteData and PasteEnd around a large paste. It never emits
// StrayEnd.
//
// A read of typing, a key or a line (see LineBytes), goes to the child at
// once, as Typed: nothing typed ever waits for a paste that might follow.
// A read that is no one's typing (longer than LineBytes, or more than one
// line) is held, with what follows it, until it is large: minBytes bytes or
// minLines line breaks (CR, LF or CRLF). Then it is a paste: PasteStart,
// everything held as PasteData, then the rest as it comes. A paste held or
// open ends when the terminal pauses for the gap (BurstGap, or SetGap's),
// at Flush, or when a key comes at least KeyGap after the input before it
// (and the read before it did not fill the kernel's buffer, FullRead):
// what is held goes to the child as Typed (a small paste, as the terminal
// sent it) or the open paste ends (PasteEnd), then the key goes as Typed.
// So a large paste is one paste, whole, however it is chunked or paced
// (each piece within the gap of the one before), and neither a key typed
// before it nor one typed after it joins it. Any other read that comes
// while a paste is held or open joins it: a paste's last piece may be a
// few characters.
//
// Writes at the same time are one read: the first decides what the read
// is, and the rest of it follows (a Parser emits a read's bytes in more
// than one Typed run only around a held marker prefix).
//
// Typed bytes and paste data together are exactly the bytes written, in
// order: nothing is lost, duplicated or reordered. What is held is at most
// minBytes bytes. A Burst has no clock: Write and Flush return the time at
// which Flush must be called if no input arrives before it; Write never
// ends a paste for a pause, however late it is called (time in which the
// caller could not read is not a pause of the terminal's), and the caller
// says by Busy when it could not read.
//
// A Burst is not safe for concurrent use.
type Burst struct {
	sink               Sink
	minBytes, minLines int
	gap                time.Duration

	state   burstState
	lastIn  time.Time // the time of the last read; zero after End
	ready   time.Time // the caller could read again from then (Busy)
	typed   bool      // the last read went to the child as Typed
	readLen int       // the bytes of the last read

	held   []byte // burstHolding: what is held
	breaks int    // line breaks in held
	lastCR bool   // held ends with a CR: an LF after it ends no other line
}

// NewBurst returns a Burst that emits its events to s, takes input held to
// minBytes bytes or minLines line breaks for a paste (values below 1 count
// as 1), and ends a paste after BurstGap without input.
func NewBurst(s Sink, minBytes, minLines int) *Burst {
	return &Burst{sink: s, minBytes: max(1, minBytes), minLines: max(1, minLines), gap: BurstGap}
}

// SetGap sets how long a paste stays open without input in place of
// BurstGap, for a terminal known to pause longer within a paste; d must be
// positive. It applies to the deadlines computed from then on.
func (b *Burst) SetGap(d time.Duration) { b.gap = d }

// Gap is how long a paste stays open without input.
func (b *Burst) Gap() time.Duration { return b.gap }

// Write takes typed bytes p, read at time now (the bytes a Parser emits as
// Typed, with the time of its Write), emits what it can decide, and
// returns the time at which Flush must be called if no more input arrives
// before it; the zero time when nothing waits. An empty p is no input.
func (b *Burst) Write(p []byte, now time.Time) (deadline time.Time) {
	if len(p) == 0 {
		return b.Deadline()
	}
	if !b.lastIn.IsZero() && now.Equal(b.lastIn) { // The rest of the last read.
		b.readLen += len(p)
		if b.typed {
			b.sink.Typed(p)
		} else {
			b.join(p)
		}
		return b.Deadline()
	}
	switch {
	case b.state == burstIdle && !pasteLike(p):
		b.typed = true
		b.sink.Typed(p)
	case b.state == burstIdle:
		b.typed = false
		b.join(p)
	case oneKey(p) && !now.Before(b.after().Add(KeyGap)) && b.readLen < FullRead:
		b.End()
		b.typed = true
		b.sink.Typed(p)
	default:
		b.typed = false
		b.join(p)
	}
	b.lastIn, b.readLen = now, len(p)
	return b.Deadline()
}

// Busy says that the caller could not read the terminal until the time
// until (it was busy with what it read): what came meanwhile has waited in
// the terminal's queue, so KeyGap, and the gap that ends a paste, are
// counted from until. A caller whose reading gives up at the deadline
// without looking at what waits then still reads it before the paste
// ends. Calling it with an earlier time than before changes nothing.
func (b *Burst) Busy(until time.Time) {
	if until.After(b.ready) {
		b.ready = until
	}
}

// after is when the pause before the next read began: the last read, or
// later, when the caller could read again.
func (b *Burst) after() time.Time {
	if b.ready.After(b.lastIn) {
		return b.ready
	}
	return b.lastIn
}

// join adds p to the paste held or open.
func (b *Burst) join(p []byte) {
	if b.state == burstPasting {
		b.sink.PasteData(p)
		return
	}
	b.state = burstHolding
	b.hold(p)
}

// hold adds p to what is held, and starts the paste when that makes it
// large; what comes after the byte that made it large is the paste's too.
func (b *Burst) hold(p []byte) {
	for i, c := range p {
		switch {
		case c == '\r':
			b.breaks++
		case c == '\n' && !b.lastCR:
			b.breaks++
		}
		b.lastCR = c == '\r'
		if len(b.held)+i+1 >= b.minBytes || b.breaks >= b.minLines {
			b.held = append(b.held, p[:i+1]...)
			b.state = burstPasting
			b.sink.PasteStart()
			b.sink.PasteData(b.held)
			b.forget()
			if rest := p[i+1:]; len(rest) > 0 {
				b.sink.PasteData(rest)
			}
			return
		}
	}
	b.held = append(b.held, p...)
}

// Flush lets time pass: a paste held or open that has had no input for the
// gap, while the caller could read (see Busy), ends (what is held goes to
// the child as typed). Calling it early is
// harmless. It returns the next deadline (zero if none).
func (b *Burst) Flush(now time.Time) (deadline time.Time) {
	if b.state != burstIdle && !now.Before(b.after().Add(b.gap)) {
		b.End()
	}
	return b.Deadline()
}

// End decides at once, whatever the time: held input goes as typed, an
// open paste ends. The caller calls it when something other than typed
// bytes comes (a marked paste, an end marker: escape sequences the
// detector does not see), and at the end of the input. Input after it
// starts a new read, whatever its time.
func (b *Burst) End() {
	switch b.state {
	case burstHolding:
		b.release()
	case burstPasting:
		b.sink.PasteEnd()
	}
	b.state, b.lastIn = burstIdle, time.Time{}
}

// Open reports whether a large paste is open.
func (b *Burst) Open() bool { return b.state == burstPasting }

// Pending reports whether input is held or a paste is open: more input,
// or the deadline, decides what it is.
func (b *Burst) Pending() bool { return b.state != burstIdle }

// Deadline is when Flush is owed, or the zero time.
func (b *Burst) Deadline() time.Time {
	if b.state == burstIdle {
		return time.Time{}
	}
	return b.after().Add(b.gap)
}

// release sends what is held to the child as typed.
func (b *Burst) release() {
	if len(b.held) > 0 {
		b.sink.Typed(b.held)
	}
	b.forget()
}

// forget empties the hold, keeping its memory for the next one.
func (b *Burst) forget() {
	b.held, b.breaks, b.lastCR = b.held[:0], 0, false
}

// pasteLike reports whether a read is no one's typing: longer than
// LineBytes, or holding a line break before its end (a CRLF at its end is
// one line break).
func pasteLike(p []byte) bool {
	if len(p) > LineBytes {
		return true
	}
	for i, c := range p {
		if c != '\r' && c != '\n' {
			continue
		}
		rest := len(p) - i - 1
		return rest > 1 || rest == 1 && (c != '\r' || p[i+1] != '\n')
	}
	return false
}

// oneKey reports whether a read is one key: one character (a control
// character, or one UTF-8 encoded character), one escape sequence (CSI,
// SS3, an X10 mouse report), or ESC before either (Alt with the key).
func oneKey(p []byte) bool {
	if len(p) > 1 && p[0] == esc {
		return oneKey(p[1:]) || escapeSequence(p)
	}
	if len(p) == 1 {
		return true
	}
	r, n := utf8.DecodeRune(p)
	return r != utf8.RuneError && n == len(p)
}

// escapeSequence reports whether p, which starts with ESC, is exactly one
// key's escape sequence: CSI parameters, intermediates and a final byte
// (an X10 mouse report, CSI M and three bytes, too), or SS3 and one byte.
func escapeSequence(p []byte) bool {
	switch {
	case len(p) == 3 && p[1] == 'O':
		return true
	case len(p) < 3 || p[1] != '[':
		return false
	case len(p) == 6 && p[2] == 'M':
		return true
	}
	i := 2
	for i < len(p) && p[i] >= 0x30 && p[i] <= 0x3f {
		i++
	}
	for i < len(p) && p[i] >= 0x20 && p[i] <= 0x2f {
		i++
	}
	return i == len(p)-1 && p[i] >= 0x40 && p[i] <= 0x7e
}
