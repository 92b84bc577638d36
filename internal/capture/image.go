package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"

	"github.com/pbwrap/pbwrap/internal/imagepaste"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/store"
)

// ImageMode says whether Input takes kitty's paste events (OSC 5522, see
// package imagepaste), so that an image the user pastes at a terminal
// over SSH reaches the child as a saved file.
type ImageMode uint8

const (
	// ImageOff never turns paste events on: the zero value. The
	// terminal's OSC 5522 replies are still taken out of the input, and a
	// paste event (the mode left on by another program) turns the mode
	// off, so that the user's next paste is the terminal's own.
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

// Timing of image paste's own checks.
const (
	// imagePoll is how often Input looks whether an image checked off
	// the input path is ready.
	imagePoll = 5 * time.Millisecond
	// heldMemory bounds the input held in memory while a paste event is
	// under way; more goes to a temp file in the session.
	heldMemory = 256 << 10
)

// clip is Input's part in image paste, and the first stage of the input
// side (stage_clip.go): the scanner that takes the terminal's OSC 5522
// packets out of the input, the policy that answers them, the image being
// received, and the images being checked.
type clip struct {
	link
	in      *Input
	scanner *kittyclip.Scanner
	paster  *imagepaste.Paster
	decided bool // ImageAuto: the terminal's answer has been heard
	// unused: ImageAuto heard the terminal say it does not have paste
	// events (DECRQM 0 or 4), so no packet can come; once the scanner
	// holds nothing, input goes straight to keys. Not on silence: a
	// terminal that did not answer may have the mode left on by another
	// program, and its events must still be taken from the agent.
	unused bool

	held heldInput // input that came while a paste event was under way
	// passAt, while the scanner's Flush runs, is when the prefix it may
	// pass on was read (see flush); the zero time otherwise.
	passAt time.Time
	tell   func(func() []byte)
	// owedAt: since then the output holds one of pbwrap's sequences (see
	// settle), zero when it holds none; lookAt: when settle looks again.
	owedAt, lookAt time.Time

	// The image being received.
	img    *store.Temp
	format imagepaste.Format
	hash   hash.Hash
	size   int64
	png    *pngStream // its check, for a PNG, as it comes

	// The images received, in the order they were pasted, being checked
	// or ready to be typed.
	jobs []*imageJob
	sem  chan struct{} // one image checked at a time: the memory bound is one image's
}

func newClip(in *Input) *clip {
	c := &clip{in: in, sem: make(chan struct{}, 1)}
	c.scanner = kittyclip.NewScanner(clipScan{c})
	c.paster = imagepaste.New(c, imagepaste.Config{Debugf: in.cfg.Debugf})
	switch in.cfg.Image {
	case ImageOn:
		c.paster.Enable() // TerminalSetup writes the mode (see ImageSetup).
		c.decided = true
	case ImageOff:
		c.decided = true
	}
	return c
}

// SetTell implements ptyproxy.Teller: tell writes pbwrap's own requests
// to the terminal.
func (in *Input) SetTell(tell func(f func() []byte)) { in.clip.tell = tell }

// ImageSetup returns what turns paste events on at the terminal when
// Input has them on, for what takes the terminal over (at start, on fg);
// ImageReset what turns them off, for what gives it back (every way out,
// Ctrl-Z): whenever Input has turned them on in this session, even after
// a failure turned them off (the reset written then may not have reached
// the terminal). Both are safe for concurrent use.
func (in *Input) ImageSetup() []byte {
	if in.clip.paster.On() {
		return []byte(kittyclip.ModeOn)
	}
	return nil
}

// ImageOn reports whether Input has paste events on at the terminal.
// Safe for concurrent use: the output filter asks it (see
// OutputConfig.ClipMode).
func (in *Input) ImageOn() bool { return in.clip.paster.On() }

// ImageReset: see ImageSetup.
func (in *Input) ImageReset() []byte {
	if in.clip.paster.Ever() {
		return []byte(kittyclip.ModeOff)
	}
	return nil
}

// ImageOff says why image paste is off after a failure, or "".
func (in *Input) ImageOff() string { return in.clip.paster.Reason() }

// terminal writes p to the terminal, where the terminal reads it as
// sequences of its own (Config.Between); when the output cannot take it
// yet, it is owed, and settled (see settle).
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
		b := between(p)
		if b == nil && c.owedAt.IsZero() {
			c.owedAt, c.lookAt = c.in.now, c.in.now.Add(SettleQuiet)
		}
		return b
	})
}

// settle has the output write what it holds of pbwrap's sequences, once
// the child has had its time to finish what it left unfinished: the
// output's pause of SettleQuiet, or SettleMax (see Config.Settle).
func (c *clip) settle(now time.Time) {
	if c.owedAt.IsZero() || now.Before(c.lookAt) {
		return
	}
	if c.tell == nil || c.in.cfg.Settle == nil {
		c.owedAt = time.Time{}
		return
	}
	force := !now.Before(c.owedAt.Add(SettleMax))
	c.tell(func() []byte {
		b, holding := c.in.cfg.Settle(now, force)
		if holding && !force {
			c.lookAt = now.Add(SettleQuiet / 2)
		} else {
			c.owedAt = time.Time{}
		}
		return b
	})
}

// Terminal implements imagepaste.Sink.
func (c *clip) Terminal(p []byte) { c.terminal(p) }

// Note implements imagepaste.Sink: the note is typed into the child.
func (c *clip) Note(line string) {
	c.in.cfg.Logf("image paste: %s", line)
	c.in.send([]byte(line))
}

// ImageStart implements imagepaste.Sink: a temp file in the session, and
// for a PNG its check as it comes.
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
	if f.Ext == "png" && !f.Convert {
		c.png = newPNGStream()
	}
	return nil
}

// ImageData implements imagepaste.Sink.
func (c *clip) ImageData(p []byte) error {
	if _, err := c.img.Write(p); err != nil {
		return err
	}
	c.hash.Write(p)
	c.size += int64(len(p))
	if c.png != nil {
		return c.png.write(p)
	}
	return nil
}

// ImageAbort implements imagepaste.Sink.
func (c *clip) ImageAbort() {
	if c.png != nil {
		c.png.abort()
		c.png = nil
	}
	if c.img != nil {
		_ = c.img.Discard() // Best effort: a leftover .tmp- file is cleaned with its session.
		c.img = nil
	}
}

// ImageEnd implements imagepaste.Sink. A PNG, checked as it came, is
// saved and typed at once (after images pasted before it that are still
// being checked); any other image is checked, and a TIFF or BMP converted,
// off the input path (see check): what the user types meanwhile reaches
// the child at once, and the path follows when the image is ready.
func (c *clip) ImageEnd() error {
	job := &imageJob{temp: c.img, format: c.format, hash: c.hash, size: c.size, done: make(chan struct{})}
	c.img, c.hash = nil, nil
	if c.png != nil {
		job.err = c.png.end()
		c.png = nil
		close(job.done)
		if job.err != nil {
			_ = job.temp.Discard() // Best effort.
			return job.err
		}
	} else {
		go job.check(c.in.session, c.sem) // Ends when the image is checked.
	}
	c.jobs = append(c.jobs, job)
	c.ready()
	return nil
}

// ready saves and types the images whose check is over, in the order
// they were pasted, and fails image paste for one that is no image.
func (c *clip) ready() {
	for len(c.jobs) > 0 {
		job := c.jobs[0]
		select {
		case <-job.done:
		default:
			return
		}
		c.jobs = c.jobs[1:]
		c.deliver(job)
	}
}

// wait waits until every image received is checked; ready then saves
// and types them.
func (c *clip) wait() {
	for _, job := range c.jobs {
		<-job.done
	}
}

// deliver saves a checked image as the session's next image file,
// records it, and types its path into the child as one paste.
func (c *clip) deliver(job *imageJob) {
	if job.err != nil {
		job.discard()
		reason := imagepaste.Reason(job.err)
		if reason == "" {
			reason = "saving the image: " + job.err.Error()
		}
		c.paster.Fail(reason)
		return
	}
	n, path, err := c.in.sess.CommitImage(job.temp, job.format.Ext)
	if err != nil {
		job.discard()
		c.paster.Fail("saving the image: " + err.Error())
		return
	}
	job.temp = nil
	bracketedMode, reason := false, "the child ended during the paste"
	if !c.in.gone {
		bracketedMode, reason = c.in.deliver([]byte(path)), ""
	}
	c.in.cfg.Logf("image paste: %d bytes saved as %s (bracketed %v)", job.size, path, bracketedMode)
	c.in.record(store.PasteRecord{
		N: n, Path: path, Bytes: job.size, SHA256: hex.EncodeToString(job.hash.Sum(nil)), Time: c.in.now,
		Bracketed: bracketedMode, Outcome: store.OutcomeImage, Reason: reason,
	}, true)
}

// checkImage and convertImage check an image and convert one, off the
// input path: variables, so that a test can hold a check under way.
var (
	checkImage   = imagepaste.Check
	convertImage = imagepaste.Convert
)

// An imageJob is an image received whole, being checked or ready.
type imageJob struct {
	temp   *store.Temp // the image as received, then as it is saved
	format imagepaste.Format
	hash   hash.Hash // of what is saved
	size   int64     // ... and its size
	err    error     // why it is not saved
	done   chan struct{}
}

// check checks the image, or converts it to a PNG in a temp file of its
// own, off the input path, one image at a time (sem), and frees the
// memory the decoder took once it is done.
func (j *imageJob) check(session func() (*store.Session, error), sem chan struct{}) {
	defer close(j.done)
	sem <- struct{}{}
	defer func() { <-sem }()
	defer imagepaste.HoldGC()()
	r, size, err := j.temp.OpenAt()
	if err != nil {
		j.err = err
		return
	}
	defer r.Close() // Best effort: only read.
	if !j.format.Convert {
		j.err = checkImage(r, size, j.format)
		return
	}
	sess, err := session()
	var out *store.Temp
	if err == nil {
		out, err = sess.CreateTemp()
	}
	if err != nil {
		j.err = err
		return
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(out, h)}
	if err := convertImage(cw, r, size); err != nil {
		_ = out.Discard() // Best effort.
		j.err = err
		return
	}
	_ = j.temp.Discard() // Best effort: the PNG replaces it.
	j.temp, j.hash, j.size = out, h, cw.n
}

// discard removes the job's temp file.
func (j *imageJob) discard() {
	if j.temp != nil {
		_ = j.temp.Discard() // Best effort: a leftover .tmp- file is cleaned with its session.
		j.temp = nil
	}
}

// countWriter counts what it writes.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// A pngStream checks a PNG as it comes (imagepaste.CheckPNG), in a
// goroutine that reads what each write gives it before the write returns:
// by the end of the image the check is over, but for its last bytes.
type pngStream struct {
	w    *io.PipeWriter
	done chan error
}

// errAborted ends the check of a PNG whose read was given up.
var errAborted = errors.New("capture: the image's read was given up")

func newPNGStream() *pngStream {
	r, w := io.Pipe()
	s := &pngStream{w: w, done: make(chan error, 1)}
	go func() { // Ends when the image ends, or its check fails.
		err := imagepaste.CheckPNG(r)
		r.CloseWithError(errAborted)
		s.done <- err
	}()
	return s
}

// write passes p to the check, and returns the check's verdict if it has
// failed.
func (s *pngStream) write(p []byte) error {
	if _, err := s.w.Write(p); err != nil {
		return <-s.done
	}
	return nil
}

// end ends the image and returns the check's verdict.
func (s *pngStream) end() error {
	s.w.Close()
	return <-s.done
}

// abort gives the check up.
func (s *pngStream) abort() {
	s.w.CloseWithError(errAborted)
	<-s.done
}

// heldInput is input kept while a paste event is under way: in memory up
// to heldMemory bytes, the rest in a temp file of the session.
type heldInput struct {
	mem  []byte
	file *store.Temp
}

func (h *heldInput) empty() bool { return len(h.mem) == 0 && h.file == nil }

// add keeps p after what is kept.
func (h *heldInput) add(p []byte, session func() (*store.Session, error)) error {
	if h.file == nil && len(h.mem)+len(p) <= heldMemory {
		h.mem = append(h.mem, p...)
		return nil
	}
	if h.file == nil {
		sess, err := session()
		if err != nil {
			return err
		}
		if h.file, err = sess.CreateTemp(); err != nil {
			return err
		}
	}
	_, err := h.file.Write(p)
	return err
}

// release passes what is kept to pass, in order, and keeps nothing more.
func (h *heldInput) release(pass func([]byte)) error {
	mem, file := h.mem, h.file
	*h = heldInput{}
	if len(mem) > 0 {
		pass(mem)
	}
	if file == nil {
		return nil
	}
	defer file.Discard() // Best effort: a leftover .tmp- file is cleaned with its session.
	r, err := file.Open()
	if err != nil {
		return err
	}
	defer r.Close() // Best effort: only read.
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			pass(buf[:n])
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
