package ptyproxy

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadSpy passes what it gets on and records the threads it was called
// on.
type threadSpy struct {
	identity
	mu   sync.Mutex
	tids map[int]int
}

func (f *threadSpy) Filter(w io.Writer, p []byte, now time.Time) (time.Time, error) {
	f.mu.Lock()
	f.tids[unix.Gettid()]++
	f.mu.Unlock()
	return f.identity.Filter(w, p, now)
}

// The output direction runs on one thread for good: it is not handed
// from thread to thread by the scheduler (its passes through it while
// hot, a P taken back after a system call), whatever else the program
// runs. Each move wakes another thread and takes the bytes to another
// CPU's cache: in a flood that cost 5% of the output throughput
// (doc/performance.md).
func TestRelayStaysOnItsThread(t *testing.T) {
	spy := &threadSpy{tids: map[int]int{}}
	r := newRelayRigWith(t, nil, spy)
	// Other goroutines, more than there are Ps, keep every P and thread
	// busy and the run queues full.
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				runtime.Gosched()
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	// Output 1 ms apart for 200 ms keeps the direction hot: it passes
	// through the scheduler every yieldEvery.
	sent := 0
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); time.Sleep(time.Millisecond) {
		r.printed.Write([]byte("o"))
		sent++
	}
	readN(t, r.shown, sent)
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if len(spy.tids) != 1 {
		t.Errorf("the output direction ran on %d threads (calls per thread: %v), want 1", len(spy.tids), spy.tids)
	}
}
