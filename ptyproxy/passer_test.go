//go:build darwin || freebsd || linux

package ptyproxy

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// echoPasser is a Passer that writes what it is given, split in two
// writes, and says it passes up to pass characters; lie makes it write
// something else.
type echoPasser struct {
	pass     int
	lie      bool
	sawAhead []string // what its writer had already received at each call
	dst      *bytes.Buffer
}

func (f *echoPasser) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	f.sawAhead = append(f.sawAhead, f.dst.String())
	if f.lie {
		p = bytes.ToUpper(p)
	}
	h := len(p) / 2
	if _, err := w.Write(p[:h]); err != nil {
		return time.Time{}, err
	}
	_, err := w.Write(p[h:])
	return time.Time{}, err
}
func (*echoPasser) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (*echoPasser) Close(io.Writer) error                         { return nil }
func (f *echoPasser) Passing() int                                { return f.pass }

// Plain text that the filter says it passes is written before the filter
// runs, once: the filter's own writes of it go nowhere. Text with an ESC,
// or longer than the filter passes, waits for the filter as before.
func TestPumpWritesAhead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pass  int
		in    string
		ahead bool
	}{
		{"key", 2, "a", true},
		{"two keys", 2, "ab", true},
		{"more than passes", 2, "abc", false},
		{"multi-byte characters", 2, "é漢", true},
		{"ESC", 2, "\x1b", false},
		{"nothing passes", 0, "a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dst bytes.Buffer
			f := &echoPasser{pass: tc.pass, dst: &dst}
			p := newPump("test", f, &dst, t.Logf)
			p.feed([]byte(tc.in))
			if dst.String() != tc.in {
				t.Errorf("wrote %q, want %q once", dst.String(), tc.in)
			}
			want := ""
			if tc.ahead {
				want = tc.in
			}
			if f.sawAhead[0] != want {
				t.Errorf("before the filter ran: %q, want %q", f.sawAhead[0], want)
			}
		})
	}
}

// A filter that says it passes text and then writes something else: what
// it writes is not lost, and the log says so, without the text.
func TestPumpWritesAheadOfALyingFilter(t *testing.T) {
	var dst bytes.Buffer
	var logs []string
	f := &echoPasser{pass: 8, lie: true, dst: &dst}
	p := newPump("test", f, &dst, func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) })
	p.feed([]byte("secret"))
	if got := dst.String(); got != "secretSECRET" {
		t.Errorf("wrote %q, want what went ahead, then what the filter wrote", got)
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "6 bytes") || strings.Contains(logs[0], "secret") {
		t.Errorf("logs %q, want one line with the size and not the text", logs)
	}
}

// How much passes is asked again after each call: a filter that passes
// nothing more after the first key gets the second only through itself.
func TestPumpAsksPassingAfterEachCall(t *testing.T) {
	var dst bytes.Buffer
	f := &countdownPasser{echoPasser: echoPasser{pass: 1, dst: &dst}}
	p := newPump("test", f, &dst, t.Logf)
	p.feed([]byte("a"))
	p.feed([]byte("b"))
	if dst.String() != "ab" || f.sawAhead[0] != "a" || f.sawAhead[1] != "a" {
		t.Errorf("wrote %q; before each call %q, want %q", dst.String(), f.sawAhead, []string{"a", "a"})
	}
}

// countdownPasser passes one fewer character after each call.
type countdownPasser struct{ echoPasser }

func (f *countdownPasser) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	f.pass--
	return f.echoPasser.Filter(w, p, now)
}

// Once the command has ended, nothing goes ahead: what the filter writes
// goes nowhere, and so does what it passes.
func TestPumpWritesNothingAheadOnceEnded(t *testing.T) {
	var dst bytes.Buffer
	f := &echoPasser{pass: 8, dst: &dst}
	p := newPump("test", f, &dst, t.Logf)
	p.end()
	p.feed([]byte("late"))
	if dst.Len() != 0 {
		t.Errorf("wrote %q after the command ended", dst.String())
	}
}

func TestPlainWithin(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want bool
	}{
		{"", 0, true},
		{"a", 1, true},
		{"ab", 1, false},
		{"é", 1, true},
		{"\xa9", 0, true},
		{"a\x1b", 5, false},
		{"\r\x7f\t", 3, true},
		{strings.Repeat("a", 65), 64, false}, // Longer reads: first the search for ESC.
		{strings.Repeat("a", 65), 65, true},
		{strings.Repeat("é", 65), 65, true},
		{strings.Repeat("é", 65), 64, false},
		{strings.Repeat("a", 100) + "\x1b" + strings.Repeat("a", 10), 1 << 30, false},
	} {
		if got := plainWithin([]byte(tc.in), tc.n); got != tc.want {
			t.Errorf("plainWithin(%q, %d) = %v, want %v", tc.in, tc.n, got, tc.want)
		}
	}
}

// The filter is given the time of the read, not of the end of the write
// that went ahead: a write that waits (here 50 ms, a command that does
// not read for a moment) is not time between two keys, which the burst
// detector counts.
func TestPumpWriteAheadKeepsTheReadTime(t *testing.T) {
	var dst bytes.Buffer
	f := &clockPasser{echoPasser: echoPasser{pass: 8, dst: &dst}}
	p := newPump("test", f, &slowWriter{w: &dst, d: 50 * time.Millisecond}, t.Logf)
	before := time.Now()
	p.feed([]byte("a"))
	if dst.String() != "a" || f.sawAhead[0] != "a" {
		t.Fatalf("wrote %q, before the filter %q: want the key once, ahead", dst.String(), f.sawAhead)
	}
	if late := f.now.Sub(before); late >= 50*time.Millisecond {
		t.Errorf("the filter was given a time %v after the read began, past the write's wait", late)
	}
}

// clockPasser is an echoPasser that keeps the time it was given.
type clockPasser struct {
	echoPasser
	now time.Time
}

func (f *clockPasser) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	f.now = now
	return f.echoPasser.Filter(w, p, now)
}

// slowWriter waits d before each write.
type slowWriter struct {
	w io.Writer
	d time.Duration
}

func (s *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(s.d)
	return s.w.Write(p)
}
