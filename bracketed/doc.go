// Package bracketed holds pure streaming parsers: the input parser, which
// splits what the user types into keystrokes and bracketed pastes (typed
// bytes, paste start, paste data, paste end), the output mode filter,
// which tracks and hides the child's DEC private mode 2004 (bracketed paste)
// so that the terminal's mode stays on, and the mode tracker, which follows
// the other modes the child sets at the terminal so that they can be undone
// and set again, and drops its requests to read the clipboard; and the
// burst detector, which takes input arriving faster than a person types,
// from a terminal that does not bracket pastes, for a paste.
//
// All are explicit, resumable state machines: any split of the input across
// calls gives the same result, and a sequence cut at a read boundary is held
// until the next call completes or refutes it. The burst detector alone
// looks at timing as well: there the split of the input, with the time of
// each read, decides where a burst starts and ends, though never which
// bytes arrive or in what order. They do no I/O, start no
// goroutines and read no clock: the caller passes the time of each read and
// gets back the deadline at which it must call Flush if nothing else arrives.
package bracketed
