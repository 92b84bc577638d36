package bracketed

import "time"

// Timing policy of the Burst detector, for a terminal that does not mark
// its pastes: what such a terminal does with a paste, against what a
// person or a program typing does. Measured on Linux (2 CPUs shared with
// other test runs), reading the PTY's slave side in raw mode with 32 KiB
// reads, as pbwrap does:
//
//   - A terminal writes a paste in one go. 600 lines (19.7 KB) came in 5 to
//     10 reads, at most 2.3 ms apart (99th percentile 0.4 ms); 197 KB in 31
//     to 93 reads, at most 2.3 ms apart. tmux paste-buffer without -p: 600
//     lines in 10 reads over 0.9 ms, 6000 lines in 36 reads over 4.1 ms,
//     pauses of at most 1.5 ms.
//   - A paste read a byte at a time (a serial line, or a writer slower than
//     its reader) came in reads 2.3 ms apart at the 99th percentile under
//     load.
//   - A person sends one key per read, 15 ms apart at the fastest (macOS's
//     fastest key repeat), 30 ms and more when typing. A program typing
//     (tmux send-keys, a text expander, xdotool) sends a line in one read,
//     or a key a millisecond apart: 1 byte per millisecond.
const (
	// BurstHold is how long input that has not yet made a large paste is
	// held after its last byte before it goes to the child as typed: the
	// terminal has paused longer than a paste pauses (2.3 ms at the 99th
	// percentile under load; a terminal descheduled on a busy machine
	// pauses longer, rarely), so what came was typing, or a small paste,
	// which reaches the child as the terminal sent it. It is also all a
	// key waits, where pastes are not marked: too short to notice, and
	// under the 25 ms that held a small burst before.
	BurstHold = 16 * time.Millisecond

	// BurstGap is how long a paste found large stays open without input:
	// it ends when the terminal has sent nothing for this long. It outlasts
	// the pauses within a paste by far, also those of a terminal that a
	// busy machine leaves unscheduled for a while (one writing a paste
	// paused 32 ms with 4 busy processes on 2 CPUs), and is shorter than a
	// person takes to press a key after pasting. It costs only the wait of
	// the reference, after the paste's last byte.
	BurstGap = 100 * time.Millisecond

	// TypingSpan and TypingBytes tell a program typing from a paste: input
	// that keeps coming, each byte within BurstHold of the one before, but
	// at fewer than TypingBytes bytes in a TypingSpan (2 bytes a
	// millisecond), is typing; it goes to the child at once from then on,
	// until it pauses. A paste comes at hundreds of bytes a millisecond,
	// even over a slow link (a 56 kbit/s line: 7).
	TypingSpan  = 32 * time.Millisecond
	TypingBytes = 64
)

// burstState is what the Burst detector does with input.
type burstState uint8

const (
	burstIdle    burstState = iota // nothing held
	burstHolding                   // holding what may become a large paste
	burstPasting                   // in a large paste: PasteStart emitted
	burstTyping                    // passing typing on at once, until it pauses
)

// Burst catches large pastes from terminals that do not mark them: input
// that arrives faster than a person types and grows to a large paste
// before it pauses. It reads the typed bytes that a Parser emits (Typed),
// with the time of the read they came in, and emits to its Sink: Typed, or
// PasteStart, PasteData and PasteEnd around a large paste. It never emits
// StrayEnd.
//
// Input is held from its first byte, every byte alike (text, control
// characters, escape sequences), while it arrives without a pause of
// BurstHold. When what is held reaches minBytes bytes or minLines line
// breaks (CR, LF or CRLF), it is a paste: PasteStart, everything held as
// PasteData, then the rest as it comes, until BurstGap passes without
// input (Flush) or End is called; then PasteEnd. So a large paste is one
// paste, whole, however it is chunked: a first read of one character is
// in it. Input that pauses before it is large goes to the child as Typed,
// byte for byte, exactly as it came: keys, a line and its Enter, a small
// paste. Input that keeps coming, but slower than a paste does (fewer than
// TypingBytes in a TypingSpan), is a program typing: what is held goes as
// Typed at once, and so does what follows it, until it pauses.
//
// Typed bytes and paste data together are exactly the bytes written, in
// order: nothing is lost, duplicated or reordered. What is held is at
// most minBytes bytes. Writes with the same time are one read. A Burst
// has no clock: Write and Flush return the time at which Flush must be
// called if no input arrives before it, and Write never ends anything by
// itself, however late it is called: time in which the caller could not
// read is not a pause of the terminal's.
//
// A Burst is not safe for concurrent use.
type Burst struct {
	sink               Sink
	minBytes, minLines int

	state  burstState
	lastIn time.Time // the last input, in any state but burstIdle

	held   []byte    // burstHolding: what is held
	breaks int       // line breaks in held
	lastCR bool      // held ends with a CR: an LF after it ends no other line
	span   time.Time // burstHolding: when the current TypingSpan began
	spanN  int       // bytes that came in it
}

// NewBurst returns a Burst that emits its events to s, and takes input
// held to minBytes bytes or minLines line breaks for a paste (values below
// 1 count as 1).
func NewBurst(s Sink, minBytes, minLines int) *Burst {
	return &Burst{sink: s, minBytes: max(1, minBytes), minLines: max(1, minLines)}
}

// Write takes typed bytes p, read at time now (the bytes a Parser emits as
// Typed, with the time of its Write), emits what it can decide, and
// returns the time at which Flush must be called if no more input arrives
// before it; the zero time when nothing waits. An empty p is no input.
func (b *Burst) Write(p []byte, now time.Time) (deadline time.Time) {
	if len(p) == 0 {
		return b.Deadline()
	}
	b.lastIn = now
	switch b.state {
	case burstTyping:
		b.sink.Typed(p)
	case burstPasting:
		b.sink.PasteData(p)
	case burstIdle:
		b.state, b.span, b.spanN = burstHolding, now, 0
		b.hold(p)
	case burstHolding:
		// Input that keeps coming is read before the span's deadline is
		// seen: the span is judged here too, with p in it, since p may be
		// what piled up while the caller could not read.
		if !now.Before(b.span.Add(TypingSpan)) {
			if b.spanN+len(p) < TypingBytes {
				b.release()
				b.state = burstTyping
				b.sink.Typed(p)
				break
			}
			b.span, b.spanN = now, 0
		}
		b.hold(p)
	}
	return b.Deadline()
}

// hold adds p to what is held, and starts the paste when that makes it
// large; what comes after the byte that made it large is the paste's too.
func (b *Burst) hold(p []byte) {
	b.spanN += len(p)
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

// Flush lets time pass: held input that has paused BurstHold goes to the
// child as typed, held input that came slower than a paste does goes too
// (and what follows it, see Burst), a paste that has paused BurstGap ends,
// typing that has paused BurstHold ends. Calling it early is harmless. It
// returns the next deadline (zero if none).
func (b *Burst) Flush(now time.Time) (deadline time.Time) {
	switch b.state {
	case burstHolding:
		switch {
		case !now.Before(b.lastIn.Add(BurstHold)):
			b.release()
			b.state = burstIdle
		case !now.Before(b.span.Add(TypingSpan)):
			if b.spanN < TypingBytes {
				b.release()
				b.state = burstTyping
			} else {
				b.span, b.spanN = now, 0
			}
		}
	case burstTyping:
		if !now.Before(b.lastIn.Add(BurstHold)) {
			b.state = burstIdle
		}
	case burstPasting:
		if !now.Before(b.lastIn.Add(BurstGap)) {
			b.state = burstIdle
			b.sink.PasteEnd()
		}
	}
	return b.Deadline()
}

// End decides at once, whatever the time: held input goes as typed, an
// open paste ends. The caller calls it when something other than typed
// bytes comes (a marked paste, an end marker: escape sequences the
// detector does not see), and at the end of the input.
func (b *Burst) End() {
	switch b.state {
	case burstHolding:
		b.release()
	case burstPasting:
		b.sink.PasteEnd()
	}
	b.state = burstIdle
}

// Open reports whether a large paste is open.
func (b *Burst) Open() bool { return b.state == burstPasting }

// Pending reports whether input is held or a paste is open: more input,
// or the deadline, decides what it is.
func (b *Burst) Pending() bool { return b.state == burstHolding || b.state == burstPasting }

// Deadline is when Flush is owed, or the zero time.
func (b *Burst) Deadline() time.Time {
	switch b.state {
	case burstHolding:
		d := b.lastIn.Add(BurstHold)
		if s := b.span.Add(TypingSpan); s.Before(d) {
			d = s
		}
		return d
	case burstTyping:
		return b.lastIn.Add(BurstHold)
	case burstPasting:
		return b.lastIn.Add(BurstGap)
	}
	return time.Time{}
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
