// Package pastecheck is pbwrap doctor --paste: the user pastes at the
// terminal, and the check says how the paste came (bracketed or not, in
// what reads, with what pauses) and whether pbwrap would catch it, by the
// same decision the wrapper takes (a Policy, from capture.Looks). The
// terminal is read on the systems pbwrap runs on (terminal_unix.go); what
// was read is looked at with the same parser and burst detector that
// pbwrap runs.
package pastecheck

import (
	"fmt"
	"slices"
	"time"

	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// The paste check's timing.
const (
	// pasteWait bounds the wait for the paste: time to find something to
	// copy, and paste it.
	pasteWait = 60 * time.Second

	// pasteQuiet ends the paste once input has come and the terminal has
	// sent nothing for this long (a bracketed paste ends at its end
	// marker): ten times termproto.BurstGap, so that doctor sees, and
	// reports, the pauses that split a paste into bursts.
	pasteQuiet = time.Second
)

// The thresholds of the check's burst detector: a few lines that come as
// fast as a paste are one (see newPasteProbe).
const (
	probeMinBytes = 64
	probeMinLines = 2
)

// pastePrompt is what the check asks, on the terminal.
const pastePrompt = "pbwrap doctor: paste some text of a few lines now, as you would into an agent\r\n" +
	"(it is only measured: not shown, not saved; Ctrl-C skips). Waiting %s...\r\n"

// Bytes of the check.
const (
	ctrlC = 0x03
)

// A pasteRead is one read of the terminal during the check.
type pasteRead struct {
	at time.Duration // since the first read
	n  int
}

// A Policy is what the wrapper does, where the check runs, with input that
// comes unmarked, as capture.Looks decides it from --burst (Mode), the
// front end and the terminal's answer: whether it looks for large
// unmarked pastes (Look), why, and how long such a paste stays open
// without input (Gap; zero for termproto.BurstGap).
type Policy struct {
	Mode capture.BurstMode
	Look bool
	Why  string
	Gap  time.Duration
}

// gap is how long an unmarked paste stays open without input.
func (p Policy) gap() time.Duration {
	if p.Gap > 0 {
		return p.Gap
	}
	return termproto.BurstGap
}

// A Sample is what the check saw of the paste. It keeps no text.
type Sample struct {
	reads     []pasteRead
	bytes     int64 // without the markers
	lines     int64 // CR, LF and CRLF each end one; text after the last is one more
	bracketed bool  // a paste start marker came
	ended     bool  // ... and its end marker
	cancelled bool  // the first input was Ctrl-C
	policy    Policy
	bursts    []int64 // the bytes of each burst pbwrap would take for a paste
	typed     int64   // the bytes pbwrap would pass as typed, outside bracketed pastes
}

// A pasteProbe runs what the terminal sends through termproto.Parser and,
// where the wrapper would look for unmarked pastes, termproto.Burst, as
// capture.Input does, with the times of the reads, and counts what they
// make of it.
type pasteProbe struct {
	s        Sample
	parser   *termproto.Parser
	burst    *termproto.Burst
	first    time.Time
	now      time.Time // of the read being looked at
	deadline time.Time
	lastCR   bool // the last byte counted was CR
	midLine  bool // ... was not CR or LF: a last line without a newline
}

func newPasteProbe(policy Policy) *pasteProbe {
	p := &pasteProbe{s: Sample{policy: policy}}
	p.parser = termproto.NewParser(probeParser{p})
	if policy.Look {
		// Small thresholds: the check asks for a few lines, and says whether
		// they came as a paste comes, so that pbwrap would save them were
		// they large.
		p.burst = termproto.NewBurst(probeBursts{p}, probeMinBytes, probeMinLines)
		p.burst.SetGap(policy.gap())
	}
	return p
}

// feed looks at one read, made at time at. Deadlines that passed before it
// are flushed first, as ptyproxy does when nothing arrives by then.
func (p *pasteProbe) feed(b []byte, at time.Time) {
	if len(p.s.reads) == 0 {
		p.first = at
		p.s.cancelled = len(b) == 1 && b[0] == ctrlC
	}
	p.s.reads = append(p.s.reads, pasteRead{at: at.Sub(p.first), n: len(b)})
	p.flushUntil(at)
	p.now = at
	p.deadline = p.next(p.parser.Write(b, at))
}

// finish ends the input and returns the sample.
func (p *pasteProbe) finish() *Sample {
	p.flushUntil(time.Time{})
	p.parser.Close()
	if p.burst != nil {
		p.burst.End()
	}
	if p.midLine {
		p.s.lines++
	}
	return &p.s
}

// started reports whether anything has been read; done, whether the
// paste is over: its end marker, or Ctrl-C, came.
func (p *pasteProbe) started() bool { return len(p.s.reads) > 0 }
func (p *pasteProbe) done() bool    { return p.s.ended || p.s.cancelled }

// flushUntil flushes every deadline up to at (all of them if at is zero).
func (p *pasteProbe) flushUntil(at time.Time) {
	for !p.deadline.IsZero() && (at.IsZero() || !at.Before(p.deadline)) {
		// What the parser releases was read when its hold began, as
		// capture.Input passes it on.
		if p.now = p.parser.HeldSince(); p.now.IsZero() {
			p.now = p.deadline
		}
		d := p.parser.Flush(p.deadline)
		p.now = p.deadline
		if p.burst != nil {
			p.burst.Flush(p.now)
		}
		p.deadline = p.next(d)
	}
}

// next is the earlier of the parser's deadline d and the open burst's.
func (p *pasteProbe) next(d time.Time) time.Time {
	if p.burst == nil {
		return d
	}
	b := p.burst.Deadline()
	if d.IsZero() || !b.IsZero() && b.Before(d) {
		return b
	}
	return d
}

// count adds text to the totals.
func (p *pasteProbe) count(b []byte) {
	p.s.bytes += int64(len(b))
	for _, c := range b {
		if c == '\r' || c == '\n' && !p.lastCR {
			p.s.lines++
		}
		p.lastCR = c == '\r'
		p.midLine = c != '\r' && c != '\n'
	}
}

// probeParser receives the parser's events.
type probeParser struct{ p *pasteProbe }

func (e probeParser) Typed(b []byte) {
	if e.p.burst != nil {
		e.p.burst.Write(b, e.p.now)
		return
	}
	e.p.s.typed += int64(len(b))
	e.p.count(b)
}

func (e probeParser) PasteStart() {
	if e.p.burst != nil {
		e.p.burst.End()
	}
	e.p.s.bracketed = true
}

func (e probeParser) PasteData(b []byte) { e.p.count(b) }
func (e probeParser) PasteEnd()          { e.p.s.ended = e.p.s.bracketed }

func (e probeParser) StrayEnd() {
	if e.p.burst != nil {
		e.p.burst.End()
	}
}

// probeBursts receives the burst detector's events.
type probeBursts struct{ p *pasteProbe }

func (e probeBursts) Typed(b []byte) { e.p.s.typed += int64(len(b)); e.p.count(b) }
func (e probeBursts) PasteStart()    { e.p.s.bursts = append(e.p.s.bursts, 0) }
func (e probeBursts) PasteData(b []byte) {
	e.p.s.bursts[len(e.p.s.bursts)-1] += int64(len(b))
	e.p.count(b)
}
func (e probeBursts) PasteEnd() {}
func (e probeBursts) StrayEnd() {}

// A Report is what doctor says of a sample: lines to print, and the
// problem with its fix, if there is one.
type Report struct {
	// Lines are what doctor prints, one a line.
	Lines []string
	// Problem is what stops pbwrap from catching the user's pastes, ""
	// when nothing; Fix what to do about it.
	Problem, Fix string
}

// The fixes doctor --paste gives.
const (
	fixAgain   = "run pbwrap doctor --paste again, and paste when it asks"
	fixTermNow = "use a terminal that brackets pastes (xterm, iTerm2, kitty, WezTerm, Alacritty, GNOME Terminal, Windows Terminal, VS Code do); inside tmux, paste with prefix ] or paste-buffer -p"
)

// Describe says what the sample shows: how the paste came, whether
// pbwrap catches it, and what to do when it does not.
func Describe(s *Sample) Report {
	switch {
	case s.cancelled:
		return Report{Lines: []string{"skipped (Ctrl-C)"}, Problem: "no paste was checked", Fix: fixAgain}
	case len(s.reads) == 0:
		return Report{Lines: []string{"nothing was pasted within " + waitText(pasteWait)}, Problem: "no paste was checked", Fix: fixAgain}
	}
	r := Report{Lines: []string{
		fmt.Sprintf("received %d bytes, %d lines, %s", s.bytes, s.lines, describeReads(s.reads)),
	}}
	switch {
	case s.bracketed && s.ended:
		r.Lines = append(r.Lines, "bracketed: yes: the terminal marks its pastes, so pbwrap sees each one whole")
	case s.bracketed:
		r.Lines = append(r.Lines, "bracketed: the terminal sent a paste's start marker, but not its end marker")
		r.Problem, r.Fix = "the terminal began a bracketed paste and never ended it: pbwrap ends such a paste after --paste-timeout", fixTermNow
	default:
		r.Lines = append(r.Lines, "bracketed: no: the terminal sends a paste as if it were typed; pbwrap can tell it only by its reads (--burst)")
		r.describeBursts(s)
	}
	return r
}

// describeReads says in what reads, and with what pauses, the input came.
func describeReads(reads []pasteRead) string {
	if len(reads) == 1 {
		return "in one read"
	}
	sizes := make([]int, len(reads))
	var longest time.Duration
	for i, rd := range reads {
		sizes[i] = rd.n
		if i > 0 {
			longest = max(longest, rd.at-reads[i-1].at)
		}
	}
	slices.Sort(sizes)
	return fmt.Sprintf("in %d reads over %v, of %d to %d bytes (median %d), the longest pause between reads %v",
		len(reads), roundDuration(reads[len(reads)-1].at), sizes[0], sizes[len(sizes)-1], sizes[len(sizes)/2], roundDuration(longest))
}

// describeBursts says what the wrapper makes of an unbracketed paste: it
// takes it for typing where it does not look for unmarked pastes, and
// otherwise what the burst detector made of it.
func (r *Report) describeBursts(s *Sample) {
	pol := s.policy
	mode := fmt.Sprintf("--burst %v: %s", pol.Mode, pol.Why)
	switch {
	case pol.Mode == capture.BurstOff:
		r.Lines = append(r.Lines, "bursts: not looked for (--burst off): every paste goes in as text")
		r.Problem, r.Fix = "the terminal does not bracket pastes and --burst is off, so large pastes go in as text",
			"drop --burst off (or PBWRAP_BURST=off), or "+fixTermNow
	case !pol.Look:
		r.Lines = append(r.Lines, "bursts: not looked for ("+mode+"): pbwrap passes this paste on as typed")
		r.Problem = "this paste came unmarked, and pbwrap takes unmarked input for typing here (" + pol.Why + "), so large pastes go in as text"
		r.Fix = fixTermNow
	case len(s.bursts) == 1:
		line := fmt.Sprintf("bursts (%s): caught, as one paste of %d bytes: one that comes so is saved when it is large", mode, s.bursts[0])
		if s.typed > 0 {
			line += fmt.Sprintf(" (%d bytes before it came as typed)", s.typed)
		}
		r.Lines = append(r.Lines, line)
	case len(s.bursts) > 1:
		r.Lines = append(r.Lines, fmt.Sprintf("bursts (%s): split into %d pastes: the terminal paused longer than pbwrap waits within a paste (%v)",
			mode, len(s.bursts), pol.gap()))
		r.Problem = "this terminal pauses within a paste for longer than pbwrap waits, so pbwrap may split a large paste, and type its head"
		r.Fix = fixTermNow
	default:
		r.Lines = append(r.Lines, fmt.Sprintf("bursts (%s): none: it came a line or a key at a time, as typing does", mode))
		r.Problem, r.Fix = "pbwrap cannot tell this terminal's pastes from typing", fixTermNow
	}
}

// waitText writes a wait as people read it: "1m" for a whole number of
// minutes, else to the second ("45s").
func waitText(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.Round(time.Second).String()
}

// roundDuration rounds d for a person: to 0.1 ms under a second.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
