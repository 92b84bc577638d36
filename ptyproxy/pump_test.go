//go:build darwin || freebsd || linux

package ptyproxy

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/ptytest"
)

// holdEsc is a test Filter: it upper-cases letters, holds a trailing ESC
// back until its deadline, and says which calls it got.
type holdEsc struct {
	hold  time.Duration
	held  bool
	calls []string
}

func (f *holdEsc) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	f.calls = append(f.calls, "filter")
	out := bytes.ToUpper(p)
	if f.held {
		out = append([]byte{0x1b}, out...)
		f.held = false
	}
	if n := len(out); n > 0 && out[n-1] == 0x1b {
		f.held = true
		out = out[:n-1]
	}
	_, err := w.Write(out)
	if f.held {
		return now.Add(f.hold), err
	}
	return time.Time{}, err
}

func (f *holdEsc) Flush(w io.Writer, now time.Time) (time.Time, error) {
	f.calls = append(f.calls, "flush")
	if !f.held {
		return time.Time{}, nil
	}
	f.held = false
	_, err := w.Write([]byte{0x1b})
	return time.Time{}, err
}

func (f *holdEsc) Close(w io.Writer) error {
	f.calls = append(f.calls, "close")
	_, err := f.Flush(w, time.Time{})
	return err
}

func TestPumpWithoutFilterCopies(t *testing.T) {
	var w ptytest.Buffer
	p := newPump("test", nil, &w, nil)
	p.feed([]byte("abc\x1b"))
	p.write([]byte("[set]"))
	p.feed([]byte("def"))
	p.close()
	if got, want := w.String(), "abc\x1b[set]def"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPumpFlushesAtDeadline(t *testing.T) {
	var w ptytest.Buffer
	f := &holdEsc{hold: 5 * time.Millisecond}
	p := newPump("test", f, &w, nil)
	p.feed([]byte("ab\x1b"))
	if got := w.String(); got != "AB" {
		t.Fatalf("before the deadline: got %q, want %q", got, "AB")
	}
	deadline := time.Now().Add(5 * time.Second)
	for w.String() != "AB\x1b" {
		if time.Now().After(deadline) {
			t.Fatalf("the held ESC never came: got %q", w.String())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPumpInputBeforeDeadlineCancelsFlush(t *testing.T) {
	var w ptytest.Buffer
	f := &holdEsc{hold: time.Hour}
	p := newPump("test", f, &w, nil)
	p.feed([]byte("a\x1b"))
	p.feed([]byte("b"))
	p.close()
	if got, want := w.String(), "A\x1bB"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if want := []string{"filter", "filter", "close", "flush"}; !equal(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
}

func TestPumpCloseReleasesHeldBytes(t *testing.T) {
	var w ptytest.Buffer
	p := newPump("test", &holdEsc{hold: time.Hour}, &w, nil)
	p.feed([]byte("x\x1b"))
	p.close()
	if got, want := w.String(), "X\x1b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, io.ErrClosedPipe
}

func TestPumpLogsFirstErrorOnly(t *testing.T) {
	var logged []string
	logf := func(format string, args ...any) { logged = append(logged, format) }
	w := &failWriter{}
	p := newPump("output", nil, w, logf)
	p.feed([]byte("a"))
	p.feed([]byte("b"))
	if w.n != 2 {
		t.Errorf("writes after an error: %d, want the stream to go on (2)", w.n)
	}
	if len(logged) != 1 {
		t.Errorf("logged %d errors, want 1", len(logged))
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkPumpKeystroke is the per-keystroke cost of the pump, without a
// filter and with one that does nothing but pass bytes on.
func BenchmarkPumpKeystroke(b *testing.B) {
	key := []byte("x")
	b.Run("nil", func(b *testing.B) {
		p := newPump("bench", nil, io.Discard, nil)
		for b.Loop() {
			p.feed(key)
		}
	})
	b.Run("identity", func(b *testing.B) {
		p := newPump("bench", identity{}, io.Discard, nil)
		for b.Loop() {
			p.feed(key)
		}
	})
}

type identity struct{}

func (identity) Filter(w io.Writer, p []byte, _ time.Time) (time.Time, error) {
	_, err := w.Write(p)
	return time.Time{}, err
}
func (identity) Flush(io.Writer, time.Time) (time.Time, error) { return time.Time{}, nil }
func (identity) Close(io.Writer) error                         { return nil }
