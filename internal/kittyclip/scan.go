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
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// Limits of one packet. kitty sends at most 4096 bytes of data a packet
// (5464 base64 characters) and a few short metadata records; a packet
// past either limit is no packet pbwrap asked for, and is dropped whole.
const (
	MaxMeta    = 4 << 10
	MaxPayload = 256 << 10
)

// PacketSilence is how long a packet that has begun may pause before the
// Scanner gives it up as lost: a terminal writes each packet in one go, so
// a pause this long is a reply cut off (a terminal that died, a link that
// dropped it), not a slow one.
const PacketSilence = 5 * time.Second

// prefix is what begins every packet.
const prefix = "\x1b]5522;"

const (
	esc = 0x1b
	bel = 0x07
	can = 0x18
	sub = 0x1a
)

// A Sink receives what a Scanner reads, in the order it was read.
type Sink interface {
	// Pass gets input that is no packet: keys, pastes, other replies.
	Pass(p []byte)
	// Packet gets one whole packet: its metadata and payload without the
	// prefix, the ';' between them and the terminator. The slices are
	// valid only during the call.
	Packet(meta, payload []byte)
	// Lost says that a packet that had begun was dropped: too long, cut
	// by CAN, SUB or another escape sequence, or silent for PacketSilence
	// (see Flush), or left open by Close.
	Lost()
}

type scanState uint8

const (
	scanGround  scanState = iota // outside any packet
	scanPrefix                   // held: a proper prefix of "ESC ] 5522 ;"
	scanMeta                     // in a packet, in its metadata
	scanPayload                  // in a packet, after the ';' that ends the metadata
	scanEsc                      // in a packet, after an ESC: ST if '\' follows
)

// A Scanner takes OSC 5522 packets out of the terminal's input and passes
// everything else on, whole and in order: passed bytes and packets
// together are exactly the input, but for what Lost drops. Any chunking of
// the input gives the same events. A proper prefix of "ESC ] 5522 ;" at
// the end of a Write is held until the next Write completes or refutes it,
// or, for ESC and ESC ] (keys too), termproto.EscHold passes (a lone Esc
// key stays responsive); a longer prefix and a packet are held until
// their end, or until PacketSilence passes.
//
// A Scanner is not safe for concurrent use. The zero value is not usable:
// NewScanner gives one.
type Scanner struct {
	sink  Sink
	state scanState
	held  int // of prefix, in scanPrefix
	meta  []byte
	data  []byte
	over  bool // the packet is past its limits: dropped at its end
	// expect: a reply is expected, so a held prefix waits PacketSilence
	// (see Expect).
	expect bool
	at     time.Time
}

// NewScanner returns a Scanner that reports to sink.
func NewScanner(sink Sink) *Scanner { return &Scanner{sink: sink} }

// Write scans p, read at now, and returns when Flush is owed if nothing
// more is read, or the zero time.
func (s *Scanner) Write(p []byte, now time.Time) time.Time {
	start := 0 // of the run of p that passes on
	from := -1 // where in p the prefix under way began, if it began in p
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch s.state {
		case scanGround:
			if c == esc {
				from = i
				s.state, s.held, s.at = scanPrefix, 1, now
			}
			continue
		case scanPrefix:
			if c == prefix[s.held] {
				s.held++
				if s.held == len(prefix) {
					if from >= 0 {
						s.pass(p[start:from])
						from = -1
					}
					s.state, s.meta, s.data, s.over = scanMeta, s.meta[:0], s.data[:0], false
					start = i + 1
				} else if from < 0 {
					start = i + 1
				}
				continue
			}
			if from >= 0 {
				// Refuted where it began: its bytes pass with the run
				// they are in (an arrow key stays one write).
				s.state, s.held, from = scanGround, 0, -1
			} else {
				s.release()
				start = i
			}
			i-- // c is looked at again, outside any packet.
			continue
		}
		s.at = now
		if s.state == scanEsc && c != '\\' {
			// The ESC starts something else: the packet is cut, and the
			// ESC, held, and c are looked at again as new input.
			s.lose()
			s.state, s.held = scanPrefix, 1
			i--
			start = i + 1
			continue
		}
		s.body(c)
		start = i + 1
	}
	switch {
	case s.state == scanGround:
		s.pass(p[start:])
	case s.state == scanPrefix && from >= 0:
		s.pass(p[start:from]) // The prefix is held from its ESC on.
	}
	return s.Deadline()
}

// body moves a packet on by c.
func (s *Scanner) body(c byte) {
	switch {
	case s.state == scanEsc: // c is '\\': ST.
		s.end()
	case c == bel:
		s.end()
	case c == esc:
		s.state = scanEsc
	case c == can || c == sub:
		s.lose() // They cancel a control string, and are consumed.
	case s.state == scanMeta && c == ';':
		s.state = scanPayload
	case s.state == scanMeta:
		if len(s.meta) < MaxMeta {
			s.meta = append(s.meta, c)
		} else {
			s.over = true
		}
	default:
		if len(s.data) < MaxPayload {
			s.data = append(s.data, c)
		} else {
			s.over = true
		}
	}
}

// end ends the packet at its terminator.
func (s *Scanner) end() {
	s.state = scanGround
	if s.over {
		s.sink.Lost()
		return
	}
	s.sink.Packet(s.meta, s.data)
}

// lose drops the packet under way.
func (s *Scanner) lose() {
	s.state = scanGround
	s.sink.Lost()
}

// prefixBytes is prefix, for release to pass without converting it.
var prefixBytes = []byte(prefix)

// release passes on the held prefix: it was no packet.
func (s *Scanner) release() {
	s.state = scanGround
	s.pass(prefixBytes[:s.held:s.held])
	s.held = 0
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
// on, a packet silent for PacketSilence is lost. Calling it early is harmless.
// It returns the next deadline, as Write does.
func (s *Scanner) Flush(now time.Time) time.Time {
	switch s.state {
	case scanGround:
	case scanPrefix:
		if !now.Before(s.at.Add(s.prefixHold())) {
			s.release()
		}
	default:
		if !now.Before(s.at.Add(PacketSilence)) {
			s.lose()
		}
	}
	return s.Deadline()
}

// Close ends the input: a held prefix passes on, an open packet is lost.
func (s *Scanner) Close() {
	switch s.state {
	case scanGround:
	case scanPrefix:
		s.release()
	default:
		s.lose()
	}
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
func (s *Scanner) Idle() bool { return s.state == scanGround }

// InPacket reports whether a packet has begun and not ended.
func (s *Scanner) InPacket() bool { return s.state >= scanMeta }
