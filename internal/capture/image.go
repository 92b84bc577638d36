package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"time"

	"github.com/pbwrap/pbwrap/internal/imagepaste"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// ImageMode says whether Input takes kitty's paste events (OSC 5522, see
// package imagepaste), so that an image the user pastes at a terminal
// over SSH reaches the child as a saved file.
type ImageMode uint8

const (
	// ImageOff never turns paste events on: the zero value.
	ImageOff ImageMode = iota
	// ImageAuto turns them on if the terminal says it has them: Ask asks
	// (termproto.ClipQuestion, fenced by DA1), and an answer of 1 or 2
	// turns the mode on. The caller decides where to ask at all (over
	// SSH, with no multiplexer in between).
	ImageAuto
	// ImageOn turns them on from the start.
	ImageOn
)

var imageModeNames = [...]string{ImageOff: "off", ImageAuto: "auto", ImageOn: "on"}

func (m ImageMode) String() string {
	if int(m) < len(imageModeNames) {
		return imageModeNames[m]
	}
	return fmt.Sprintf("ImageMode(%d)", m)
}

// ParseImageMode reads an ImageMode by its name: auto, on or off.
func ParseImageMode(s string) (ImageMode, error) {
	for m, name := range imageModeNames {
		if s == name {
			return ImageMode(m), nil
		}
	}
	return ImageOff, fmt.Errorf("image paste mode %q: want auto, on or off", s)
}

// clip is Input's part in image paste: the scanner that takes the
// terminal's OSC 5522 packets out of the input, the policy that answers
// them, and the image being saved.
type clip struct {
	in      *Input
	scanner *kittyclip.Scanner
	paster  *imagepaste.Paster
	decided bool // ImageAuto: the terminal's answer has been heard
	// unused: ImageAuto decided against paste events, so no packet can
	// come; once the scanner holds nothing, input goes straight to keys.
	unused bool

	held []byte // input that came while a paste event was under way
	// passAt, while the scanner's Flush runs, is when the prefix it may
	// pass on was read (see flush); the zero time otherwise.
	passAt time.Time
	tell   func(func() []byte)
	img    *store.Temp
	format imagepaste.Format
	hash   hash.Hash
	size   int64
}

func newClip(in *Input) *clip {
	c := &clip{in: in}
	c.scanner = kittyclip.NewScanner(clipScan{c})
	c.paster = imagepaste.New(c, imagepaste.Config{Debugf: in.cfg.Debugf})
	if in.cfg.Image == ImageOn {
		c.paster.Enable() // TerminalSetup writes the mode (see ImageSetup).
		c.decided = true
	}
	return c
}

// SetTell implements ptyproxy.Teller: tell writes pbwrap's own requests
// to the terminal.
func (in *Input) SetTell(tell func(f func() []byte)) {
	if in.clip != nil {
		in.clip.tell = tell
	}
}

// ImageSetup returns what turns paste events on at the terminal when
// Input has them on, for what takes the terminal over (at start, on fg);
// ImageReset what turns them off, for what gives it back (every way out,
// Ctrl-Z). Both are safe for concurrent use.
func (in *Input) ImageSetup() []byte {
	if in.clip != nil && in.clip.paster.On() {
		return []byte(kittyclip.ModeOn)
	}
	return nil
}

// ImageReset: see ImageSetup.
func (in *Input) ImageReset() []byte {
	if in.clip != nil && in.clip.paster.On() {
		return []byte(kittyclip.ModeOff)
	}
	return nil
}

// ImageOff says why image paste is off after a failure, or "".
func (in *Input) ImageOff() string {
	if in.clip == nil {
		return ""
	}
	return in.clip.paster.Reason()
}

// write scans input from the terminal: packets to the policy, the rest
// on to the paste parser, held while a paste event is under way.
func (c *clip) write(p []byte, now time.Time) { c.scanner.Write(p, now) }

// scanning reports whether input must go through the scanner: unless
// paste events are unused and the scanner holds nothing.
func (c *clip) scanning() bool { return !c.unused || c.busy() }

// flush lets time pass for the scanner and the policy.
func (c *clip) flush(now time.Time) {
	// A prefix the scanner passes on now (a lone Esc) was read at
	// HeldSince: the keys after it wait from then, not twice EscHold.
	c.passAt = c.scanner.HeldSince()
	c.scanner.Flush(now)
	c.passAt = time.Time{}
	c.paster.Flush(now)
	c.release()
}

// deadline is the earliest of the scanner's and the policy's.
func (c *clip) deadline() time.Time {
	return earliest(c.scanner.Deadline(), c.paster.Deadline())
}

// busy reports whether input is held: a packet or a paste event is under
// way, or a prefix of one.
func (c *clip) busy() bool { return !c.scanner.Idle() || c.paster.Busy() || len(c.held) > 0 }

// release passes on the input held during a paste event, once it is over;
// while it is not, the scanner expects the terminal's replies.
func (c *clip) release() {
	c.scanner.Expect(c.paster.Busy())
	if c.paster.Busy() || len(c.held) == 0 {
		return
	}
	held := c.held
	c.held = nil
	c.in.keys(held, c.in.now)
}

// heard turns paste events on with ImageAuto once the terminal has said
// it has them (DECRQM 1 or 2 for mode 5522), or decides against them when
// it has answered DA1 without that, or not at all within AnswerWait.
func (c *clip) heard(now time.Time) {
	in := c.in
	if c.decided || in.cfg.Image != ImageAuto || in.askedAt.IsZero() {
		return
	}
	switch a := in.replies.Clip(); {
	case a == termproto.ModeSet || a == termproto.ModeReset:
		c.decided = true
		in.cfg.Debugf("image paste: the terminal has paste events (DECRQM 5522 %c): on", a)
		c.terminal(c.paster.Enable())
	case a != termproto.ModeUnanswered || in.replies.Done() || !now.Before(in.askedAt.Add(AnswerWait)):
		c.decided, c.unused = true, true
		in.cfg.Debugf("image paste: the terminal has no paste events (DECRQM 5522 %s): off", answerName(a))
	}
}

func answerName(a byte) string {
	if a == termproto.ModeUnanswered {
		return "no answer"
	}
	return string(a)
}

// terminal writes p to the terminal, between two of the child's
// sequences (Config.Between).
func (c *clip) terminal(p []byte) {
	if len(p) == 0 {
		return
	}
	if c.tell == nil {
		c.in.cfg.Logf("image paste: no way to write to the terminal")
		return
	}
	between := c.in.cfg.Between
	c.tell(func() []byte {
		if between == nil {
			return p
		}
		return between(p)
	})
}

// clipScan is the scanner's Sink.
type clipScan struct{ c *clip }

func (s clipScan) Pass(p []byte) {
	if s.c.paster.Busy() {
		s.c.held = append(s.c.held, p...)
		return
	}
	s.c.release()
	at := s.c.in.now
	if !s.c.passAt.IsZero() {
		at = s.c.passAt
	}
	s.c.in.keys(p, at)
}

func (s clipScan) Packet(meta, payload []byte) {
	pk, err := kittyclip.Parse(meta, payload)
	if err != nil {
		s.c.in.cfg.Debugf("image paste: dropped a packet: %d bytes of metadata that do not parse", len(meta))
		return
	}
	s.c.paster.Packet(pk, s.c.in.now)
	s.c.release()
}

func (s clipScan) Lost() {
	s.c.in.cfg.Debugf("image paste: a packet from the terminal was cut off")
	s.c.paster.Lost(s.c.in.now)
	s.c.release()
}

// Terminal implements imagepaste.Sink.
func (c *clip) Terminal(p []byte) { c.terminal(p) }

// TextStart implements imagepaste.Sink: clipboard text goes the way of a
// bracketed paste from the terminal.
func (c *clip) TextStart()        { c.in.startPaste(false) }
func (c *clip) TextData(p []byte) { c.in.PasteData(p) }
func (c *clip) TextEnd()          { c.in.PasteEnd() }

// Note implements imagepaste.Sink: the note is typed into the child.
func (c *clip) Note(line string) {
	c.in.cfg.Logf("image paste: %s", line)
	c.in.send([]byte(line))
}

// ImageStart implements imagepaste.Sink: a temp file in the session.
func (c *clip) ImageStart(f imagepaste.Format) error {
	sess, err := c.in.session()
	if err != nil {
		return err
	}
	t, err := sess.CreateTemp()
	if err != nil {
		return err
	}
	c.img, c.format, c.hash, c.size = t, f, sha256.New(), 0
	return nil
}

// ImageData implements imagepaste.Sink.
func (c *clip) ImageData(p []byte) error {
	if _, err := c.img.Write(p); err != nil {
		return err
	}
	c.hash.Write(p)
	c.size += int64(len(p))
	return nil
}

// ImageAbort implements imagepaste.Sink.
func (c *clip) ImageAbort() {
	if c.img != nil {
		_ = c.img.Discard() // Best effort: a leftover .tmp- file is cleaned with its session.
		c.img = nil
	}
}

// ImageEnd implements imagepaste.Sink: the image is converted if it must
// be, committed as the session's next image file, recorded, and its path
// typed into the child as one paste.
func (c *clip) ImageEnd() error {
	if c.format.Convert {
		if err := c.convert(); err != nil {
			return err
		}
	}
	n, path, err := c.in.sess.CommitImage(c.img, c.format.Ext)
	if err != nil {
		return err
	}
	c.img = nil
	bracketedMode, reason := false, "the child ended during the paste"
	if !c.in.gone {
		bracketedMode, reason = c.in.deliver([]byte(path)), ""
	}
	c.in.cfg.Logf("image paste: %d bytes saved as %s (bracketed %v)", c.size, path, bracketedMode)
	c.in.record(store.PasteRecord{
		N: n, Path: path, Bytes: c.size, SHA256: hex.EncodeToString(c.hash.Sum(nil)), Time: c.in.now,
		Bracketed: bracketedMode, Outcome: store.OutcomeImage, Reason: reason,
	}, true)
	return nil
}

// convert replaces the saved TIFF or BMP with its PNG.
func (c *clip) convert() error {
	r, err := c.img.Open()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	r.Close() // Best effort: only read.
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := imagepaste.ToPNG(&out, data); err != nil {
		return err
	}
	t, err := c.in.sess.CreateTemp()
	if err != nil {
		return err
	}
	if _, err := t.Write(out.Bytes()); err != nil {
		_ = t.Discard() // Best effort.
		return err
	}
	_ = c.img.Discard() // Best effort.
	c.img, c.hash, c.size = t, sha256.New(), int64(out.Len())
	c.hash.Write(out.Bytes())
	return nil
}

// close ends the input: a held prefix passes on, a packet cut off is
// lost (and with it a paste event under way), held input goes on.
func (c *clip) close() {
	c.scanner.Close()
	if c.paster.Busy() {
		c.paster.Lost(c.in.now)
	}
	c.release()
}
