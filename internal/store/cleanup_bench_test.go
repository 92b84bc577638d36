package store

import (
	"fmt"
	"testing"
	"time"
)

// What the start-up cleanup costs as the root fills: a week of sessions
// (the old TTL, about 120 at 17 a day) against a month (the new one, about
// 500), none expired, so that each is read and its size added for the
// cap.
func BenchmarkCleanKept(b *testing.B) {
	for _, n := range []int{120, 500} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			r, err := OpenRoot(b.TempDir() + "/root")
			if err != nil {
				b.Fatal(err)
			}
			for range n {
				id, err := NewSessionID()
				if err != nil {
					b.Fatal(err)
				}
				s, err := r.NewSession(id, testMeta)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Record(PasteRecord{Bytes: 10, Lines: 1, Time: time.Now(), Outcome: OutcomeInline}); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			c := &Cleaner{Root: r.Path}
			for b.Loop() {
				if rep, err := c.Clean(); err != nil || len(rep.Removed)+len(rep.Trimmed) > 0 {
					b.Fatalf("Clean: %+v, %v", rep, err)
				}
			}
		})
	}
}
