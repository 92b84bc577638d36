package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/term"

	"github.com/pbwrap/pbwrap/internal/agent"
	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/frontend"
	"github.com/pbwrap/pbwrap/internal/printable"
	"github.com/pbwrap/pbwrap/internal/ptyproxy"
	"github.com/pbwrap/pbwrap/internal/shellword"
	"github.com/pbwrap/pbwrap/internal/store"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// errNoUnix is wrap's error on a system without Unix terminals.
var errNoUnix = errors.New("this system is not supported: pbwrap needs a Unix terminal (Linux, macOS or FreeBSD; on Windows, WSL)")

// wrap runs argv in a PTY with paste capture, or directly when wrapping
// is off, nested, or has no terminal to work with.
//
// What of the configuration was left out (config.warnings) is said first,
// once, on standard error, before the command owns the terminal, and in
// the log.
func wrap(cfg *config, argv []string) error {
	cfg.sayWarnings(os.Stderr)
	path, err := ptyproxy.LookPath(argv[0])
	if errors.Is(err, errors.ErrUnsupported) {
		return errNoUnix
	}
	if err != nil {
		return suggestNotFound(argv[0], err)
	}
	if passThrough(cfg) {
		return execDirectly(cfg, path, argv)
	}
	// The session process starts now, beside the set-up below, and waits
	// for the command (doc/performance.md, "Startup").
	pending, err := ptyproxy.Start()
	if err != nil {
		return err
	}
	defer pending.Close()         // Nothing once it has run.
	moved := movedRootNotice(cfg) // Before the session makes the new root.
	s := newSessionOpener(cfg, filepath.Base(argv[0]))
	defer s.Close()
	logs, err := openLogs(cfg, s.Session())
	if err != nil {
		return err
	}
	defer logs.close()
	for _, w := range cfg.warnings() {
		logs.logf("config: %s", w)
	}
	s.SetLog(logs.logf)
	if err := s.sayIfUnsaved(cfg, logs.logf); err != nil {
		return err
	}
	if moved != "" && s.Err() == nil {
		fmt.Fprintln(os.Stderr, moved)
		logs.logf("%s", moved)
	}
	if !cfg.noAgentArgs && s.Root() != "" {
		if err := isDirectory(s.Root()); err != nil {
			// An agent may refuse to start on a directory that is not one
			// (Copilot CLI's --add-dir does): with nothing to read there
			// yet, the agent starts as it would without pbwrap.
			logs.logf("agent: %s gets nothing of the root: %v", filepath.Base(argv[0]), err)
		} else {
			s.agent = argv
			argv = agent.AddArgs(argv, s.Root())
			sayStartNote(s, logs)
		}
	}
	logs.debugf("start: %s, session %s, root %s", argv, s.ID(), s.Root())
	waitCleanup := startCleanup(cleanupRoots(cfg, s.Root()), cfg, logs)
	defer waitCleanup()
	pcfg, in := proxyConfig(cfg, path, argv, s, logs)
	status, err := pending.Run(pcfg)
	if err != nil {
		return err
	}
	sayOrphans(in.Orphans()) // The terminal is restored: it is pbwrap's again.
	logs.debugf("exit: status %d", status)
	return quietExit(status)
}

// isDirectory says why path is not a directory, following symlinks; nil
// when it is one.
func isDirectory(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", path)
	}
	return nil
}

// sayStartNote tells the user, in one line before the agent takes the
// terminal, when the agent will ask something because of pbwrap that
// nothing pbwrap adds to its start prevents, and the command that fixes
// it (agent.StartNote). Nothing when the store cannot be used: then the
// pastes go in as text, and sayIfUnsaved has said so.
func sayStartNote(s *sessionOpener, logs *logs) {
	if s.Err() != nil {
		return
	}
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	note := agent.StartNote(s.agent, agent.OS(), cwd, s.Root())
	if note.IsZero() {
		return
	}
	line := note.Render(printable.Quote)
	fmt.Fprintf(os.Stderr, "pbwrap: %s\n", line)
	logs.logf("%s", line)
}

// execDirectly runs argv in pbwrap's place, unwrapped, with the
// effective settings in its environment, as a wrapped command would get
// them. A --log that cannot be opened is refused here as it is when
// wrapping, and one that can says why nothing was wrapped, naming the
// command but not its arguments, which may hold secrets, except with
// --debug.
func execDirectly(cfg *config, path string, argv []string) error {
	logger, closeLog, err := openLog(cfg.logPath)
	if err != nil {
		return usagef("%s: %v", cfg.find("log").name(), err)
	}
	started := argv[0]
	if cfg.debug {
		started = fmt.Sprint(argv)
	}
	logger.Printf("start: %s, directly: %s", started, passThroughReason(cfg))
	for _, w := range cfg.warnings() {
		logger.Printf("config: %s", w)
	}
	closeLog()
	root, err := store.ResolveRoot(cfg.root)
	if err != nil {
		root = cfg.root
	}
	return ptyproxy.Exec(path, argv, cfg.childEnv(os.Environ(), root))
}

// passThroughReason says why passThrough is true.
func passThroughReason(cfg *config) string {
	switch {
	case cfg.off:
		return "pbwrap is off (--off or PBWRAP_OFF)"
	case os.Getenv("PBWRAP_SESSION") != "":
		return "already inside pbwrap (PBWRAP_SESSION is set)"
	}
	return "standard input or output is not a terminal"
}

// sayOrphans tells the user, one line each, where the pastes went that
// were still arriving when the child ended: nowhere near the shell.
func sayOrphans(orphans []capture.Orphan) {
	for _, o := range orphans {
		if o.Path != "" {
			fmt.Fprintf(os.Stderr, "pbwrap: the agent exited during a paste; saved as %s\n", o.Path)
			continue
		}
		fmt.Fprintf(os.Stderr, "pbwrap: the agent exited during a paste; not saved (%s), so its rest was dropped\n", o.Reason)
	}
}

// passThrough reports whether the command runs directly, unwrapped: when
// pbwrap is off, already runs around this process (PBWRAP_SESSION), or
// standard input or output is not a terminal.
func passThrough(cfg *config) bool {
	return cfg.off || os.Getenv("PBWRAP_SESSION") != "" || !term.IsTerminal(0) || !term.IsTerminal(1)
}

// proxyConfig wires the paste capture filters between the terminal and
// the command, and returns the input filter too, for what it has to say
// at the end (see sayOrphans). Each time pbwrap takes the terminal (at
// start, on fg) it turns bracketed paste on and sets the child's modes
// again; each time it gives it back (on every way out, at Ctrl-Z) it
// undoes the modes the child left on, then turns bracketed paste off;
// and kitty's paste events likewise, while image paste has them on.
func proxyConfig(cfg *config, path string, argv []string, s *sessionOpener, logs *logs) (ptyproxy.Config, *capture.Input) {
	repeat := cfg.repeatWindow
	if repeat == 0 {
		repeat = -1 // Off: capture's zero is its default.
	}
	sys := frontend.Local()
	front := frontend.Detect(sys)
	image, why := imagePasteFor(cfg.imagePaste, os.Getenv, frontend.Names(sys.Ancestors))
	var in *capture.Input
	out := capture.NewOutput(capture.OutputConfig{
		AllowClipboardRead: cfg.allowClipboardRead,
		EightBit:           capture.LocaleEightBit(os.Getenv),
		// kitty's RIS and DECSTR turn paste events off too.
		ClipMode: func() bool { return in != nil && in.ImageOn() },
		Logf:     logs.logf,
		Debugf:   logs.debugf,
	})
	logs.debugf("image paste: %s: %s", image, why)
	logs.debugf("front end: %s", frontEndLine(front))
	if front.Drops {
		logs.debugf("front end: %s", frontend.DropsNote)
	}
	in = capture.NewInput(capture.Config{
		MinBytes:  cfg.minBytes,
		MinLines:  cfg.minLines,
		RefFormat: cfg.refFormat,
		Silence:   cfg.pasteTimeout,
		Burst:     cfg.burst,
		// What relays the keys, as doctor says: tmux (by $TMUX or by its
		// process) marks pastes and answers no question about it.
		Marks:        front.Marks,
		BurstGap:     front.Gap,
		RepeatWindow: repeat,
		Image:        image,
		Between:      out.Between,
		Settle:       out.Settle,
		// The replies to the child's own reads, which the output lets
		// through with --allow-clipboard-read.
		PassClipboardReplies: cfg.allowClipboardRead,
		Open:                 s.Open,
		Mode:                 out.Mode,
		CursorBlink:          out.SetCursorBlink,
		Logf:                 logs.logf,
		Debugf:               logs.debugf,
	})
	return ptyproxy.Config{
		Path:   path,
		Args:   argv,
		Env:    s.childEnv(cfg.childEnv(os.Environ(), s.Root()), logs.logf),
		Input:  in,
		Output: out,
		// Bracketed paste is on while pbwrap runs, whatever the child does, so
		// that it sees every paste, and off on the way out (and at Ctrl-Z).
		TerminalSetup:    func() []byte { return append(out.AppendRestore([]byte(termproto.PasteOn)), in.ImageSetup()...) },
		TerminalQuestion: func() []byte { return in.Ask(time.Now()) },
		TerminalReset:    func() []byte { return append(append(out.AppendReset(nil), termproto.PasteOff...), in.ImageReset()...) },
		Logf:             logs.logf,
	}, in
}

// logs are where pbwrap says what it does: logf for decisions and
// failures, debugf for per-paste details with --debug. Neither ever
// writes to the terminal, which belongs to the child.
type logs struct {
	logf, debugf func(format string, args ...any)
	close        func()
}

// openLogs opens the log that cfg asks for: --log, or the session's
// debug.log with --debug alone (when there is a session), or none.
func openLogs(cfg *config, sess *store.Session) (*logs, error) {
	path := cfg.logPath
	if path == "" && cfg.debug && sess != nil {
		path = filepath.Join(sess.Dir, "debug.log")
	}
	logger, closeLog, err := openLog(path)
	if err != nil {
		return nil, usagef("%s: %v", cfg.find("log").name(), err)
	}
	l := &logs{logf: logger.Printf, debugf: func(string, ...any) {}, close: closeLog}
	if cfg.debug {
		l.debugf = logger.Printf
	}
	return l, nil
}

// cleanupWait bounds how long pbwrap, its child gone, waits for the
// cleanup it started: a cleanup cut short is finished by the next one.
const cleanupWait = 2 * time.Second

// cleanupDelay is how long after the start the cleanup begins: by then the
// child has started and drawn its first screen. Run at once, the cleanup
// (which reads every session under the root) took a quarter of the CPU of
// a short run and competed with the start of the session process and the
// child on a machine with few CPUs (doc/performance.md).
const cleanupDelay = time.Second

// cleanupEvery is how often the cleanup at start goes through a root: at
// most once an hour, as cmd/go trims its cache at most once a day. A
// root holds a month of sessions (the TTL), and reading them all took 47
// ms for 500 sessions (store's BenchmarkCleanKept): work a run that starts
// within the hour need not do again. A session expires, and the store
// comes back under its cap, at most an hour late; pbwrap clean goes
// through at once.
const cleanupEvery = time.Hour

// startCleanup removes expired sessions from roots in the background,
// and trims the first to the cap (--max-store), cleanupDelay after the
// start, so that nothing slows the child's start, and returns a function
// that, when pbwrap is done, begins the cleanup at once if it has not
// begun yet and waits for it (within cleanupWait).
func startCleanup(roots []string, cfg *config, logs *logs) (wait func()) {
	if len(roots) == 0 {
		return func() {}
	}
	done, now := make(chan struct{}), make(chan struct{})
	go func() { // Ends when the cleanup does; waited for by wait.
		defer close(done)
		t := time.NewTimer(cleanupDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-now:
		}
		for i, root := range roots {
			limit := cfg.maxStore
			if i > 0 {
				limit = -1 // The earlier root only expires.
			}
			report, err := (&store.Cleaner{Root: root, TTL: cfg.ttl, MaxBytes: limit, Every: cleanupEvery}).Clean()
			logs.cleanup(report, err)
		}
	}()
	return func() {
		close(now)
		select {
		case <-done:
		case <-time.After(cleanupWait):
			logs.logf("cleanup: still running after %v; leaving it to the next run", cleanupWait)
		}
	}
}

// cleanup logs what a cleanup did.
func (l *logs) cleanup(report *store.CleanReport, err error) {
	switch {
	case errors.Is(err, store.ErrCleanupBusy), errors.Is(err, store.ErrNotDue):
		l.debugf("cleanup: %v", err)
	case err != nil:
		l.logf("cleanup: %v", err)
	default:
		for _, r := range report.Removed {
			l.debugf("cleanup: removed session %s (%d bytes)", r.ID, r.Bytes)
		}
		for _, r := range report.Trimmed {
			l.logf("cleanup: trimmed session %s (%d bytes), the oldest ended one, to keep under --max-store", r.ID, r.Bytes)
		}
		if report.Temps > 0 {
			l.debugf("cleanup: removed %d temp files a crash left in ended sessions", report.Temps)
		}
		for _, why := range report.Skipped {
			l.logf("cleanup: left alone: %s", why)
		}
	}
}

// A sessionOpener is the run's store session (store.Opener) with what
// the child is given of it: its environment (childEnv), and agent, the
// command as given when pbwrap adds what a known agent needs to read the
// root.
type sessionOpener struct {
	*store.Opener
	argv0 string   // the command's base name, for messages
	agent []string // set when the agent's own arguments get the root (see childEnv)
}

func newSessionOpener(cfg *config, argv0 string) *sessionOpener {
	meta := store.Meta{PID: os.Getpid(), Argv0: argv0, Start: time.Now(), Version: versionString()}
	return &sessionOpener{Opener: store.NewOpener(cfg.root, meta), argv0: argv0}
}

// sayIfUnsaved tells the user, once and before the child owns the
// terminal, that pastes will go inline because the store cannot be used
// until the root is fixed, and how to learn more. With --require-store it
// returns that as the error instead, and the command does not run. Either
// is one line, with what does not print escaped (the root's path may hold
// a newline or ESC: that may be why it is refused); a root that does not
// print is not repeated in the doctor command, which the user could not
// paste back anyway.
func (s *sessionOpener) sayIfUnsaved(cfg *config, logf func(string, ...any)) error {
	rootErr := s.Err()
	if rootErr == nil {
		return nil
	}
	logf("%v", rootErr) // The store's errors say "store:".
	root := s.Root()
	if root == "" {
		root = cfg.root
	}
	doctor := "pbwrap doctor"
	if printable.Prints(root) {
		doctor = "pbwrap --root " + shellword.Quote(root) + " doctor"
	}
	if cfg.requireStore {
		return fmt.Errorf("not running %s: pastes cannot be saved (--require-store): %s (%s tells more)", printable.Inline(s.argv0), printable.Inline(rootErr.Error()), doctor)
	}
	fmt.Fprintf(os.Stderr, "pbwrap: not saving pastes: %s (%s tells more)\n", printable.Inline(rootErr.Error()), doctor)
	return nil
}

// childEnv is env with the session's variables set: PBWRAP_SESSION also
// tells a nested pbwrap to step aside. A known agent that takes its read
// permissions from the environment gets the root there too (agent.AddEnv); a
// value of the user's that pbwrap cannot add to is left alone, and the log
// says so.
func (s *sessionOpener) childEnv(env []string, logf func(string, ...any)) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !agent.HasKey(kv, "PBWRAP_SESSION") && !agent.HasKey(kv, "PBWRAP_SESSION_DIR") {
			out = append(out, kv)
		}
	}
	id := s.ID()
	if id == "" {
		id = "none"
	}
	out = append(out, "PBWRAP_SESSION="+id)
	if s.Root() != "" && s.ID() != "" {
		out = append(out, "PBWRAP_SESSION_DIR="+filepath.Join(s.Root(), s.ID()))
	}
	if s.agent != nil {
		var err error
		if out, err = agent.AddEnv(s.agent, out, s.Root()); err != nil {
			logf("%v", err)
		}
	}
	return out
}

// openLog opens the log file for appending (0600), or a logger that
// discards everything when path is empty. The terminal belongs to the
// child: pbwrap never logs there.
func openLog(path string) (*log.Logger, func(), error) {
	if path == "" {
		return log.New(discard{}, "", 0), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return log.New(f, fmt.Sprintf("pbwrap[%d] ", os.Getpid()), log.LstdFlags|log.Lmicroseconds), func() { f.Close() }, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
