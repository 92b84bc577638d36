package store

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// A Temp gathers small writes, and what it has gathered is read back by
// Open, whether it reached the file or a write of it failed: a paste that
// falls back to inline delivery loses nothing.
func TestTempOpenReadsWhatWasGathered(t *testing.T) {
	s := newSession(t, newRoot(t))
	tmp, err := s.CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Discard()
	var want bytes.Buffer
	write := func(p []byte) error {
		n, err := tmp.Write(p)
		want.Write(p[:n])
		return err
	}
	for range 3 { // Gathered, then written out by the next large write.
		if err := write(bytes.Repeat([]byte("ab"), 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := write(bytes.Repeat([]byte("x"), tempBufSize)); err != nil {
		t.Fatal(err)
	}
	if err := write([]byte("gathered")); err != nil {
		t.Fatal(err)
	}
	wantRead(t, tmp, want.Bytes())

	// The file refuses writes from now on: what is gathered stays, and
	// the write that would have flushed it takes nothing.
	good := tmp.f
	ro, err := os.Open(tmp.path)
	if err != nil {
		t.Fatal(err)
	}
	tmp.mu.Lock()
	tmp.f = ro
	tmp.mu.Unlock()
	defer func() { tmp.mu.Lock(); tmp.f = good; tmp.mu.Unlock(); ro.Close() }()
	if err := write([]byte("more")); err != nil {
		t.Fatal(err)
	}
	if err := write(bytes.Repeat([]byte("y"), tempBufSize)); err == nil {
		t.Fatal("a write to a file that refuses it succeeded")
	}
	wantRead(t, tmp, want.Bytes())
}

// wantRead checks that Open reads want from tmp.
func wantRead(t *testing.T, tmp *Temp, want []byte) {
	t.Helper()
	r, err := tmp.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Open read %d bytes, want the %d written", len(got), len(want))
	}
}

// A Temp that writes behind passes its file to the writer behind as it
// grows (the first step at the latest: a later one may find the writer
// busy, and pass on with the next), one that does not never does, and
// both commit the same text.
func TestTempWriteBehind(t *testing.T) {
	for _, behind := range []bool{false, true} {
		s := newSession(t, newRoot(t))
		tmp, err := s.CreateTemp()
		if err != nil {
			t.Fatal(err)
		}
		if behind {
			tmp.WriteBehind()
		}
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB, as a terminal's read
		var want bytes.Buffer
		for range 3 * writeBehindStep / len(chunk) {
			if _, err := tmp.Write(chunk); err != nil {
				t.Fatal(err)
			}
			want.Write(chunk)
		}
		tmp.mu.Lock()
		started := tmp.started
		tmp.mu.Unlock()
		switch {
		case behind && started < writeBehindStep:
			t.Errorf("writing behind: passed %d bytes of %d to the writer behind", started, want.Len())
		case !behind && started != 0:
			t.Errorf("not writing behind: passed %d bytes to a writer behind", started)
		}
		_, path, _, err := s.CommitPaste(tmp, sum(want.String()))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("behind=%v: the committed file holds %d bytes (%v), want the %d written", behind, len(got), err, want.Len())
		}
	}
}
