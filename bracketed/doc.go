// Package bracketed holds pure streaming parsers: the input parser, which
// splits what the user types into keystrokes and bracketed pastes (typed
// bytes, paste start, paste data, paste end), the output mode filter,
// which tracks and hides the child's DEC private mode 2004 (bracketed paste)
// so that the terminal's mode stays on, and the mode tracker, which follows
// the other modes the child sets at the terminal so that they can be undone
// and set again, and drops its requests to read the clipboard.
//
// All are explicit, resumable state machines: any split of the input across
// calls gives the same result, and a sequence cut at a read boundary is held
// until the next call completes or refutes it. They do no I/O, start no
// goroutines and read no clock: the caller passes the time of each read and
// gets back the deadline at which it must call Flush if nothing else arrives.
package bracketed
