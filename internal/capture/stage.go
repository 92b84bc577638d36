package capture

import "time"

// The input side is one chain of stages, declared once in NewInput
// (Input.stages). What the terminal sends goes in at the first stage;
// each stage takes what the stage before it passes on, keeps what is its
// own (a reply to pbwrap, a paste marker), and passes the rest on to the
// next; the last passes on to the paste policy, Input itself (thresholds,
// the store, the reference typed in a large paste's place). Filter,
// Flush, Close, Pending and the deadline are loops over the list, so
// adding a stage is one file, the stage (with its test), and one entry in
// the list.
//
// Each stage is a small resumable state machine, an adapter around one of
// the parsers of internal/termproto or internal/kittyclip (which have no
// clock): it holds what it cannot decide yet, says when it is owed a
// flush, and gives the same output at any split of its input. A stage
// that is off (the burst detector, while Input does not look for unmarked
// pastes, see Looks) stays in the list and passes everything on.
//
// Input flows with the time it was read: a byte a stage held and passes
// on at a flush goes on with the time it was read, not the flush's, so
// that the stages after it tell one read from the next as the terminal
// sent them (termproto.Burst takes writes at the same time for one read).

// A sink takes what a stage passes on, in order.
type sink interface {
	// input takes bytes read at time at: the terminal's input as it
	// comes, until the paste markers are told apart (markersStage);
	// typed bytes from there on. It is never empty.
	input(p []byte, at time.Time)
	// pasteStart, pasteData (never empty) and pasteEnd bracket a paste
	// that a stage found; strayEnd is an end marker outside any paste,
	// which is dropped (termproto.Sink's StrayEnd).
	pasteStart(k pasteKind)
	pasteData(p []byte)
	pasteEnd()
	strayEnd()
}

// A stage is one step of the input side (see sink for what it takes).
// What it passes on, it passes on at once, within the call, to next.
type stage interface {
	sink
	// flush lets time pass, to now: what waited for its deadline goes on.
	// Calling it early is harmless.
	flush(now time.Time)
	// close ends the input: what is held goes on, what is open ends.
	close()
	// deadline is when flush is owed, or the zero time.
	deadline() time.Time
	// pending reports whether the input stops in the middle of
	// something for the stage: held input, an open paste, an answer
	// still to come (see Input.Pending).
	pending() bool
	// done says that Filter's work on a read is over, at clock(), which a
	// stage reads only if it needs to: a stage that counts the
	// terminal's pauses learns that what came meanwhile waited to be
	// read (termproto.Burst.Busy).
	done(clock func() time.Time)
	// heard takes a notice from another stage (see notice).
	heard(n notice, now time.Time)
	// setNext sets what the stage passes on to.
	setNext(next sink)
}

// pasteKind is where a paste was found.
type pasteKind uint8

const (
	pasteMarked pasteKind = iota // between the terminal's paste markers (markersStage)
	pasteClip                    // clipboard text that a paste event brought (clip)
	pasteBurst                   // input taken for an unmarked paste (burstStage)
)

// A notice is what a stage tells the others, before it in the chain or
// after it, that is no input: Input.notify gives it to every stage, in
// the chain's order.
type notice uint8

const (
	// answersHeard: the terminal's answers to Ask have moved on (an
	// answer taken, or time passed), as the replies stage reports them
	// (Input.replies).
	answersHeard notice = iota
	// pasteSilent: a marked paste ended at its silence, without its end
	// marker (markersStage).
	pasteSilent
)

// notify gives n to every stage.
func (in *Input) notify(n notice, now time.Time) {
	for _, s := range in.stages {
		s.heard(n, now)
	}
}

// link is what every stage has: the sink it passes on to, and, for what a
// stage does not take itself, the stage that does nothing: it passes
// input and pastes on, holds nothing, owes no flush and hears no notice.
type link struct{ next sink }

func (l *link) setNext(next sink)            { l.next = next }
func (l *link) input(p []byte, at time.Time) { l.next.input(p, at) }
func (l *link) pasteStart(k pasteKind)       { l.next.pasteStart(k) }
func (l *link) pasteData(p []byte)           { l.next.pasteData(p) }
func (l *link) pasteEnd()                    { l.next.pasteEnd() }
func (l *link) strayEnd()                    { l.next.strayEnd() }
func (l *link) flush(time.Time)              {}
func (l *link) close()                       {}
func (l *link) deadline() time.Time          { return time.Time{} }
func (l *link) pending() bool                { return false }
func (l *link) done(func() time.Time)        {}
func (l *link) heard(notice, time.Time)      {}

// chain links the stages in order, the last to end.
func chain(stages []stage, end sink) {
	for i, s := range stages {
		if i+1 < len(stages) {
			s.setNext(stages[i+1])
		} else {
			s.setNext(end)
		}
	}
}

// earliest is the earlier of two deadlines, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}
