package store

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
)

// errOpenerClosed is Open's error once the Opener is closed.
var errOpenerClosed = errors.New("store: the session has ended")

// An Opener makes one run's session on demand: at start (NewOpener), and
// again, on the next Open, whenever that failed before or the session is
// gone. Agents can write in the root: Open checks the root and the
// session directory again each time (Session.Check), refuses an unsafe
// root as at start, and makes the session anew when its directory was
// removed. Its methods are safe for concurrent use; the caller must Close
// it, which ends the session.
type Opener struct {
	meta Meta
	id   string // the run's id, given to its child; the session's own (Session.ID) only differs after a recovery found the name taken
	root string // resolved, or "" when the root cannot even be named
	err  error  // why the session could not be made at start

	mu     sync.Mutex
	logf   func(format string, args ...any)
	sess   *Session
	closed bool // by Close: Open makes no more sessions, which no one would end
}

// NewOpener returns the Opener of a run's session with meta, under root
// as the user gave it (ResolveRoot resolves it), and makes the session at
// once. Err says why that failed, if it did: no id, a root that cannot
// be resolved or is refused, a session that cannot be made. The run goes
// on without saving, and a later Open tries again if the root could be
// named.
func NewOpener(root string, meta Meta) *Opener {
	o := &Opener{meta: meta, logf: func(string, ...any) {}}
	var err error
	if o.id, err = NewSessionID(); err != nil {
		o.err = err
		return o
	}
	if o.root, err = ResolveRoot(root); err != nil {
		o.err = err
		return o
	}
	if _, err := o.Open(); err != nil {
		o.err = err
	}
	return o
}

// SetLog makes logf the log of what Open and Close do that is not their
// error: a session made again, under another id, a lock not released.
// The log starts empty.
func (o *Opener) SetLog(logf func(format string, args ...any)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.logf = logf
}

// ID is the run's session id, which names the session directory
// (PBWRAP_SESSION); "" when none could be made.
func (o *Opener) ID() string { return o.id }

// Root is the resolved root; "" when it cannot even be named.
func (o *Opener) Root() string { return o.root }

// Err says why the session could not be made at start; nil when it was.
func (o *Opener) Err() error { return o.err }

// Session is the session last made, or nil: it may be gone since.
func (o *Opener) Session() *Session {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sess
}

// Open returns the session to save a paste in, checked just now: the root
// passes the store's rules as at start (a symlink, a file, another user's
// root is refused, with the reason; a missing root is made again), and
// the session directory is the one made, with its lock (Session.Check).
//
// When the session is gone (its directory, or the whole root, was removed,
// or replaced), the old session is let go (its lock released; whatever
// took its name is left alone) and a new one is made, with every check of
// the start: a new directory, locked, with its manifest. It keeps the run's
// id, so that what was given to the child at start still names it. Only
// if that name is taken, by something this run did not make, does the new
// session get a new id (in the same root), which the log gives.
func (o *Opener) Open() (*Session, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, errOpenerClosed
	}
	if o.sess != nil {
		err := o.sess.Check()
		if !errors.Is(err, ErrSessionGone) {
			return o.checked(err)
		}
		o.logf("%v: making it again", err)
		o.letGo()
	}
	if o.root == "" {
		return nil, o.err
	}
	return o.create()
}

// checked returns the session that Check found usable, or Check's error.
func (o *Opener) checked(err error) (*Session, error) {
	if err != nil {
		return nil, err
	}
	return o.sess, nil
}

// letGo releases the session that is gone, with o.mu held.
func (o *Opener) letGo() {
	if err := o.sess.Close(); err != nil {
		o.logf("%v", err)
	}
	o.sess = nil
}

// create makes the root, if need be, and the session, with o.mu held:
// under the run's id, or a new one when that name is taken.
func (o *Opener) create() (*Session, error) {
	root, err := OpenRoot(o.root)
	if err != nil {
		return nil, err
	}
	sess, err := root.NewSession(o.id, o.meta)
	if errors.Is(err, fs.ErrExist) {
		sess, err = o.createElsewhere(root)
	}
	if err != nil {
		return nil, err
	}
	o.sess = sess
	return sess, nil
}

// createElsewhere makes the session under a new id: the run's is taken.
func (o *Opener) createElsewhere(root *Root) (*Session, error) {
	id, err := NewSessionID()
	if err != nil {
		return nil, err
	}
	o.logf("store: %s is taken by what pbwrap did not make: saving in session %s instead", filepath.Join(root.Path, o.id), id)
	return root.NewSession(id, o.meta)
}

// Close ends the session: a run that saved nothing leaves nothing behind
// (see Session.End). Later calls to Open fail; Close may be called again.
func (o *Opener) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.sess != nil {
		if err := o.sess.End(); err != nil {
			o.logf("%v", err)
		}
	}
}
