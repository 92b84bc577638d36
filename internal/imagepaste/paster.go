// Package imagepaste is pbwrap's policy for kitty's paste events (OSC
// 5522): given the packets the terminal sends and the time, a Paster
// decides what to write to the terminal (the one read that answers each
// paste event, the mode off after a failure) and what the child gets (a
// text paste, an image to save and type the path of, a one-line note).
// It does no I/O of its own: its Sink does, and has no clock: the caller
// passes the time and calls Flush at the deadline it is given.
//
// Sniff tells the image formats by their first bytes; CheckPNG, Check and
// Convert make sure that what is saved is a whole, valid image, decoding
// it within MaxDecoded bytes (a PNG as it streams in), and convert TIFF
// and BMP to PNG.
//
// The rules it keeps (see doc and kitty's clipboard.py): one read per
// paste event, sent at once (or, for an event that comes during another's
// read, when that read is over), with the event's one-time password
// echoed as received and a name, never reused and never given out;
// nothing read without an event; on a denial, a timeout, a lost reply, a
// clipboard with nothing it takes or an image that is not whole, the mode
// goes off for the session, and an event that comes while it is off
// turns it off at the terminal again.
package imagepaste

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/printable"
)

// Defaults of Config.
const (
	// DefaultMaxBytes caps a saved image: 32 MiB, several times a 5K
	// screenshot as PNG; the agents refuse far less (crush 5 MB).
	DefaultMaxBytes = 32 << 20
	// DefaultTimeout is how long a paste event or its read may go
	// without a packet before it is given up: the terminal answers at
	// once, over a network in its round trip.
	DefaultTimeout = 5 * time.Second
)

// ReadName is the name a read carries with the password: kitty takes a
// password only with a name, and shows the name if it asks after all.
const ReadName = "pbwrap"

// The types a Paster reads, in order of preference: text goes through
// pbwrap's paste path; images are saved (TIFF and BMP converted).
var (
	textTypes  = []string{"text/plain;charset=utf-8", "text/plain"}
	imageTypes = []string{"image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp", "image/tiff", "image/bmp"}
)

// A Sink carries out what a Paster decides. Text arrives as a terminal
// sends a paste: newlines as CR, and never the end marker ESC [ 201 ~.
// An image arrives as its bytes, after Sniff has told its format; an
// error from the Sink fails the paste as the terminal's would.
type Sink interface {
	Terminal(p []byte) // write to the user's terminal
	TextStart()
	TextData(p []byte)
	TextEnd()
	ImageStart(f Format) error
	ImageData(p []byte) error
	ImageEnd() error // save it and type its path
	ImageAbort()     // drop what ImageStart began
	Note(line string)
}

// Config is the policy of one session.
type Config struct {
	MaxBytes int64         // zero means DefaultMaxBytes
	Timeout  time.Duration // zero means DefaultTimeout
	// Debugf hears what happens, never a password nor the clipboard's
	// content. It may be nil.
	Debugf func(format string, args ...any)
}

type state uint8

const (
	stateOff     state = iota // paste events are not taken
	stateIdle                 // on, with no read under way
	stateReading              // a read is under way
)

// maxEvents bounds the paste events a Paster keeps while it reads the
// clipboard for an earlier one: a person pastes a few times a second at
// most.
const maxEvents = 4

// A pasteEvent is a paste event as it arrives: OK, then the types in
// DATA packets, then DONE.
type pasteEvent struct {
	pw      string
	primary bool
	types   []string
	done    bool
	last    time.Time // its last packet
}

// A Paster follows paste events and their reads. It is not safe for
// concurrent use, except On and Ever.
type Paster struct {
	cfg  Config
	sink Sink

	state  state
	on     atomic.Bool // the terminal has the mode on, by pbwrap's doing
	ever   atomic.Bool // ... or had it on at some time
	reason string      // why it went off, once it has failed

	// The events that have come and wait for their read, in order.
	events []*pasteEvent

	// The read under way.
	id      string
	text    bool
	head    []byte // an image's first bytes, until its format is told
	started bool   // ImageStart or TextStart was called
	bytes   int64
	last    time.Time // the read's last packet
	n       int
	norm    textNorm
}

// New returns a Paster that is off: Enable turns it on.
func New(sink Sink, cfg Config) *Paster {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Debugf == nil {
		cfg.Debugf = func(string, ...any) {}
	}
	return &Paster{cfg: cfg, sink: sink}
}

// Enable turns paste events on, unless a failure turned them off for
// the session: it returns what turns the mode on at the terminal
// (kittyclip.ModeOn), for the caller to write, or nil.
func (p *Paster) Enable() []byte {
	if p.reason != "" || p.state != stateOff {
		return nil
	}
	p.state = stateIdle
	p.on.Store(true)
	p.ever.Store(true)
	return []byte(kittyclip.ModeOn)
}

// On reports whether the mode is on at the terminal by pbwrap's doing:
// what takes the terminal over sets it again. Safe for concurrent use.
func (p *Paster) On() bool { return p.on.Load() }

// Ever reports whether pbwrap has turned the mode on at the terminal in
// this session: what gives the terminal back resets it then, even once it
// is off, in case the reset written at the failure has not reached the
// terminal. Safe for concurrent use.
func (p *Paster) Ever() bool { return p.ever.Load() }

// Reason says why paste events went off after a failure, or "".
func (p *Paster) Reason() string { return p.reason }

// Busy reports whether a paste event or its read is under way: input the
// user types meanwhile must wait for it, to keep its order.
func (p *Paster) Busy() bool { return p.state == stateReading || len(p.events) > 0 }

// Deadline is when Flush is owed, or the zero time: Config.Timeout after
// the last packet of the read or event under way.
func (p *Paster) Deadline() time.Time {
	var d time.Time
	if p.state == stateReading {
		d = p.last.Add(p.cfg.Timeout)
	}
	for _, e := range p.events {
		if at := e.last.Add(p.cfg.Timeout); !e.done && (d.IsZero() || at.Before(d)) {
			d = at
		}
	}
	return d
}

// Heard says that the terminal sent input at now: an event or read under
// way is not given up while the terminal sends, since its reply comes
// after what the terminal sends first (a large paste, typed keys).
func (p *Paster) Heard(now time.Time) {
	if p.state == stateReading {
		p.last = now
	}
	for _, e := range p.events {
		e.last = now
	}
}

// Flush lets time pass: an event or read silent for Config.Timeout fails.
func (p *Paster) Flush(now time.Time) {
	if d := p.Deadline(); !d.IsZero() && !now.Before(d) {
		p.fail("the terminal did not answer within " + p.cfg.Timeout.String())
	}
}

// Lost hears that a packet was cut off (kittyclip.Sink.Lost): a read
// or an event under way has lost its data.
func (p *Paster) Lost(now time.Time) {
	if p.Busy() {
		p.fail("a reply from the terminal was cut off")
	}
}

// Packet takes one packet from the terminal, at now. Packets that answer
// nothing pbwrap asked (a read given up, another program's) are dropped.
// A paste event that pbwrap cannot answer (image paste is off, or it came
// in part) turns the mode off at the terminal, so that the user's next
// paste is the terminal's own, and says so in a note.
func (p *Paster) Packet(pk kittyclip.Packet, now time.Time) {
	if pk.Type != "read" {
		return
	}
	if pk.ID == "" && pk.PW != "" {
		p.event(pk, now)
		return
	}
	if p.state != stateReading || pk.ID != p.id {
		return
	}
	p.last = now
	switch pk.Status {
	case kittyclip.StatusOK:
	case kittyclip.StatusData:
		p.data(pk)
	case kittyclip.StatusDone:
		p.done()
		p.next(now)
	default:
		p.fail("the terminal answered " + shown(pk.Status) + " to the clipboard read")
	}
}

// event takes one packet of a paste event (no id, a password).
func (p *Paster) event(pk kittyclip.Packet, now time.Time) {
	var e *pasteEvent
	for _, x := range p.events {
		if x.pw == pk.PW {
			e = x
		}
	}
	switch {
	case p.state == stateOff:
		if pk.Status == kittyclip.StatusOK {
			p.refuse("kitty sent a paste event, and image paste is off")
		}
		return
	case e == nil && pk.Status != kittyclip.StatusOK:
		p.fail("a paste event from the terminal came in part")
		return
	case e == nil && len(p.events) == maxEvents:
		p.fail("more paste events came than pbwrap keeps while it reads the clipboard")
		return
	case e == nil:
		e = &pasteEvent{pw: pk.PW, primary: pk.Loc == "primary"}
		p.events = append(p.events, e)
	}
	e.last = now
	switch pk.Status {
	case kittyclip.StatusOK:
		if e.done || len(e.types) > 0 {
			p.fail("a paste event's password came twice")
		}
	case kittyclip.StatusData:
		if pk.MIME == kittyclip.ListMIME {
			types, err := pk.Types()
			if err != nil {
				p.fail("the terminal's list of clipboard types is not base64")
				return
			}
			e.types = append(e.types, types...)
		}
	case kittyclip.StatusDone:
		e.done = true
		p.next(now)
	default:
		p.fail("the terminal answered " + shown(pk.Status))
	}
}

// next answers the first event that has ended, when no read is under way.
func (p *Paster) next(now time.Time) {
	for p.state == stateIdle && len(p.events) > 0 && p.events[0].done {
		e := p.events[0]
		p.events = p.events[1:]
		p.read(e, now)
	}
}

// read answers the paste event e, which has ended: one read, at once, of
// the first type pbwrap takes. An empty clipboard needs none.
func (p *Paster) read(e *pasteEvent, now time.Time) {
	mime, text := choose(e.types)
	if len(e.types) == 0 {
		p.cfg.Debugf("image paste: the clipboard is empty")
		return
	}
	if mime == "" {
		p.fail("the clipboard holds none of text, PNG, JPEG, GIF, WebP, TIFF, BMP (it has " + shown(strings.Join(e.types, " ")) + ")")
		return
	}
	p.n++
	p.id = "pbwrap-" + strconv.Itoa(p.n)
	req, err := kittyclip.AppendRead(nil, kittyclip.Read{ID: p.id, PW: e.pw, Name: ReadName, Primary: e.primary, MIME: []string{mime}})
	e.pw = "" // Used once, here.
	if err != nil {
		p.fail("the paste event's password is not base64")
		return
	}
	p.state, p.text, p.head, p.started, p.bytes, p.last = stateReading, text, p.head[:0], false, 0, now
	p.norm = textNorm{}
	p.cfg.Debugf("image paste: paste event: reading %s (%s)", mime, p.id)
	p.sink.Terminal(req)
}

// choose picks the type to read: text first, since a clipboard with text
// is a text paste; then the first image type in order of preference.
func choose(types []string) (mime string, text bool) {
	for _, want := range textTypes {
		for _, t := range types {
			if strings.EqualFold(t, want) {
				return t, true
			}
		}
	}
	for _, want := range imageTypes {
		for _, t := range types {
			if strings.EqualFold(t, want) {
				return t, false
			}
		}
	}
	return "", false
}

// data takes one DATA packet of the read.
func (p *Paster) data(pk kittyclip.Packet) {
	b, err := pk.Data(nil)
	if err != nil {
		p.fail("the terminal sent data that is not base64")
		return
	}
	p.bytes += int64(len(b))
	if p.text {
		if !p.started {
			p.started = true
			p.sink.TextStart()
		}
		if out := p.norm.write(nil, b); len(out) > 0 {
			p.sink.TextData(out)
		}
		return
	}
	if p.bytes > p.cfg.MaxBytes {
		p.fail(fmt.Sprintf("the image is larger than %d MiB", p.cfg.MaxBytes>>20))
		return
	}
	if !p.started {
		p.head = append(p.head, b...)
		if len(p.head) < SniffLen {
			return
		}
		b = p.head
		if !p.start() {
			return
		}
	}
	if err := p.sink.ImageData(b); err != nil {
		p.fail(imageReason(err))
	}
}

// imageReason says why saving the image failed, for the note: what is
// wrong with the image, or with saving it.
func imageReason(err error) string {
	if r := Reason(err); r != "" {
		return r
	}
	return "saving the image: " + err.Error()
}

// start tells the image's format from its first bytes and starts saving
// it; false when it failed.
func (p *Paster) start() bool {
	f, ok := Sniff(p.head)
	if !ok {
		p.fail("the clipboard image is in no format pbwrap takes (PNG, JPEG, GIF, WebP, TIFF, BMP)")
		return false
	}
	if err := p.sink.ImageStart(f); err != nil {
		p.fail(imageReason(err))
		return false
	}
	p.started = true
	return true
}

// done ends the read.
func (p *Paster) done() {
	if p.text {
		p.state = stateIdle
		if !p.started {
			return // Empty text: nothing to paste.
		}
		p.started = false
		if out := p.norm.flush(nil); len(out) > 0 {
			p.sink.TextData(out)
		}
		p.sink.TextEnd()
		p.cfg.Debugf("image paste: %s: %d bytes of text", p.id, p.bytes)
		return
	}
	if !p.started { // An image shorter than SniffLen.
		if len(p.head) == 0 {
			p.fail("the terminal sent no image data")
			return
		}
		if !p.start() {
			return
		}
		if err := p.sink.ImageData(p.head); err != nil {
			p.fail(imageReason(err))
			return
		}
	}
	if err := p.sink.ImageEnd(); err != nil {
		p.fail(imageReason(err))
		return
	}
	p.started = false
	p.state = stateIdle
	p.cfg.Debugf("image paste: %s: %d bytes of image saved", p.id, p.bytes)
}

// fail gives up the events and the read under way and turns paste
// events off for the session.
func (p *Paster) fail(reason string) {
	if p.started {
		if p.text {
			p.sink.TextEnd() // What came is delivered; nothing is lost.
		} else {
			p.sink.ImageAbort()
		}
	}
	p.started = false
	p.events = nil // Their passwords with them.
	p.turnOff(reason)
}

// Fail turns paste events off for the session as a failure of a read
// does, for what fails once the read is over (an image found not to be
// whole when it was checked after it came): the mode goes off at the
// terminal and the note is typed. An event or read under way is given up.
func (p *Paster) Fail(reason string) {
	if p.state != stateOff || len(p.events) > 0 {
		p.fail(reason)
		return
	}
	p.turnOff(reason)
}

// turnOff turns paste events off for the session, at the terminal too,
// and types the one-line note into the child.
func (p *Paster) turnOff(reason string) {
	p.state = stateOff
	if p.reason == "" {
		p.reason = reason
	}
	p.cfg.Debugf("image paste: off for this session: %s", reason)
	if p.on.Swap(false) {
		p.sink.Terminal([]byte(kittyclip.ModeOff))
	}
	p.sink.Note("[pbwrap: image paste is off for this session: " + reason + "; paste again for the terminal's own paste]")
}

// refuse answers a paste event that comes while image paste is off (the
// mode left on at the terminal by another program, or the reset written
// at a failure not yet read): the mode goes off at the terminal again,
// and a note says to paste again, for the terminal's own paste. The
// event itself, its password, is dropped.
func (p *Paster) refuse(why string) {
	p.cfg.Debugf("image paste: %s: turning paste events off at the terminal", why)
	p.sink.Terminal([]byte(kittyclip.ModeOff))
	p.sink.Note("[pbwrap: " + why + "; paste events are off now: paste again for the terminal's own paste]")
}

// shown is what the terminal said, its first 80 bytes, made safe for a
// one-line note.
func shown(s string) string { return printable.Inline(s[:min(len(s), 80)]) }
