package bracketed

import "time"

// Timing policy of the Burst detector: what terminals that do not bracket
// pastes do, against what a person typing does. Measured on Linux (2 CPUs
// shared with other test runs), reading the PTY's slave side in raw mode
// with 32 KiB reads, as pbwrap does:
//
//   - A terminal writes a paste in one go. 600 lines (19.7 KB) came in 5 to
//     10 reads, at most 2.3 ms apart (99th percentile 0.4 ms); 197 KB in 31
//     to 93 reads, at most 2.3 ms apart, once 32 ms with 4 busy processes
//     on the 2 CPUs. tmux paste-buffer without -p (pbwrap doctor --paste):
//     600 lines in 10 reads over 0.9 ms, 6000 lines in 36 reads over 4.1 ms,
//     pauses of at most 1.5 ms.
//   - VS Code's terminal writes 50 characters, then waits for a 5 ms timer
//     (played by node with setTimeout, as VS Code does): its reads came
//     5.3 ms apart (median), 6 to 8 ms at the 99th percentile, and the
//     longest pause of a 600-line paste was 8.5 to 10 ms on a quiet
//     machine. With other test runs contending for the CPUs (load 2 to 3)
//     the longest pause of a paste was 9.6 ms (median of 40 pastes); 6 of
//     the 40 paused 25 ms or more once, 4 of them 30 ms, 1 of them 40 ms
//     (60 ms at most).
//   - A paste read a byte at a time (a serial line, or a writer slower than
//     its reader) came in reads 2.3 ms apart at the 99th percentile under
//     load.
//   - Key repeat sends a key every 33 ms (30 a second; 42 ms at most under
//     load); macOS's fastest setting, every 15 ms. A person typing sends
//     one key per read.
const (
	// BurstGap is how long a burst stays open without input: it ends when
	// the terminal has sent nothing for this long. It outlasts the pauses
	// within a paste by far on a quiet machine (VS Code's: 10 ms at most),
	// and stays under the 33 ms between two keys of key repeat, so that a
	// key held down can never keep a burst open. It is also how long a
	// burst waits, after its last byte, to reach the child: 25 ms, too
	// short to notice. A terminal that pauses longer within a paste (VS
	// Code on a machine busy enough: 6 pastes in 40 above) splits it into
	// bursts, each handled as a paste of its own; no byte is lost or
	// reordered.
	BurstGap = 25 * time.Millisecond

	// BurstInterval is how close reads of typed characters must follow
	// one another to count together towards a burst: a paste read a byte
	// at a time (reads 2.3 ms apart) is a burst, while the fastest key
	// repeat (15 ms) and a fast typist's keys are not.
	BurstInterval = 8 * time.Millisecond

	// BurstMinChars is how many characters must arrive together (in one
	// read, or in reads BurstInterval apart) to make a burst. Two keys
	// can share a read when pbwrap was busy for a moment, and an Enter
	// among them must still submit; three characters faster than a
	// person types are not typing.
	BurstMinChars = 3
)

// burstSeq is where the Burst detector is in a key sequence or terminal
// report (ECMA-48: CSI, SS3, and the strings OSC, DCS, SOS, PM, APC).
type burstSeq uint8

const (
	bsText   burstSeq = iota // not in a sequence
	bsEsc                    // after ESC
	bsCSI                    // after ESC [, in the parameters
	bsSS3                    // after ESC O
	bsString                 // in an OSC, DCS, SOS, PM or APC string
	bsStrEsc                 // after ESC in a string: ST (ESC \) or a new sequence
	bsMouse                  // in the three bytes of an X10 mouse report (ESC [ M b x y)
)

// Bytes the detector looks at.
const (
	ctlBEL = 0x07
	ctlCAN = 0x18 // cancels a sequence (ECMA-48)
	ctlSUB = 0x1a // cancels a sequence (ECMA-48)
	ctlDEL = 0x7f
)

// x10MouseLen is the number of bytes after ESC [ M in an X10 mouse report:
// button, column, row.
const x10MouseLen = 3

// Burst detects pastes from terminals that do not bracket them: input
// that arrives faster than a person types. It reads the typed bytes that
// a Parser emits (Typed), with the time of the read they came in, and
// emits to its Sink: Typed for keystrokes, and PasteStart, PasteData and
// PasteEnd around a burst. It never emits StrayEnd.
//
// Typed bytes are of two kinds. Keys are escape sequences (ESC alone or
// with a key, CSI, SS3, and the strings OSC, DCS, SOS, PM and APC: cursor
// and device reports, focus and mouse events, kitty key events) and
// control characters other than tab, CR and LF (Ctrl-C, Backspace, ...).
// Everything else is text. Keys are never part of a burst: each passes
// as Typed at once, and ends the open burst first. A sequence must come
// in one go: when its next byte comes more than EscHold after the last,
// it has ended (a person typed Alt+] or Alt+P), and what follows is read
// afresh.
//
// Text passes as Typed at once until BurstMinChars characters (UTF-8
// sequences count once) have arrived in one Write, or in Writes at most
// BurstInterval apart with no key in between. From the Write that makes
// the count on, text is a burst: PasteStart, then PasteData as it comes,
// until BurstGap passes without input (Flush), a key comes, or End is
// called; then PasteEnd. A keystroke that arrives alone (no burst open,
// no text within BurstInterval before it) is never held; only a burst is,
// by the caller, and only until its end.
//
// Typed bytes and paste data together are exactly the bytes written, in
// order: nothing is held, lost, or reordered. Writes with the same time
// are one read, as far as the detector can tell. Like a Parser, a Burst
// has no clock: Write and Flush return the time at which Flush must be
// called if no input arrives before it, and Write never ends a burst by
// itself, however late it is called (see Parser.Write for why).
//
// A Burst is not safe for concurrent use.
type Burst struct {
	sink Sink
	open bool // a burst is open: PasteStart was emitted

	lastIn time.Time // the open burst's last input

	streak    int       // characters of text arriving together, towards BurstMinChars
	lastPlain time.Time // when text last arrived, while streak > 0

	seq      burstSeq
	seqLast  time.Time // when the sequence's last byte arrived
	csiBytes int       // bytes after ESC [, in bsCSI
	mouseN   int       // bytes of the mouse report still to come, in bsMouse
}

// NewBurst returns a Burst, with no burst open, that emits its events to s.
func NewBurst(s Sink) *Burst {
	return &Burst{sink: s}
}

// Write takes typed bytes p, read at time now (the bytes a Parser emits as
// Typed, with the time of its Write), emits them as Typed or burst events,
// and returns the time at which Flush must be called if no more input
// arrives before it: BurstGap after the open burst's last input, or the
// zero time when no burst is open. An empty b is no input.
func (b *Burst) Write(p []byte, now time.Time) (deadline time.Time) {
	if len(p) == 0 {
		return b.Deadline()
	}
	if b.seq != bsText && now.Sub(b.seqLast) > EscHold {
		b.seq = bsText // The sequence stopped: it was keys typed, not a report.
	}
	for len(p) > 0 {
		if n := b.keys(p); n > 0 {
			b.seqLast = now
			b.stop()
			b.sink.Typed(p[:n])
			p = p[n:]
			continue
		}
		n := burstTextLen(p)
		b.text(p[:n], now)
		p = p[n:]
	}
	return b.Deadline()
}

// Flush ends the open burst once now is at least BurstGap after its last
// input. Calling it early is harmless. It returns the next deadline (zero
// if none).
func (b *Burst) Flush(now time.Time) (deadline time.Time) {
	if b.open && !now.Before(b.lastIn.Add(BurstGap)) {
		b.stop()
	}
	return b.Deadline()
}

// End ends the open burst at once, if there is one, and forgets what came
// before: the detector is then as new. The caller calls it when something
// other than typed bytes comes (a bracketed paste, an end marker: escape
// sequences the detector does not see) and at the end of the input.
func (b *Burst) End() {
	b.stop()
	b.seq = bsText
}

// TypedAhead returns how many characters of bytes with no ESC the next
// Write passes, at whatever time, as Typed and nothing else: fewer than
// make a burst with the characters counted towards one so far, when no
// burst is open and no key sequence is under way; 0 otherwise. (Time
// only ever lowers the count, and a control key resets it.)
func (b *Burst) TypedAhead() int {
	if b.open || b.seq != bsText {
		return 0
	}
	return max(0, BurstMinChars-1-b.streak)
}

// Open reports whether a burst is open.
func (b *Burst) Open() bool { return b.open }

// Deadline is when Flush is owed, or the zero time.
func (b *Burst) Deadline() time.Time {
	if !b.open {
		return time.Time{}
	}
	return b.lastIn.Add(BurstGap)
}

// stop ends the open burst, if there is one, and forgets the text that
// came before: a key came.
func (b *Burst) stop() {
	b.streak = 0
	if b.open {
		b.open = false
		b.sink.PasteEnd()
	}
}

// text handles a run of text, read at now: the open burst's, or typed, or
// the start of a burst.
func (b *Burst) text(p []byte, now time.Time) {
	if b.open {
		b.lastIn = now
		b.sink.PasteData(p)
		return
	}
	if b.streak > 0 && now.Sub(b.lastPlain) > BurstInterval {
		b.streak = 0
	}
	b.streak += countChars(p)
	b.lastPlain = now
	if b.streak < BurstMinChars {
		b.sink.Typed(p)
		return
	}
	// The bytes that end a character typed before are not the burst's.
	i := 0
	for i < len(p) && isUTF8Cont(p[i]) {
		i++
	}
	if i > 0 {
		b.sink.Typed(p[:i])
	}
	b.open, b.lastIn = true, now
	b.sink.PasteStart()
	b.sink.PasteData(p[i:])
}

// keys returns the length of the keys at the start of p (sequences and
// control characters, see Burst), following the sequence state through
// them; 0 if p starts with text.
func (b *Burst) keys(p []byte) int {
	i := 0
	for i < len(p) {
		if b.seq == bsText {
			c := p[i]
			switch {
			case c == esc:
				b.seq = bsEsc
			case !isControlKey(c):
				return i
			}
			i++
			continue
		}
		if b.step(p[i]) {
			i++
		}
	}
	return i
}

// step moves the sequence state on by c and reports whether c is the
// sequence's; if not, the sequence has ended before c, which is looked at
// again from bsText.
func (b *Burst) step(c byte) (used bool) {
	switch b.seq {
	case bsEsc:
		return b.afterEsc(c)
	case bsCSI:
		return b.inCSI(c)
	case bsSS3:
		return b.inSS3(c)
	case bsString:
		switch c {
		case ctlBEL, ctlCAN, ctlSUB:
			b.seq = bsText
		case esc:
			b.seq = bsStrEsc
		}
		return true
	case bsStrEsc:
		if c == '\\' {
			b.seq = bsText
			return true
		}
		// A new sequence begins at the ESC, already taken: c is its second byte.
		b.seq = bsEsc
		return b.afterEsc(c)
	case bsMouse:
		if b.mouseN--; b.mouseN == 0 {
			b.seq = bsText
		}
		return true
	}
	return false
}

// afterEsc takes the byte after ESC: the introducer of a longer sequence,
// another ESC (the first was the Esc key), or a key pressed with Alt.
func (b *Burst) afterEsc(c byte) bool {
	switch c {
	case '[':
		b.seq, b.csiBytes = bsCSI, 0
	case 'O':
		b.seq = bsSS3
	case ']', 'P', 'X', '^', '_':
		b.seq = bsString
	case esc:
	default:
		b.seq = bsText
	}
	return true
}

// inCSI takes a byte of a control sequence: parameter and intermediate
// bytes, then the final byte. ESC [ M with no parameters is an X10 mouse
// report, whose three bytes follow.
func (b *Burst) inCSI(c byte) bool {
	switch {
	case c >= 0x20 && c <= 0x3f:
		b.csiBytes++
	case c == 'M' && b.csiBytes == 0:
		b.seq, b.mouseN = bsMouse, x10MouseLen
	case c >= 0x40 && c <= 0x7e:
		b.seq = bsText
	case c == ctlCAN || c == ctlSUB:
		b.seq = bsText
	default:
		b.seq = bsText // Not a sequence a terminal sends: it ended before c.
		return false
	}
	return true
}

// inSS3 takes a byte after ESC O: parameters (some terminals send
// modifiers there), then the final byte.
func (b *Burst) inSS3(c byte) bool {
	switch {
	case c >= 0x30 && c <= 0x3f:
	case c >= 0x20 && c <= 0x7e, c == ctlCAN, c == ctlSUB:
		b.seq = bsText
	default:
		b.seq = bsText
		return false
	}
	return true
}

// burstTextLen is the length of the text at the start of p: up to the first
// ESC or control character.
func burstTextLen(p []byte) int {
	for i, c := range p {
		if c == esc || isControlKey(c) {
			return i
		}
	}
	return len(p)
}

// isControlKey reports whether c is a control key: a C0 control or DEL, but
// not tab, CR and LF, which pasted text has.
func isControlKey(c byte) bool {
	return c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == ctlDEL
}

// isUTF8Cont reports whether c continues a UTF-8 sequence.
func isUTF8Cont(c byte) bool { return c&0xc0 == 0x80 }

// chars counts the characters of text p: its bytes that do not continue
// a UTF-8 sequence.
func countChars(p []byte) int {
	n := 0
	for _, c := range p {
		if !isUTF8Cont(c) {
			n++
		}
	}
	return n
}
