// Package kittyclip speaks kitty's clipboard protocol, OSC 5522, as far as
// pbwrap needs it to take an image the user pastes at a terminal over SSH:
// a Scanner that takes the terminal's packets out of its input, Parse for
// one packet's fields, and AppendRead for the read request that answers a
// paste event. It does no I/O and has no clock: the caller passes the
// time of each read and calls Flush at the deadline it is given.
//
// A packet is ESC ] 5522 ; metadata ; payload, ended by ST (ESC \) or BEL.
// The metadata is key=value records joined by ':'; the values of mime,
// name and pw are base64, the payload base64 too (see
// https://sw.kovidgoyal.net/kitty/clipboard/).
package kittyclip

import (
	"bytes"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// Limits of one packet. kitty sends at most 4096 bytes of data a packet
// (5464 base64 characters) and a few short metadata records; a reply past
// either limit is no packet pbwrap asked for, and is dropped whole.
const (
	MaxMeta    = 4 << 10
	MaxPayload = 256 << 10
)

// PacketSilence is how long a packet that has begun may pause before the
// Scanner gives it up as lost: a terminal writes each packet in one go, so
// a pause this long is a reply cut off (a terminal that died, a link that
// dropped it), not a slow one.
const PacketSilence = 5 * time.Second

// CutGap is the shortest pause inside a reply that the Scanner takes for
// where the reply may have been cut off, should it turn out not to be
// whole: what came after such a pause is read again as input of its own
// (the keys the user typed after a reply cut short), and what came before
// it is dropped. A terminal writes a packet in one go, and a link that
// splits one (TCP segments over SSH) sends the parts within milliseconds
// of each other; a pause inside a reply that is whole does no harm.
const CutGap = 20 * time.Millisecond

// prefix is what begins every packet; replyHead is what begins the
// metadata of every reply a terminal sends (kitty and Ghostty write the
// type first).
const (
	prefix    = "\x1b]5522;"
	replyHead = "type="
)

// maxHead bounds the bytes of a packet read before it is known whether it
// is a reply (see Scanner): the prefix, replyHead, and controls among them.
const maxHead = 64

// maxTail bounds what a Scanner keeps of a reply from its first pause on,
// to read again should the reply turn out not to be whole.
const maxTail = len(prefix) + MaxMeta + MaxPayload + 4

const (
	esc = 0x1b
	bel = 0x07
	del = 0x7f
)

// The bracketed paste markers, which the Scanner follows so as to leave
// alone what the user pastes (see Scanner).
const (
	startMarker = termproto.StartMarker
	endMarker   = termproto.EndMarker
)

// A Sink receives what a Scanner reads, in the order it was read.
type Sink interface {
	// Pass gets input that is no reply: keys, pastes, other replies, and
	// packets that are no reply passed whole.
	Pass(p []byte)
	// Packet gets one whole reply: its metadata and payload without the
	// prefix, the ';' between them, the terminator, and the controls
	// that were among them (which Pass gets next). The slices are valid
	// only during the call. It reports whether the reply is one the Sink
	// can read (Parse); if not, the Scanner takes it as cut short.
	Packet(meta, payload []byte) bool
	// Lost says that a reply that had begun was dropped: too long, cut by
	// another escape sequence, with bytes no reply has, silent for
	// PacketSilence (see Flush), or left open by Close.
	Lost()
}

type scanState uint8

const (
	scanGround  scanState = iota // outside any packet
	scanPrefix                   // held: a proper prefix of "ESC ] 5522 ;"
	scanHead                     // in a packet, not yet known to be a reply
	scanMeta                     // in a reply, in its metadata
	scanPayload                  // in a reply, after the ';' that ends the metadata
	scanBroken                   // in a reply that cannot be whole, read on to its end
	scanResume                   // after a reply lost at its silence: maybe its rest, late
)

// A Scanner takes the terminal's OSC 5522 replies out of its input and
// passes everything else on, whole and in order.
//
// A packet is a reply when its metadata begins with "type=", as every
// reply a terminal writes does; any other packet is input (a user may
// type, or a program send, the same bytes) and passes whole once that is
// known. A reply never passes: it reaches the Sink as a Packet, or is
// Lost. A bracketed paste (ESC [ 200 ~ to the first ESC [ 201 ~, or to
// EndPaste) is not looked into: what the user pastes passes whole,
// whatever it holds.
//
// Inside a reply, as kitty reads a control string, only ST and BEL end
// it; a C0 control (CAN and SUB too) or DEL there is no part of it but a
// key the user typed, which passes once the reply is over. A byte no
// reply has (not base64 in the payload, nor a metadata character), an
// ESC that does not begin ST, a reply too long, or one silent for
// PacketSilence, means that the reply was cut short. Then, if the reply
// paused for CutGap or more on its way, what came from the first such
// pause on is read again as input (the keys typed after a reply that
// stopped), and the rest is lost; with no pause, the reply is lost up to
// its terminator, or up to the ESC or pause that ends it. No byte of a
// reply that holds a one-time password is ever read again (a paste
// event's: its password must not reach the program).
//
// Any chunking of the input gives the same events, as long as no pause
// of CutGap falls inside a reply. A proper prefix of "ESC ] 5522 ;" at the
// end of a Write is held until the next Write completes or refutes it,
// or, for ESC and ESC ] (keys too), termproto.EscHold passes (a lone Esc
// key stays responsive); a longer prefix and a packet are held until
// their end, or until PacketSilence passes.
//
// A Scanner is not safe for concurrent use. The zero value is not usable:
// NewScanner gives one.
type Scanner struct {
	sink  Sink
	state scanState
	held  int  // of prefix, in scanPrefix
	esc   bool // in a packet, after an ESC: ST if '\' follows
	// sent is how many bytes of the held prefix passed on at their hold
	// before the rest came; late is how many did just now, which the
	// next byte may go on from (see Flush).
	sent, late int
	// resume: the reply just lost may have its rest still to come (see
	// resumeByte).
	resume bool
	// paste: inside a bracketed paste; mark: how much of the marker
	// looked for (startMarker outside a paste, endMarker inside) the
	// input has just matched.
	paste bool
	mark  int
	// expect: a reply is expected, so a held prefix waits PacketSilence
	// (see Expect).
	expect bool
	at     time.Time // when the prefix began, or the packet's last byte was read

	praw []byte // scanPrefix: the prefix's bytes, with the keys held among them
	raw  []byte // scanHead: the packet's bytes so far, prefix included
	head int    // ... but for what of the prefix passed before: where the rest begins
	meta []byte
	data []byte
	keys []byte // the controls read inside the reply
	// The first pause of CutGap inside the reply: tail holds the reply's
	// bytes from there on, tailAt is when they began to come, kept is
	// how many keys came before.
	paused bool
	tail   []byte
	tailAt time.Time
	kept   int
}

// NewScanner returns a Scanner that reports to sink.
func NewScanner(sink Sink) *Scanner { return &Scanner{sink: sink} }

// Write scans p, read at now, and returns when Flush is owed if nothing
// more is read, or the zero time.
func (s *Scanner) Write(p []byte, now time.Time) time.Time {
	s.scan(p, now)
	return s.Deadline()
}

// scan moves the Scanner on by p, read at now.
func (s *Scanner) scan(p []byte, now time.Time) {
	if len(p) > 0 && s.state >= scanHead && !now.Before(s.at.Add(CutGap)) {
		s.pause(now)
	}
	start := 0 // of the run of p that passes on
	from := -1 // where in p the prefix under way began, if it began in p
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch s.state {
		case scanGround:
			if late := s.late; late > 0 {
				s.late = 0
				if c == prefix[late] && !s.paste {
					// The prefix goes on: c is looked at again in it.
					from = i
					s.state, s.held, s.sent, s.at = scanPrefix, late, late, now
					i--
					continue
				}
			}
			if c != esc && s.mark == 0 {
				// Text, in a paste or not: on to the next ESC at once.
				if k := bytes.IndexByte(p[i:], esc); k < 0 {
					i = len(p) - 1
				} else {
					i += k - 1
				}
				continue
			}
			switch {
			case s.paste:
				s.inPaste(c)
			case s.mark > 0 && c == startMarker[s.mark]:
				if s.mark++; s.mark == len(startMarker) {
					s.paste, s.mark = true, 0
				}
			case c == esc:
				s.mark = 0
				from = i
				s.state, s.held, s.at = scanPrefix, 1, now
			default:
				s.mark = 0
			}
			continue
		case scanPrefix:
			if s.held >= 2 && (c < ' ' && c != esc || c == del) {
				// A key typed inside what may be a reply (after ESC ],
				// which no key sends with a control after it): held with
				// the prefix, in order, as inside a packet.
				if len(s.praw) == 0 {
					if from >= 0 {
						s.pass(p[start:from])
						from = -1
					}
					s.praw = append(s.praw[:0], prefix[s.sent:s.held]...)
				}
				s.praw = append(s.praw, c)
				start = i + 1
				continue
			}
			if c == prefix[s.held] {
				s.held++
				if len(s.praw) > 0 {
					s.praw = append(s.praw, c)
				}
				if s.held == len(prefix) {
					if from >= 0 {
						s.pass(p[start:from])
						from = -1
					}
					s.state, s.esc, s.paused = scanHead, false, false
					s.meta, s.data, s.keys = s.meta[:0], s.data[:0], s.keys[:0]
					s.raw = append(s.raw[:0], prefix[s.sent:]...)
					if len(s.praw) > 0 {
						s.raw = append(s.raw[:0], s.praw...)
						for _, k := range s.praw {
							if k != esc && (k < ' ' || k == del) {
								s.keys = append(s.keys, k)
							}
						}
						s.praw = s.praw[:0]
					}
					s.head, s.sent = len(s.raw), 0
					start = i + 1
				} else if from < 0 {
					start = i + 1
				}
				continue
			}
			lone := s.held == 1
			if from >= 0 {
				// Refuted where it began: its bytes pass with the run
				// they are in (an arrow key stays one write).
				s.state, s.held, s.sent, from = scanGround, 0, 0, -1
			} else {
				s.release()
				start = i
			}
			if lone && c == startMarker[1] {
				s.mark = 2 // ESC [: maybe a paste's start marker.
				continue
			}
			i-- // c is looked at again, outside any packet.
			continue
		}
		start = i + 1
		s.at = now
		if s.paused {
			s.tail = append(s.tail, c)
		}
		again := s.packetByte(c)
		if again != nil {
			s.scan(again, now)
		}
		s.resumeIfLost()
	}
	switch {
	case s.state == scanGround:
		s.pass(p[start:])
	case s.state == scanPrefix && from >= 0:
		s.pass(p[start:from]) // The prefix is held from its ESC on.
	}
}

// inPaste follows a bracketed paste by c, looking for its end marker.
func (s *Scanner) inPaste(c byte) {
	switch {
	case c == endMarker[s.mark]:
		if s.mark++; s.mark == len(endMarker) {
			s.paste, s.mark = false, 0
		}
	case c == esc:
		s.mark = 1
	default:
		s.mark = 0
	}
}

// EndPaste says that the bracketed paste under way has ended without its
// end marker (the caller's paste parser ended it after a silence): what
// follows is looked into again.
func (s *Scanner) EndPaste() { s.paste, s.mark = false, 0 }

// packetByte moves a packet on by c, and returns bytes to read again as
// input when c ends it so, or nil.
func (s *Scanner) packetByte(c byte) []byte {
	switch s.state {
	case scanHead:
		return s.headByte(c)
	case scanResume:
		return s.resumeByte(c)
	}
	if s.esc {
		s.esc = false
		if c == '\\' {
			return s.end()
		}
		return s.cut(c) // The ESC starts something else.
	}
	switch {
	case c == bel:
		return s.end()
	case c == esc:
		s.esc = true
	case c < ' ' || c == del:
		s.keys = append(s.keys, c)
	case s.state == scanBroken:
	case s.state == scanMeta && c == ';':
		s.state = scanPayload
	case s.state == scanMeta && metaChar(c) && len(s.meta) < MaxMeta:
		s.meta = append(s.meta, c)
	case s.state == scanPayload && base64Char(c) && len(s.data) < MaxPayload:
		s.data = append(s.data, c)
	default:
		return s.broken()
	}
	if len(s.tail) > maxTail {
		return s.broken()
	}
	return nil
}

// headByte moves on by c a packet not yet known to be a reply: one that
// is not passes whole, as soon as that is known.
func (s *Scanner) headByte(c byte) []byte {
	if s.esc {
		s.esc = false
		s.state = scanGround
		if c != '\\' {
			// Cut by another sequence, whose ESC is read again.
			s.pass(s.raw[:len(s.raw)-1])
			return []byte{esc, c}
		}
		s.pass(append(s.raw, c)) // Ended by ST.
		return nil
	}
	s.raw = append(s.raw, c)
	switch {
	case c == esc:
		s.esc = true
		return nil
	case c == bel:
	case c < ' ' || c == del:
		if len(s.raw) < maxHead {
			return nil
		}
	case c == replyHead[len(s.meta)]:
		if s.meta = append(s.meta, c); len(s.meta) < len(replyHead) {
			return nil
		}
		// A reply: the controls read so far are keys.
		for _, k := range s.raw[s.head:] {
			if k < ' ' || k == del {
				s.keys = append(s.keys, k)
			}
		}
		s.state = scanMeta
		return nil
	}
	s.state = scanGround
	s.pass(s.raw)
	return nil
}

// resumeByte moves on by c the input after a reply lost at its silence:
// the rest of that reply, late (a link stalled for longer than
// PacketSilence, maybe more than once), is reply characters up to ST or
// BEL, and is dropped, so that no byte of it (a one-time password)
// reaches the program; anything else (a space, Enter, any other key) was
// typed, and passes with what came before it, and so does what came when
// PacketSilence passes after it. So the letters typed right after a reply
// lost so wait for the next other key, or PacketSilence. (A link that
// stalls for PacketSilence twice inside one reply is beyond this: its
// rest then passes as keys.)
func (s *Scanner) resumeByte(c byte) []byte {
	if s.esc {
		s.esc = false
		s.state = scanGround
		if c == '\\' {
			return nil // The lost reply's rest.
		}
		s.pass(s.raw[:len(s.raw)-1])
		return []byte{esc, c}
	}
	switch {
	case c == bel:
		s.state = scanGround // The lost reply's rest.
	case c == esc:
		s.raw = append(s.raw, c)
		s.esc = true
	case (metaChar(c) || c == ';') && len(s.raw) < maxTail:
		s.raw = append(s.raw, c)
	default:
		s.state = scanGround
		s.pass(s.raw)
		return []byte{c}
	}
	return nil
}

// end ends a reply at its terminator.
func (s *Scanner) end() []byte {
	if s.state != scanBroken && s.sink.Packet(s.meta, s.data) {
		s.state = scanGround
		s.pass(s.keys)
		return nil
	}
	// Whole to its terminator, pauses or not, and no reply the Sink
	// reads: the terminal's, dropped whole.
	s.paused = false
	return s.lose()
}

// broken takes the reply for one cut short at the byte just read: after
// a pause, it ends at the pause; otherwise it is read on, and dropped, up
// to its end.
func (s *Scanner) broken() []byte {
	if s.paused {
		s.resume = true
		return s.lose()
	}
	s.state = scanBroken
	return nil
}

// resumeIfLost goes on, after a reply lost cut short, to drop what may be
// its rest (see resumeByte), once what came from its pause on is read
// again, unless that began something else.
func (s *Scanner) resumeIfLost() {
	if s.resume && s.state == scanGround {
		s.state, s.raw, s.esc = scanResume, s.raw[:0], false
	}
	s.resume = false
}

// cut ends the reply at an ESC that starts another sequence, c after it.
func (s *Scanner) cut(c byte) []byte {
	if again := s.lose(); again != nil {
		return again // From the pause on: the ESC and c among them.
	}
	return []byte{esc, c}
}

// lose drops the reply under way as cut short, passes the keys typed
// inside it, and returns what came from its first pause on, if it
// paused, to read again as input; unless the reply holds a one-time
// password (a paste event's), of which no byte may pass.
func (s *Scanner) lose() []byte {
	s.state, s.esc = scanGround, false
	s.sink.Lost()
	if !s.paused || bytes.Contains(s.meta, pwField) || bytes.Contains(s.tail, pwField) {
		s.paused = false
		s.pass(s.keys)
		return nil
	}
	s.paused = false
	s.pass(s.keys[:s.kept])
	return append([]byte(nil), s.tail...)
}

// pwField begins the password's record in a paste event's metadata.
var pwField = []byte("pw=")

// pause hears that the packet under way paused for CutGap before input
// read at now: a reply that is already broken ends there, and so does
// what may be a lost reply's rest; the first pause of any other reply is
// remembered (see Scanner).
func (s *Scanner) pause(now time.Time) {
	switch s.state {
	case scanBroken:
		pending := s.esc // It may begin what comes next.
		s.lose()
		s.resume = true
		s.resumeIfLost()
		if pending {
			s.state = scanGround
			s.scan([]byte{esc}, s.at)
		}
	case scanResume:
		// Its rest may come in parts, each after a stall.
	case scanMeta, scanPayload:
		if s.paused {
			return
		}
		s.paused, s.tailAt, s.kept = true, now, len(s.keys)
		s.tail = s.tail[:0]
		if s.esc {
			s.tail = append(s.tail, esc)
		}
	}
}

// metaChar reports whether c can be in a reply's metadata: keys, values
// (base64, ids of [a-zA-Z0-9-_+.]), '=' and ':'.
func metaChar(c byte) bool {
	return base64Char(c) || c == ':' || c == '.' || c == '_' || c == '-'
}

func base64Char(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// prefixBytes is prefix, for release to pass without converting it.
var prefixBytes = []byte(prefix)

// release passes on the held prefix, but for what passed before, and the
// keys held with it, in order: it was no packet.
func (s *Scanner) release() {
	s.state = scanGround
	if len(s.praw) > 0 {
		s.pass(s.praw)
		s.praw = s.praw[:0]
	} else {
		s.pass(prefixBytes[s.sent:s.held:s.held])
	}
	s.held, s.sent = 0, 0
}

func (s *Scanner) pass(p []byte) {
	if len(p) > 0 {
		s.sink.Pass(p)
	}
}

// Expect says whether the caller expects the terminal's replies (it has
// sent a request, and holds the user's keys meanwhile). While it does, a
// held prefix waits PacketSilence before it passes on, as a packet does,
// not termproto.EscHold: a reply split by the link right after its ESC is
// still a reply, and no key is waiting for the hold to end.
func (s *Scanner) Expect(on bool) { s.expect = on }

// prefixHold is how long a prefix is held: termproto.EscHold for ESC
// and ESC ], which are keys too (Esc, Alt+]); PacketSilence once a digit
// follows, which no key sends, or while a reply is expected.
func (s *Scanner) prefixHold() time.Duration {
	if s.expect || s.held > 2 {
		return PacketSilence
	}
	return termproto.EscHold
}

// Flush lets time pass: a prefix held for its hold (see Scanner) passes
// on, a packet silent for PacketSilence ends (see Scanner). Calling it
// early is harmless. It returns the next deadline, as Write does.
func (s *Scanner) Flush(now time.Time) time.Time {
	for {
		switch d := s.Deadline(); {
		case d.IsZero() || now.Before(d):
			return d
		case s.state == scanPrefix:
			// The prefix passes on at its hold (a lone Esc is a key), but
			// should the rest come after all, the packet is still read,
			// but for what passed: a terminal's reply split by a link that
			// stalled must not reach the program as keys.
			late := s.held
			s.release()
			s.late = late
			if late == 1 {
				s.mark = 1 // The ESC may begin a paste's start marker too.
			}
		default:
			s.stop(now)
		}
	}
}

// stop ends the packet under way where the input has stopped, at now (or
// the end of the input): a reply is lost, and what comes next may be its
// rest, late (see resumeByte).
func (s *Scanner) stop(now time.Time) {
	// An ESC last, the packet's, may begin what comes next instead: it
	// is read again, held as any ESC is.
	pending := s.esc
	switch s.state {
	case scanResume:
		// The wait for the lost reply's rest is over: what came was
		// typed.
		s.state, s.esc = scanGround, false
		s.pass(s.raw)
		return
	case scanHead:
		// Not known to be a reply, but no byte so far says it is not
		// (see headByte): taken for one cut short. The controls among its
		// bytes are keys.
		raw := s.raw[s.head:]
		if pending {
			raw = raw[:len(raw)-1]
		}
		s.state, s.esc = scanGround, false
		s.sink.Lost()
		for _, k := range raw {
			if k < ' ' || k == del {
				s.keys = append(s.keys, k)
			}
		}
		s.pass(s.keys)
	default:
		at := s.tailAt
		if again := s.lose(); again != nil {
			s.scan(again, at) // The ESC among them, if it came after the pause.
			s.resume = true
			s.resumeIfLost()
			return
		}
	}
	s.state, s.raw, s.at = scanResume, s.raw[:0], now
	if pending {
		s.state = scanGround
		s.scan([]byte{esc}, now)
	}
}

// Close ends the input: a held prefix passes on, an open packet ends as
// it does at the silence.
func (s *Scanner) Close() {
	for s.state != scanGround {
		switch s.state {
		case scanPrefix:
			s.release()
		case scanResume:
			s.stop(s.at) // Nothing more comes: it was typed.
		default:
			s.stop(s.at)
			if s.state == scanResume {
				s.state = scanGround // Nothing more comes.
			}
		}
	}
	s.late = 0
}

// Deadline is when Flush is owed, or the zero time.
func (s *Scanner) Deadline() time.Time {
	switch s.state {
	case scanGround:
		return time.Time{}
	case scanPrefix:
		return s.at.Add(s.prefixHold())
	}
	return s.at.Add(PacketSilence)
}

// HeldSince returns when the held prefix was read, or the zero time when
// none is held: the time of the bytes a Flush passes on when the prefix
// has waited its hold, so that what reads them next (a key's ESC, held
// again by the paste parser) counts its own hold from when they came, not
// from the Flush.
func (s *Scanner) HeldSince() time.Time {
	if s.state != scanPrefix {
		return time.Time{}
	}
	return s.at
}

// Idle reports whether the Scanner holds nothing: plain input passes on
// at once.
func (s *Scanner) Idle() bool {
	return s.state == scanGround || s.state == scanResume && len(s.raw) == 0 && !s.esc
}
