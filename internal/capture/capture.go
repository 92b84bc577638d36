// Package capture is pbwrap's paste policy: which paste is large, how it is
// buffered and then spilled to the store as it arrives, the reference typed
// in its place, how that is injected into the child, and the fallback that
// delivers the paste inline, exactly as the terminal sent it, whenever the
// store fails.
//
// Input sits on the path from the user's terminal to the child and Output
// on the path back; both have the method set of ptyproxy.Filter. Output
// tells Input whether the child has bracketed paste (mode 2004) on.
//
// Input's input side is one chain of stages, listed once in NewInput
// (see stage.go), each a file of its own: kitty's paste events, the
// terminal's answers, the paste markers, and, where the terminal does not
// bracket pastes, the burst detector, which takes a large paste by what
// each read brings, and never holds a key for it (see BurstMode).
package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// Defaults for what counts as a large paste: about 2k tokens, or a
// screenful of lines several times over. Below that a tool call to read
// the file costs the agent more than the paste itself.
const (
	DefaultMinBytes = 8192
	DefaultMinLines = 200
)

// RepeatWindow is how soon, by default, the same text pasted again goes
// inline: the way to get a saved paste's text into the prompt after all,
// as Claude Code users know it (see Config.RepeatWindow).
const RepeatWindow = 60 * time.Second

// BurstMode says whether Input looks for pastes the terminal does not
// mark (see termproto.Burst): reads that no one types (more than a line,
// or longer than termproto.LineBytes) that grow to a large paste before
// the terminal pauses or a key comes. Such a paste is saved like a marked
// one (with the same repeat window and fallback); what stays small reaches
// the child exactly as it came, as typed, and keys and lines typed pass as
// they are read.
type BurstMode uint8

const (
	// BurstOff never looks: the zero value.
	BurstOff BurstMode = iota
	// BurstAuto looks only where the terminal does not mark pastes, as
	// Looks decides: from what the environment says of the front end
	// (Config.Marks) and what the terminal answers when asked
	// (termproto.Question, see Ask). Where it marks them, unmarked input
	// is typing from the first byte; a terminal that marks one paste
	// marks them all. Where it says it does not, does not answer the
	// question (within AnswerWait, or with DA1 alone), or the front end
	// does not mark pastes, Input looks.
	BurstAuto
	// BurstOn looks for the whole session.
	BurstOn
)

// AnswerWait is how long Input waits for the terminal's answer to Ask
// before it takes the terminal for one that does not say: a terminal
// answers at once, and over a network in its round trip, well under this.
// An answer that comes later still counts.
const AnswerWait = 2 * time.Second

var burstModeNames = [...]string{BurstOff: "off", BurstAuto: "auto", BurstOn: "on"}

func (m BurstMode) String() string {
	if int(m) < len(burstModeNames) {
		return burstModeNames[m]
	}
	return fmt.Sprintf("BurstMode(%d)", m)
}

// ParseBurstMode reads a BurstMode by its name: auto, on or off.
func ParseBurstMode(s string) (BurstMode, error) {
	for m, name := range burstModeNames {
		if s == name {
			return BurstMode(m), nil
		}
	}
	return BurstOff, fmt.Errorf("burst mode %q: want auto, on or off", s)
}

// Config is the policy of one session.
type Config struct {
	MinBytes  int // a paste of at least this many bytes is large
	MinLines  int // ... or of at least this many lines (see isLarge)
	RefFormat RefFormat

	// Open returns the store session, creating it on first use. It is
	// called again on the next large paste after it fails, so a store that
	// recovers (space freed, root fixed) is used again.
	Open func() (*store.Session, error)

	// Mode reports whether the child has bracketed paste on (see Output).
	Mode func() bool

	// Silence is how long a paste stays open without input when its end
	// marker does not come (--paste-timeout); zero means
	// termproto.PasteSilence.
	Silence time.Duration

	// Burst says whether Input looks for pastes the terminal does not
	// mark (--burst); the zero value is BurstOff.
	Burst BurstMode

	// Marks is what the environment says of the front end that relays
	// the user's keys (internal/frontend): tmux, which marks pastes into
	// a pane that asked for it and answers no question about it; GNU
	// screen 4 or the Linux console, which do not mark them. With
	// MarksYes and BurstAuto, Input never looks, and asks nothing; with
	// MarksNo it looks from the first byte, and asks, since the
	// terminal's own answer goes first (see Looks).
	Marks Marks

	// BurstGap is how long an unmarked paste stays open without input;
	// zero means termproto.BurstGap. A front end that pauses within a
	// paste for longer (GNU screen 4) needs more.
	BurstGap time.Duration

	// RepeatWindow is how soon the same text pasted again goes inline
	// (--repeat-window); zero means the default, RepeatWindow, and a
	// negative window never sends a repeat inline.
	RepeatWindow time.Duration

	// CursorBlink, if set, hears once the terminal's answer to the
	// question Ask writes for mode 12, a blinking cursor (a
	// termproto.Mode constant), for the output filter's reset to put back
	// (see Output.SetCursorBlink).
	CursorBlink func(answer byte)

	// Image says whether Input takes kitty's paste events, to save an
	// image the user pastes (see ImageMode); the zero value is ImageOff.
	Image ImageMode

	// Between, if set, is what Input's own sequences for the terminal
	// pass through so that the terminal reads them as sequences of their
	// own (Output.Between); Settle has the output write what Between
	// kept, when the child has left what it began unfinished for good
	// (Output.Settle).
	Between func(p []byte) []byte
	Settle  func(now time.Time, force bool) (p []byte, holding bool)

	// PassClipboardReplies passes on to the child the terminal's OSC
	// 5522 replies to reads the child made (--allow-clipboard-read lets
	// them through); the replies to pbwrap's own reads and the paste
	// events, with their one-time passwords, never pass.
	PassClipboardReplies bool

	// Logf logs fallbacks, errors and each paste saved (its size and
	// path); Debugf adds the handling of every paste and the decisions on
	// the way. Neither ever receives paste text. Either may be nil.
	Logf, Debugf func(format string, args ...any)
}

// isLarge is the one rule for what counts as a large paste: at least
// MinBytes bytes as the terminal sent them, or at least MinLines lines of
// text, counted as an editor does (see paste.lines).
func (c *Config) isLarge(bytes, lines int64) bool {
	return bytes >= int64(c.MinBytes) || lines >= int64(c.MinLines)
}

// Input is the filter on the user's keystrokes: typed bytes pass at once,
// pastes (and bursts taken for pastes, see BurstMode) are held to their
// end, then delivered inline or as a reference.
// It is not safe for concurrent use, except Orphans; ptyproxy serializes
// its calls.
//
// Once the child has ended (CommandEnded), a paste still arriving is saved
// whatever its size, and delivered nowhere: Orphans says where it went.
type Input struct {
	cfg   Config
	w     io.Writer        // the child, during a call
	now   time.Time        // the time of the current call
	clock func() time.Time // when this call's work is done: time.Now but in tests
	err   error            // the first error writing to the child in this call

	// stages is the input side, in order (see NewInput); the stages the
	// others ask something of are named too.
	stages  []stage     // all of them: the notices go to every one
	first   sink        // the first stage that is not bypassed, or Input (see relink)
	active  []stage     // the stages that are not bypassed, in order
	doers   []doneStage // ... and of those the ones that hear when Filter is done
	clip    *clip       // kitty's clipboard replies and paste events (see ImageMode)
	replies *repliesStage
	markers *markersStage
	burst   *burstStage

	sess   *store.Session
	paste  *paste
	recent map[string]time.Time // sha256 of each saved text → when it was saved
	scrap  []byte               // reused for normalized text

	gone    bool        // the child has ended
	note    pendingNote // the unsaved note waiting for a pause, to an unbracketed child (see noteUnsaved)
	mu      sync.Mutex  // guards orphans
	orphans []Orphan
}

// An Orphan is a paste that was still arriving when the child ended, and
// so went nowhere: saved at Path, or, when saving failed, dropped for
// Reason (the part that had reached the child before it ended aside).
type Orphan struct {
	Path   string
	Bytes  int64 // of the text saved, or as the terminal sent it
	Reason string
}

// NewInput returns the input filter for cfg.
func NewInput(cfg Config) *Input {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Debugf == nil {
		cfg.Debugf = func(string, ...any) {}
	}
	if cfg.Mode == nil {
		cfg.Mode = func() bool { return false }
	}
	if cfg.RepeatWindow == 0 {
		cfg.RepeatWindow = RepeatWindow
	}
	in := &Input{cfg: cfg, recent: make(map[string]time.Time), clock: time.Now}
	in.clip = newClip(in)
	in.replies = newRepliesStage(in)
	in.markers = newMarkersStage(in)
	in.burst = newBurstStage(in)
	// The input side: what the terminal sends goes through these stages,
	// in this order, and then to the paste policy (Input's pasteStart,
	// pasteData, pasteEnd). The order is each stage's need:
	in.stages = []stage{
		// kitty's OSC 5522 packets first: a paste event's packets carry
		// what no later stage may see (a one-time password, the
		// clipboard's text), and the keys typed while one is under way
		// are held until it is over, before any stage looks at them.
		in.clip,
		// The terminal's answers to Ask next: they are no input, and
		// must not be taken for keys, an Esc, or the start of a paste.
		in.replies,
		// The paste markers: what is between them is a paste, whatever
		// it holds; what is outside is typed.
		in.markers,
		// Typed bytes last: a read that no one types is an unmarked
		// paste (off unless Input looks for them, see Looks).
		in.burst,
	}
	in.relink()
	return in
}

// Filter passes the user's input p on to the child w, through the
// stages; then the stages that ask hear that the call's work is done
// (doneStage).
func (in *Input) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	in.begin(w, now)
	if in.note.owed(now) { // Its pause is over: it goes before what came after.
		in.typeNote()
	}
	in.first.input(p, now)
	for _, s := range in.doers {
		s.done(in.clock)
	}
	return in.deadline(), in.end()
}

// Flush lets time pass: a held lone ESC goes to the child, a paste whose
// end marker never came ends, held input that has paused goes on, the
// terminal's silence is taken for an answer.
func (in *Input) Flush(w io.Writer, now time.Time) (time.Time, error) {
	in.begin(w, now)
	for _, s := range in.active {
		s.flush(now)
	}
	if in.note.owed(now) {
		in.typeNote()
	}
	return in.deadline(), in.end()
}

// Close ends the input: held bytes go to the child, an open paste or
// burst ends.
func (in *Input) Close(w io.Writer) error {
	in.begin(w, time.Now())
	for _, s := range in.active {
		s.close()
	}
	if !in.note.due.IsZero() {
		in.typeNote()
	}
	return in.end()
}

// deadline is when Flush is owed: the earliest of the stages' and the
// unsaved note's pause (see noteUnsaved); zero for none. A bypassed stage
// owes none.
func (in *Input) deadline() time.Time {
	d := in.note.due
	for _, s := range in.active {
		d = earliest(d, s.deadline())
	}
	return d
}

// CommandEnded implements ptyproxy.Unfinished: the child has ended, and
// nothing is written to it from now on. A paste still arriving is saved
// whatever its size (see Orphans).
func (in *Input) CommandEnded() {
	in.gone = true
	if in.markers.parser.InPaste() || in.burst.pending() {
		in.cfg.Logf("paste: the child ended during a paste; reading it to its end to save it")
	}
}

// Pending implements ptyproxy.Unfinished: the input stops in the middle of
// a paste or a burst, or of what may start one, or the terminal's answers
// to Ask may still come.
func (in *Input) Pending() bool {
	for _, s := range in.active {
		if s.pending() {
			return true
		}
	}
	return false
}

// Orphans returns the pastes that were still arriving when the child
// ended. It is safe for concurrent use.
func (in *Input) Orphans() []Orphan {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.orphans)
}

func (in *Input) begin(w io.Writer, now time.Time) { in.w, in.now, in.err = w, now, nil }

func (in *Input) end() error {
	err := in.err
	in.w, in.err = nil, nil
	return err
}

// send writes p to the child, keeping the first error of the call, or
// drops it once the child has ended. The stream goes on after an error, as
// ptyproxy does.
func (in *Input) send(p []byte) {
	if len(p) == 0 || in.gone {
		return
	}
	if _, err := in.w.Write(p); err != nil && in.err == nil {
		in.err = fmt.Errorf("write to child: %w", err)
	}
}

// The paste markers, as the child receives them around a paste.
var (
	startMarker = []byte(termproto.StartMarker)
	endMarker   = []byte(termproto.EndMarker)
)

// Every paste reaches the child through openDelivery, then its body, then
// closeDelivery, whatever the body is (the paste as the terminal sent it,
// its reference, or its replay after a failure): wrapped in the paste
// markers exactly when the child has bracketed paste (mode 2004) on as the
// delivery starts, so that it sees a paste as it would without pbwrap.

// openDelivery starts a paste's delivery and reports whether it is
// bracketed, for closeDelivery.
func (in *Input) openDelivery() (bracketed bool) {
	bracketed = in.cfg.Mode()
	if bracketed {
		in.send(startMarker)
	}
	return bracketed
}

// closeDelivery ends a paste's delivery that openDelivery started.
func (in *Input) closeDelivery(bracketed bool) {
	if bracketed {
		in.send(endMarker)
	}
}

// deliver sends body to the child as one whole paste and reports whether
// it was bracketed.
func (in *Input) deliver(body []byte) (bracketed bool) {
	bracketed = in.openDelivery()
	in.send(body)
	in.closeDelivery(bracketed)
	return bracketed
}

// Input is the last sink of the input side (see NewInput), the paste
// policy: what the stages pass on as typed goes to the child, a paste is
// held to its end.
func (in *Input) input(p []byte, _ time.Time) { in.send(p) }

// strayEnd: the marker is dropped.
func (in *Input) strayEnd() {
	in.cfg.Logf("paste: dropped an end marker outside any paste (the late end of one that had ended at the silence)")
}

// pasteStart starts a paste: a marked one, clipboard text, or a burst.
func (in *Input) pasteStart(k pasteKind) {
	in.paste = &paste{hash: sha256.New(), burst: k == pasteBurst}
}

// pasteData: the paste is buffered up to the threshold, then streamed to
// the store (or, after a failure, to the child). pasteEnd finishes what
// pasteData and spill leave: in.paste is set.
func (in *Input) pasteData(p []byte) {
	ps := in.paste
	if ps == nil { // Cannot happen: a stage starts every paste.
		in.send(p)
		return
	}
	ps.rawBytes += int64(len(p))
	switch {
	case ps.inline:
		in.send(p)
		return
	case ps.text == nil:
		ps.raw = append(ps.raw, p...)
		before := len(ps.pending)
		ps.pending = ps.norm.write(ps.pending, p)
		ps.pendingLF += int64(countLF(ps.pending[before:])) // Only what is new: a paste may come a byte at a time.
		// The lines complete so far: a count that only grows, so a paste
		// found large here is large at its end too.
		if in.cfg.isLarge(ps.rawBytes, ps.pendingLF) {
			in.spill(ps)
		}
		return
	}
	in.stream(ps, p)
}

// pasteEnd: the paste is delivered inline or replaced by its reference.
func (in *Input) pasteEnd() {
	ps := in.paste
	in.paste = nil
	if ps == nil {
		return
	}
	if ps.inline {
		in.finishFallback(ps)
		return
	}
	ps.pending = ps.norm.flush(ps.pending)
	if in.gone && ps.rawBytes == 0 {
		return // An empty paste, and no child: nothing to keep.
	}
	if ps.text == nil {
		if !in.gone && !in.cfg.isLarge(ps.rawBytes, linesOf(ps.pending)) {
			ps.account(ps.pending)
			in.deliverSmall(ps)
			return
		}
		in.spill(ps)
		if ps.inline {
			in.finishFallback(ps)
			return
		}
	} else if len(ps.pending) > 0 {
		if !in.writeText(ps, ps.pending) {
			in.finishFallback(ps)
			return
		}
	}
	in.commit(ps)
}

// deliverSmall sends a paste under the threshold as the terminal sent it:
// an unmarked one as typed (see BurstMode), which the burst detector
// opens only when it is large by its count.
func (in *Input) deliverSmall(ps *paste) {
	var bracketedMode bool
	if ps.burst {
		in.send(ps.raw)
	} else {
		bracketedMode = in.deliver(ps.raw)
	}
	in.cfg.Debugf("%s: %d bytes, %d lines: inline (under the threshold), bracketed %v", ps.kind(), ps.rawBytes, ps.lines(), bracketedMode)
	in.record(store.PasteRecord{
		Bytes: ps.textBytes, Lines: ps.lines(), SHA256: hex.EncodeToString(ps.hash.Sum(nil)),
		Time: in.now, Bracketed: bracketedMode, Outcome: store.OutcomeInline, Reason: "under the threshold", Burst: ps.burst,
	}, false)
}

// spill starts saving the paste: two temp files in the session, one for
// the text (the future paste file) and one for the raw bytes (to replay
// the paste exactly if it must go inline after all). On failure the paste
// falls back to inline delivery from here on.
func (in *Input) spill(ps *paste) {
	sess, err := in.session()
	if err == nil {
		ps.rawTemp, err = sess.CreateTemp()
	}
	if err == nil {
		ps.text, err = sess.CreateTemp()
	}
	if err == nil {
		ps.text.WriteBehind() // The file to commit: its sync then has little to write.
	}
	if err == nil {
		_, err = ps.rawTemp.Write(ps.raw)
	}
	if err != nil {
		ps.discard() // The raw bytes are still in memory: replay those.
		in.fallback(ps, err, ps.raw)
		return
	}
	ps.raw = nil
	pending := ps.pending
	ps.pending = nil
	if in.writeText(ps, pending) {
		in.cfg.Debugf("%s: over the threshold at %d bytes; saving", ps.kind(), ps.rawBytes)
	}
}

// stream saves one more chunk of a spilled paste.
func (in *Input) stream(ps *paste, p []byte) {
	if n, err := ps.rawTemp.Write(p); err != nil {
		in.fallback(ps, err, p[n:])
		return
	}
	in.scrap = ps.norm.write(in.scrap[:0], p)
	in.writeText(ps, in.scrap)
}

// writeText saves normalized text, hashing and counting it; on failure it
// falls back and reports false.
func (in *Input) writeText(ps *paste, text []byte) bool {
	ps.account(text)
	if _, err := ps.text.Write(text); err != nil {
		in.fallback(ps, err, nil)
		return false
	}
	return true
}

// fallback gives up saving the paste: what reached the raw temp file, if
// any, is replayed to the child, then rest, and the rest of the paste
// streams inline. The paste reaches the child exactly as the terminal sent
// it.
func (in *Input) fallback(ps *paste, cause error, rest []byte) {
	ps.inline = true
	ps.reason, ps.why = cause.Error(), store.Why(cause)
	in.cfg.Logf("paste: saving failed, delivering inline: %v", cause)
	ps.bracketed = in.openDelivery()
	if ps.rawTemp != nil {
		if err := in.replay(ps.rawTemp); err != nil {
			in.cfg.Logf("paste: replaying the saved part: %v", err)
		}
	}
	in.send(rest)
	ps.raw = nil
	ps.discard()
}

// finishFallback ends a paste that went inline after a failure, and
// says so in the child's input (noteUnsaved).
func (in *Input) finishFallback(ps *paste) {
	in.closeDelivery(ps.bracketed)
	in.noteUnsaved(ps.why)
	in.record(store.PasteRecord{
		Bytes: ps.rawBytes, Time: in.now, Bracketed: ps.bracketed,
		Outcome: store.OutcomeFallback, Reason: ps.reason, Burst: ps.burst,
	}, false)
}

// replay copies a temp file's content to the child.
func (in *Input) replay(t *store.Temp) error {
	r, err := t.Open()
	if err != nil {
		return err
	}
	defer r.Close() // Best effort: only read.
	_, err = io.Copy(toChild{in}, r)
	return err
}

// toChild is an io.Writer that sends to the child. It never fails: the
// first error writing to the child is kept for the caller of the filter
// (see send), so that a copy stops only for an error reading its source.
type toChild struct{ in *Input }

func (w toChild) Write(p []byte) (int, error) {
	w.in.send(p)
	return len(p), nil
}

// commit finishes a saved paste: the same text again within the repeat window
// goes inline, anything else becomes (or reuses) a paste file whose
// reference is typed into the child.
func (in *Input) commit(ps *paste) {
	sum := hex.EncodeToString(ps.hash.Sum(nil))
	if at, ok := in.recent[sum]; ok && !in.gone && in.now.Sub(at) < in.cfg.RepeatWindow && in.repeat(ps, sum) {
		delete(in.recent, sum)
		return
	}
	n, path, reused, err := in.sess.CommitPaste(ps.text, sum)
	if err != nil {
		in.fallback(ps, err, nil)
		in.finishFallback(ps)
		return
	}
	ps.text = nil
	ps.discard()
	ref := in.cfg.RefFormat.render(refValues{path: path, bytes: ps.textBytes, lines: ps.lines(), sha256: sum, n: n})
	bracketedMode, reason := false, "the child ended during the paste"
	if !in.gone {
		bracketedMode, reason = in.deliver([]byte(ref)), ""
	}
	in.recent[sum] = in.now
	// Without --debug too: the log says where each paste went, and how big
	// it was, never what it said.
	in.cfg.Logf("%s: %d bytes, %d lines saved as %s (reused %v, bracketed %v)", ps.kind(), ps.textBytes, ps.lines(), path, reused, bracketedMode)
	in.record(store.PasteRecord{
		N: n, Path: path, Bytes: ps.textBytes, Lines: ps.lines(), SHA256: sum, Time: in.now,
		Bracketed: bracketedMode, Reference: ref, Outcome: store.OutcomeSaved, Reason: reason, Burst: ps.burst,
	}, true)
}

// repeat delivers a paste inline because the same text was saved moments
// ago: the user pasted again to get the text itself. It reports false,
// having sent nothing, when the paste as received cannot be read back;
// the caller then saves it as any other.
func (in *Input) repeat(ps *paste, sum string) bool {
	r, err := ps.rawTemp.Open()
	if err != nil {
		in.cfg.Logf("paste: pasted again, but cannot replay it: %v", err)
		return false
	}
	defer r.Close() // Best effort: only read.
	bracketedMode := in.openDelivery()
	if _, err := io.Copy(toChild{in}, r); err != nil {
		in.cfg.Logf("paste: replaying a repeated paste: %v", err)
	}
	in.closeDelivery(bracketedMode)
	ps.discard()
	in.cfg.Debugf("%s: %d bytes pasted again within %v: inline", ps.kind(), ps.textBytes, in.cfg.RepeatWindow)
	in.record(store.PasteRecord{
		Bytes: ps.textBytes, Lines: ps.lines(), SHA256: sum, Time: in.now, Bracketed: bracketedMode,
		Outcome: store.OutcomeInline, Reason: "pasted again within " + in.cfg.RepeatWindow.String(), Burst: ps.burst,
	}, false)
	return true
}

// session returns the store session to save a paste in, checked just now:
// the one in use while it passes store.Session.Check (the root safe, the
// session directory the one made), else whatever cfg.Open returns, which
// checks again and makes the session anew when it is gone (see
// store.Opener). So a store whose root or session directory
// was removed saves again from the next large paste, and a root replaced
// by a symlink is refused, the paste going inline, before anything is
// written through it.
func (in *Input) session() (*store.Session, error) {
	if in.sess != nil && in.sess.Check() == nil {
		return in.sess, nil
	}
	if in.cfg.Open == nil {
		return nil, errors.New("no store configured")
	}
	sess, err := in.cfg.Open()
	if err != nil {
		return nil, err
	}
	in.sess = sess
	return sess, nil
}

// record adds the paste to the manifest, after the paste has reached the
// child so that it does not wait on the disk. Without a session (open
// failed, or a small paste before any large one) inline pastes are not
// recorded; saved ones always have a session.
func (in *Input) record(r store.PasteRecord, saved bool) {
	if in.gone {
		in.orphaned(r)
	}
	if in.sess == nil {
		if saved {
			in.cfg.Logf("paste: no session to record in")
		}
		return
	}
	if err := in.sess.Record(r); err != nil {
		in.cfg.Logf("paste: recording in the manifest: %v", err)
	}
}

// orphaned notes a paste that ended after the child did.
func (in *Input) orphaned(r store.PasteRecord) {
	o := Orphan{Path: r.Path, Bytes: r.Bytes, Reason: r.Reason}
	if r.Outcome != store.OutcomeSaved {
		o.Path = ""
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.orphans = append(in.orphans, o)
}

// paste is the state of the paste being received.
type paste struct {
	raw       []byte // the raw bytes, until spilled
	pending   []byte // normalized text not yet saved
	pendingLF int64  // LFs in pending, while the paste is buffered
	norm      normalizer
	hash      hash.Hash

	rawBytes  int64 // as received
	textBytes int64 // normalized
	lf        int64 // LFs in the normalized text
	lastLF    bool  // the normalized text ends with LF

	rawTemp *store.Temp // raw bytes, for replay
	text    *store.Temp // normalized text, the future paste file

	inline    bool // falling back: the rest streams to the child
	bracketed bool // markers were sent at the fallback
	reason    string
	why       string // the reason in a few words, for the note (store.Why)

	burst bool // a burst, not a bracketed paste (see BurstMode)
}

// kind names the paste in the debug log.
func (ps *paste) kind() string {
	if ps.burst {
		return "paste (burst, no markers)"
	}
	return "paste"
}

// account hashes and counts normalized text.
func (ps *paste) account(text []byte) {
	if len(text) == 0 {
		return
	}
	ps.hash.Write(text)
	ps.textBytes += int64(len(text))
	ps.lf += int64(countLF(text))
	ps.lastLF = text[len(text)-1] == '\n'
}

// lines counts lines as an editor does: every LF ends one, and text after
// the last LF is one more.
func (ps *paste) lines() int64 {
	if ps.textBytes > 0 && !ps.lastLF {
		return ps.lf + 1
	}
	return ps.lf
}

// discard removes whatever temp files the paste still has.
func (ps *paste) discard() {
	for _, t := range []*store.Temp{ps.rawTemp, ps.text} {
		if t != nil {
			_ = t.Discard() // Best effort: a leftover .tmp- file is cleaned with its session.
		}
	}
	ps.rawTemp, ps.text = nil, nil
}

// linesOf counts the lines of a whole text as paste.lines does.
func linesOf(text []byte) int64 {
	n := int64(countLF(text))
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

func countLF(p []byte) int { return bytes.Count(p, []byte{'\n'}) }
