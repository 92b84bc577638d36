// Package imagepaste is pbwrap's policy for kitty's paste events (OSC
// 5522): given the packets the terminal sends and the time, a Paster
// decides what to write to the terminal (the one read that answers each
// paste event, the mode off after a failure) and what the child gets (a
// text paste, an image to save and type the path of, a one-line note).
// It does no I/O of its own: its Sink does, and has no clock: the caller
// passes the time and calls Flush at the deadline it is given. Sniff and
// ToPNG tell and convert the image formats.
//
// The rules it keeps (see doc and kitty's clipboard.py): one read per
// paste event, sent at once, with the event's one-time password echoed
// as received and a name, never reused and never given out; nothing read
// without an event; on a denial, a timeout, a lost reply or a clipboard
// with nothing it takes, the mode goes off for the session.
package imagepaste

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pbwrap/pbwrap/internal/kittyclip"
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
	stateIdle                 // on, waiting for a paste event
	stateEvent                // a paste event is arriving
	stateReading              // its read is under way
)

// A Paster follows paste events and their reads. It is not safe for
// concurrent use, except On and TakeTurnOn.
type Paster struct {
	cfg  Config
	sink Sink

	state  state
	on     atomic.Bool // the terminal has the mode on, by pbwrap's doing
	reason string      // why it went off, once it has failed

	// The event or read under way.
	pw      string
	primary bool
	types   []string
	id      string
	text    bool
	head    []byte // an image's first bytes, until its format is told
	started bool   // ImageStart or TextStart was called
	bytes   int64
	last    time.Time // the last packet of the event or read
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
	return []byte(kittyclip.ModeOn)
}

// On reports whether the mode is on at the terminal by pbwrap's doing:
// what takes the terminal over sets it again, what gives it back resets
// it. Safe for concurrent use.
func (p *Paster) On() bool { return p.on.Load() }

// Reason says why paste events went off after a failure, or "".
func (p *Paster) Reason() string { return p.reason }

// Busy reports whether a paste event or its read is under way: input the
// user types meanwhile must wait for it, to keep its order.
func (p *Paster) Busy() bool { return p.state == stateEvent || p.state == stateReading }

// Deadline is when Flush is owed, or the zero time.
func (p *Paster) Deadline() time.Time {
	if !p.Busy() {
		return time.Time{}
	}
	return p.last.Add(p.cfg.Timeout)
}

// Flush lets time pass: an event or read silent for Config.Timeout fails.
func (p *Paster) Flush(now time.Time) {
	if p.Busy() && !now.Before(p.Deadline()) {
		p.fail("the terminal did not answer within " + p.cfg.Timeout.String())
	}
}

// Lost hears that a packet was cut off (kittyclip.Sink.Lost): a read
// under way has lost its data.
func (p *Paster) Lost(now time.Time) {
	if p.Busy() {
		p.fail("a reply from the terminal was cut off")
	}
}

// Packet takes one packet from the terminal, at now. Packets that answer
// nothing pbwrap asked (a read given up, paste events while off) are
// dropped.
func (p *Paster) Packet(pk kittyclip.Packet, now time.Time) {
	if pk.Type != "read" {
		return
	}
	switch p.state {
	case stateIdle:
		if pk.ID == "" && pk.Status == kittyclip.StatusOK && pk.PW != "" {
			p.state, p.pw, p.primary, p.types, p.last = stateEvent, pk.PW, pk.Loc == "primary", nil, now
		}
	case stateEvent:
		if pk.ID != "" || pk.PW != p.pw {
			return
		}
		p.last = now
		switch pk.Status {
		case kittyclip.StatusData:
			if pk.MIME == kittyclip.ListMIME {
				types, err := pk.Types()
				if err != nil {
					p.fail("the terminal's list of clipboard types is not base64")
					return
				}
				p.types = append(p.types, types...)
			}
		case kittyclip.StatusDone:
			p.read(now)
		case kittyclip.StatusOK:
		default:
			p.fail("the terminal answered " + printable(pk.Status))
		}
	case stateReading:
		if pk.ID != p.id {
			return
		}
		p.last = now
		switch pk.Status {
		case kittyclip.StatusOK:
		case kittyclip.StatusData:
			p.data(pk)
		case kittyclip.StatusDone:
			p.done()
		default:
			p.fail("the terminal answered " + printable(pk.Status) + " to the clipboard read")
		}
	}
}

// read answers the paste event that has ended: one read, at once, of the
// first type pbwrap takes. An empty clipboard needs none.
func (p *Paster) read(now time.Time) {
	pw := p.pw
	p.pw = "" // Used once, here.
	mime, text := choose(p.types)
	if len(p.types) == 0 {
		p.cfg.Debugf("image paste: the clipboard is empty")
		p.state = stateIdle
		return
	}
	if mime == "" {
		p.fail("the clipboard holds none of text, PNG, JPEG, GIF, WebP, TIFF, BMP (it has " + printable(strings.Join(p.types, " ")) + ")")
		return
	}
	p.n++
	p.id = "pbwrap-" + strconv.Itoa(p.n)
	req, err := kittyclip.AppendRead(nil, kittyclip.Read{ID: p.id, PW: pw, Name: ReadName, Primary: p.primary, MIME: []string{mime}})
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
		p.fail("saving the image: " + err.Error())
	}
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
		p.fail("saving the image: " + err.Error())
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
			p.fail("saving the image: " + err.Error())
			return
		}
	}
	if err := p.sink.ImageEnd(); err != nil {
		p.fail("saving the image: " + err.Error())
		return
	}
	p.started = false
	p.state = stateIdle
	p.cfg.Debugf("image paste: %s: %d bytes of image saved", p.id, p.bytes)
}

// fail gives up the event or read under way and turns paste events off
// for the session.
func (p *Paster) fail(reason string) {
	if p.started {
		if p.text {
			p.sink.TextEnd() // What came is delivered; nothing is lost.
		} else {
			p.sink.ImageAbort()
		}
	}
	p.started = false
	p.pw = ""
	p.turnOff(reason)
}

// turnOff turns paste events off for the session, at the terminal too,
// and types the one-line note into the child.
func (p *Paster) turnOff(reason string) {
	p.state, p.reason = stateOff, reason
	p.cfg.Debugf("image paste: off for this session: %s", reason)
	if p.on.Swap(false) {
		p.sink.Terminal([]byte(kittyclip.ModeOff))
	}
	p.sink.Note("[pbwrap: image paste is off for this session: " + reason + "; paste again for the terminal's own paste]")
}

// Disable turns paste events off for the session without a note (the
// session ends): it returns what resets the mode at the terminal, or nil.
func (p *Paster) Disable() []byte {
	p.state = stateOff
	if p.on.Swap(false) {
		return []byte(kittyclip.ModeOff)
	}
	return nil
}

// printable is s with every byte that is not printable ASCII as '?', at
// most 80 of them: what the terminal said, fit for a one-line note.
func printable(s string) string {
	b := []byte(s[:min(len(s), 80)])
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '?'
		}
	}
	return string(b)
}
