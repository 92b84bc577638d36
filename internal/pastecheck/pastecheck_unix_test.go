//go:build darwin || freebsd || linux

package pastecheck

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/capture"
	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

// pasteQuietTest ends a paste without markers in the tests: past the
// pauses of the terminals played here, short enough not to slow them.
const pasteQuietTest = 300 * time.Millisecond

// A paste's markers, as a terminal sends them.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// looking is the policy of a wrapper that looks for unmarked pastes, in
// a terminal that does not say whether it marks them.
var looking = Policy{Mode: capture.BurstAuto, Look: true, Why: "the terminal does not say whether it marks pastes"}

// TestPasteCheck plays the terminal on the master side of a PTY while
// pbwrap doctor --paste's check runs on its slave side, opened as doctor
// opens /dev/tty: the terminal answers the question with a paste,
// bracketed or not, at once or in VS Code's chunks, with typing, with
// nothing, or with Ctrl-C. The check reports what it saw, and what pbwrap
// would make of it, and leaves the terminal as it was: its settings, and
// nothing unread.
func TestPasteCheck(t *testing.T) {
	body := ptytest.Lines(600, "pasted")
	for _, tc := range []struct {
		name    string
		policy  Policy
		wait    time.Duration
		play    func(master *os.File)
		check   func(t *testing.T, s *Sample)
		problem string // in the report's problem; "" for none
		paused  string // the problem instead, when the reads paused longer than a burst waits
	}{
		{
			name:   "bracketed",
			policy: looking,
			play:   writeAll(pasteStart + body + pasteEnd),
			check: func(t *testing.T, s *Sample) {
				if !s.bracketed || !s.ended || s.bytes != int64(len(body)) || s.lines != 600 || len(s.bursts) != 0 {
					t.Errorf("sample %+v, want a bracketed paste of %d bytes, 600 lines", summary(s), len(body))
				}
			},
		},
		{
			name:   "without markers, at once",
			policy: looking,
			play:   writeAll(body),
			check: func(t *testing.T, s *Sample) {
				if s.bracketed || len(s.bursts) != 1 || s.bursts[0] != int64(len(body)) || s.typed != 0 {
					t.Errorf("sample %+v, want one burst of all %d bytes", summary(s), len(body))
				}
			},
		},
		{
			name:   "without markers, 50 bytes every 5 ms",
			policy: looking,
			paused: "pauses within a paste",
			play:   func(master *os.File) { writeChunks(master, body, 50, 5*time.Millisecond) },
			check: func(t *testing.T, s *Sample) {
				if len(s.reads) < 2 || s.bytes != int64(len(body)) {
					t.Errorf("sample %+v, want %d bytes in several reads", summary(s), len(body))
				}
				// The check's own reads may pause longer than the writes
				// did, on a loaded machine: one burst exactly when they
				// did not.
				if longestPause(s.reads) < termproto.BurstGap && (len(s.bursts) != 1 || s.bursts[0] != int64(len(body))) {
					t.Errorf("sample %+v, want one burst of all %d bytes", summary(s), len(body))
				}
				if longestPause(s.reads) >= termproto.BurstGap && len(s.bursts) < 2 {
					t.Errorf("sample %+v, want it split where the reads paused %v", summary(s), longestPause(s.reads))
				}
			},
		},
		{
			name:   "typing",
			policy: looking,
			play: func(master *os.File) {
				for _, key := range []string{"a", "\r"} {
					time.Sleep(30 * time.Millisecond)
					_, _ = master.WriteString(key)
				}
			},
			check: func(t *testing.T, s *Sample) {
				if s.bracketed || len(s.bursts) != 0 || s.typed != 2 {
					t.Errorf("sample %+v, want 2 bytes typed, no burst", summary(s))
				}
			},
			problem: "cannot tell this terminal's pastes from typing",
		},
		{
			name:    "without markers, --burst off",
			policy:  Policy{Mode: capture.BurstOff, Why: "--burst off"},
			play:    writeAll(body),
			check:   func(*testing.T, *Sample) {},
			problem: "--burst is off",
		},
		{
			name:   "without markers, where the front end marks pastes",
			policy: Policy{Mode: capture.BurstAuto, Why: "the front end marks pastes"},
			play:   writeAll(body),
			check: func(t *testing.T, s *Sample) {
				if s.bracketed || len(s.bursts) != 0 || s.typed != int64(len(body)) {
					t.Errorf("sample %+v, want all %d bytes typed, as the wrapper passes them", summary(s), len(body))
				}
			},
			problem: "takes unmarked input for typing here (the front end marks pastes)",
		},
		{
			name:    "nothing",
			policy:  looking,
			wait:    200 * time.Millisecond,
			play:    func(*os.File) {},
			check:   func(*testing.T, *Sample) {},
			problem: "no paste was checked",
		},
		{
			name:    "Ctrl-C",
			policy:  looking,
			play:    writeAll("\x03"),
			check:   func(*testing.T, *Sample) {},
			problem: "no paste was checked",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openTestPTY(t)
			before, err := ptyio.GetTermios(slave)
			if err != nil {
				t.Fatal(err)
			}
			c := pasteCheck{wait: ptytest.Watchdog / 2, quiet: pasteQuietTest}
			if tc.wait > 0 {
				c.wait = tc.wait
			}
			done := runPasteCheck(t, c, slave.Name(), tc.policy)
			shown := readMaster(t, master, "Waiting")
			if !strings.HasPrefix(shown, termproto.PasteOn+"pbwrap doctor: paste some text") {
				t.Errorf("the terminal was shown %q, want bracketed paste on, then the question", shown)
			}
			tc.play(master)
			// Once the terminal has played, the check ends within its
			// quiet, or at its wait when nothing was pasted.
			s := waitPasteCheck(t, done, 10*max(c.quiet, tc.wait))
			tc.check(t, s)
			problem := tc.problem
			if tc.paused != "" && longestPause(s.reads) >= termproto.BurstGap {
				// The writes, or the check's reads, paused longer than a
				// burst waits (a loaded machine): the split is reported.
				problem = tc.paused
			}
			if r := Describe(s); !strings.Contains(r.Problem, problem) || (problem == "") != (r.Problem == "") {
				t.Errorf("report %q, problem %q; want a problem with %q", r.Lines, r.Problem, tc.problem)
			}
			if shown := readMaster(t, master, termproto.PasteOff); !strings.HasSuffix(shown, termproto.PasteOff) {
				t.Errorf("the terminal was shown %q at the end, want bracketed paste off", shown)
			}
			if after, err := ptyio.GetTermios(slave); err != nil || *after != *before {
				t.Errorf("termios after the check:\n%+v, %v\nwant\n%+v", after, err, before)
			}
			if read := shellReads(t, master, slave.Name()); read != sentinel {
				t.Errorf("the shell then reads %q, want %q", read, sentinel)
			}
		})
	}
}

// What doctor --paste says of each kind of sample.
func TestDescribePaste(t *testing.T) {
	reads := []pasteRead{{0, 4095}, {100 * time.Microsecond, 4095}, {300 * time.Microsecond, 1000}}
	for _, tc := range []struct {
		name    string
		s       Sample
		says    []string
		problem string
	}{
		{"bracketed", Sample{reads: reads, bytes: 9180, lines: 300, bracketed: true, ended: true, policy: looking},
			[]string{"received 9180 bytes, 300 lines, in 3 reads over 300µs, of 1000 to 4095 bytes (median 4095), the longest pause between reads 200µs", "bracketed: yes"}, ""},
		{"one burst", Sample{reads: reads, bytes: 9180, policy: looking, bursts: []int64{9180}},
			[]string{"bracketed: no", "bursts (--burst auto: the terminal does not say whether it marks pastes): caught, as one paste of 9180 bytes"}, ""},
		{"one burst after typing", Sample{reads: reads, bytes: 9180, policy: Policy{Mode: capture.BurstOn, Look: true, Why: "--burst on"}, bursts: []int64{9178}, typed: 2},
			[]string{"bursts (--burst on: --burst on): caught, as one paste of 9178 bytes: one that comes so is saved when it is large (2 bytes before it came as typed)"}, ""},
		{"split", Sample{reads: reads, bytes: 9180, policy: looking, bursts: []int64{4095, 5085}},
			[]string{"split into 2 pastes: the terminal paused longer than pbwrap waits within a paste (" + termproto.BurstGap.String() + ")"}, "may split a large paste"},
		{"not looked for", Sample{reads: reads, bytes: 9180, policy: Policy{Mode: capture.BurstAuto, Why: "the front end marks pastes"}, typed: 9180},
			[]string{"not looked for (--burst auto: the front end marks pastes): pbwrap passes this paste on as typed"}, "takes unmarked input for typing"},
		{"typing", Sample{reads: reads, bytes: 9180, policy: looking, typed: 9180},
			[]string{"bursts (--burst auto: the terminal does not say whether it marks pastes): none"}, "cannot tell"},
		{"off", Sample{reads: reads, bytes: 9180, policy: Policy{Mode: capture.BurstOff, Why: "--burst off"}, typed: 9180},
			[]string{"not looked for (--burst off)"}, "--burst is off"},
		{"no end marker", Sample{reads: reads[:1], bytes: 4089, bracketed: true, policy: looking},
			[]string{"in one read", "not its end marker"}, "never ended it"},
		{"nothing", Sample{}, []string{"nothing was pasted within 1m"}, "no paste was checked"},
		{"cancelled", Sample{reads: reads[:1], cancelled: true}, []string{"skipped (Ctrl-C)"}, "no paste was checked"},
	} {
		r := Describe(&tc.s)
		text := strings.Join(r.Lines, "\n")
		for _, want := range tc.says {
			if !strings.Contains(text, want) {
				t.Errorf("%s: report\n%s\nwant it to say %q", tc.name, text, want)
			}
		}
		if !strings.Contains(r.Problem, tc.problem) || (tc.problem == "") != (r.Problem == "") || (r.Problem == "") != (r.Fix == "") {
			t.Errorf("%s: problem %q, fix %q; want a problem with %q and its fix", tc.name, r.Problem, r.Fix, tc.problem)
		}
	}
}

// longestPause is the longest time between two reads.
func longestPause(reads []pasteRead) time.Duration {
	var longest time.Duration
	for i := 1; i < len(reads); i++ {
		longest = max(longest, reads[i].at-reads[i-1].at)
	}
	return longest
}

// summary is a sample without its reads, for messages.
func summary(s *Sample) string {
	c := *s
	c.reads = nil
	return fmt.Sprintf("%+v in %d reads", c, len(s.reads))
}

// writeAll returns a play that writes p in one write.
func writeAll(p string) func(*os.File) {
	return func(master *os.File) { _, _ = master.WriteString(p) }
}

// writeChunks writes p in chunks of size bytes, spacing apart.
func writeChunks(master *os.File, p string, size int, spacing time.Duration) {
	var prev time.Time
	for len(p) > 0 {
		n := min(size, len(p))
		time.Sleep(time.Until(prev.Add(spacing)))
		prev = time.Now()
		_, _ = master.WriteString(p[:n])
		p = p[n:]
	}
}

type pasteResult struct {
	s   *Sample
	err error
}

// runPasteCheck runs c on the terminal at path, opened as doctor opens
// /dev/tty, in the background.
func runPasteCheck(t *testing.T, c pasteCheck, path string, policy Policy) <-chan pasteResult {
	t.Helper()
	tty, err := ptyio.OpenTTY(path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan pasteResult, 1)
	go func() { // Ends when the check does, or is left behind at the watchdog.
		defer tty.Close()
		s, err := c.run(tty, policy)
		done <- pasteResult{s, err}
	}()
	return done
}

// waitPasteCheck waits for the check's sample, failing the test once
// bound has passed: a small multiple of how long the check may still take.
func waitPasteCheck(t *testing.T, done <-chan pasteResult, bound time.Duration) *Sample {
	t.Helper()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("the check: %v", r.err)
		}
		return r.s
	case <-time.After(bound):
		t.Fatalf("watchdog: the check did not return within %v", bound)
		return nil
	}
}

// readMaster reads what the terminal is shown until want.
func readMaster(t *testing.T, master *os.File, want string) string {
	t.Helper()
	if err := master.SetReadDeadline(time.Now().Add(ptytest.Watchdog)); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 1024)
	for !bytes.Contains(got, []byte(want)) {
		n, err := master.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("the terminal was shown %q, then: %v", got, err)
		}
	}
	return string(got)
}

// sentinel is what the user types once the query is over: the first
// thing the shell reads after it must be what followed the answers, then
// this.
const sentinel = "Z\n"

// openTestPTY opens a PTY whose slave is cooked, with echo, and has VMIN
// and VTIME of its own, so that the query must restore them.
func openTestPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, slave, err := ptyio.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	tios, err := ptyio.GetTermios(slave)
	if err != nil {
		t.Fatal(err)
	}
	tios.Lflag |= unix.ECHO | unix.ICANON | unix.ISIG
	tios.Cc[unix.VMIN], tios.Cc[unix.VTIME] = 3, 7
	if err := ptyio.SetTermios(slave, tios); err != nil {
		t.Fatal(err)
	}
	return master, slave
}

// shellReads types the sentinel on master and returns what the shell
// reads from the terminal at path up to it: anything the query left
// unread comes first.
func shellReads(t *testing.T, master *os.File, path string) string {
	t.Helper()
	shell, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer shell.Close()
	if err := shell.SetReadDeadline(time.Now().Add(ptytest.Watchdog)); err != nil {
		t.Fatalf("read %s with a deadline: %v", path, err)
	}
	if _, err := master.WriteString(sentinel); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 256)
	for !bytes.HasSuffix(got, []byte(sentinel)) {
		n, err := shell.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("read %s after %q: %v", path, got, err)
		}
	}
	return string(got)
}
