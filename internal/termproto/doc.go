// Package termproto holds pure streaming parsers of what passes between a
// terminal and the program pbwrap runs.
//
// On the way in: the input Parser splits what the user's terminal sends
// into keystrokes and bracketed pastes (typed bytes, paste start, paste
// data, paste end); Replies takes the terminal's answers to pbwrap's own
// question out of the input; Burst takes input arriving faster than a
// person types, from a terminal that does not bracket pastes, for a paste.
//
// On the way out: the Tokenizer reads the program's output as a terminal
// does, with the DEC/ECMA-48 state machine; the OutputFilter sits on it,
// and keeps the program from turning bracketed paste off at the terminal,
// follows the other modes it sets so that they can be undone and set
// again, and drops its requests to read the clipboard.
//
// All are explicit, resumable state machines: any split of the input across
// calls gives the same result, and a sequence cut at a read boundary is held
// until the next call completes or refutes it. The burst detector alone
// looks at timing as well: there the split of the input, with the time of
// each read, decides where a burst starts and ends, though never which
// bytes arrive or in what order. They do no I/O, start no
// goroutines and read no clock: the caller passes the time of each read and
// gets back the deadline at which it must call Flush if nothing else arrives.
package termproto
