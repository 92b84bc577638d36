package capture

import (
	"slices"
	"time"
)

// The input side is one chain of stages, declared once in NewInput
// (Input.stages). What the terminal sends goes in at the first stage;
// each stage takes what the stage before it passes on, keeps what is its
// own (a reply to pbwrap, a paste marker), and passes the rest on to the
// next; the last passes on to the paste policy, Input itself (thresholds,
// the store, the reference typed in a large paste's place). Filter,
// Flush, Close, Pending and the deadline are loops over the list (its
// stages that are not bypassed, below), so adding a stage is one file,
// the stage (with its test), and one entry in the list.
//
// Each stage is a small resumable state machine, an adapter around one of
// the parsers of internal/termproto or internal/kittyclip (which have no
// clock): it holds what it cannot decide yet, says when it is owed a
// flush, and gives the same output at any split of its input. A stage
// that has nothing to do for now (bypassed: the burst detector while
// Input does not look for unmarked pastes, see Looks; the replies once
// the terminal has answered, or when nothing is asked) holds nothing and
// owes nothing: it stays in the list and hears the notices, but is out of
// the path of the input (the stage before it passes on to the one after)
// and of the flushes, so that a key pays for no stage that has nothing to
// do with it. A stage that turns bypassed or back tells Input (relink).
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
	// heard takes a notice from another stage (see notice).
	heard(n notice, now time.Time)
	// bypassed reports whether the stage has nothing to do for now: it
	// holds nothing, owes no flush, and what it would be passed goes to
	// the stage after it; only notices reach it. A stage whose answer
	// changes calls Input.relink.
	bypassed() bool
	// setNext sets what the stage passes on to.
	setNext(next sink)
}

// A doneStage is a stage that hears when Filter's work on a read is over,
// at clock(), which it reads only if it needs to: a stage that counts the
// terminal's pauses learns that what came meanwhile waited to be read
// (termproto.Burst.Busy). relink finds the stages that are one
// (Input.doers), so that a key pays for no call to the others.
type doneStage interface {
	stage
	done(clock func() time.Time)
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
	// marksPastes: a marked paste starts (markersStage), before the
	// stages after hear its start: the terminal marks its pastes, which
	// a bypassed stage learns too.
	marksPastes
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
func (l *link) heard(notice, time.Time)      {}
func (l *link) bypassed() bool               { return false }

// relink links the stages in order, each to the next one that is not
// bypassed, the last to Input, the paste policy; Filter's input goes to
// the first that is not (Input.first), and Flush, Close, Pending and the
// deadline ask those (Input.active, made anew: relink may come in the
// middle of a loop over the old one).
func (in *Input) relink() {
	var next sink = in
	active := make([]stage, 0, len(in.stages))
	for i := len(in.stages) - 1; i >= 0; i-- {
		s := in.stages[i]
		s.setNext(next)
		if !s.bypassed() {
			next = s
			active = append(active, s)
		}
	}
	slices.Reverse(active)
	in.first, in.active, in.doers = next, active, nil
	for _, s := range active {
		if d, ok := s.(doneStage); ok {
			in.doers = append(in.doers, d)
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
