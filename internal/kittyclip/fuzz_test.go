package kittyclip

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzScanner: any split of the input gives the events of a one-shot
// scan; input with no packet prefix passes whole; Parse never panics.
func FuzzScanner(f *testing.F) {
	for _, tt := range scanTests {
		f.Add([]byte(tt.in), uint8(3), uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, a, b uint8) {
		var whole events
		s := NewScanner(&whole)
		s.Write(in, epoch)
		s.Close()

		var split events
		s = NewScanner(&split)
		for rest, i := in, 0; len(rest) > 0; i++ {
			n := 1 + int(a)
			if i%2 == 1 {
				n = 1 + int(b)
			}
			n = min(n, len(rest))
			s.Write(rest[:n], epoch.Add(time.Duration(i)))
			rest = rest[n:]
		}
		s.Close()
		if !slices.Equal(whole.list, split.list) {
			t.Fatalf("split %d/%d:\n got %q\nwant %q", a, b, split.list, whole.list)
		}
		if !bytes.Contains(in, []byte(prefix)) {
			want := ""
			if len(in) > 0 {
				want = "pass " + string(in)
			}
			if whole.String() != want {
				t.Fatalf("no packet, yet %q", whole.String())
			}
		}
		for _, ev := range whole.list {
			if m, ok := strings.CutPrefix(ev, "packet "); ok {
				meta, payload, _ := strings.Cut(m, ";")
				p, err := Parse([]byte(meta), []byte(payload))
				if err == nil {
					_, _ = p.Types()
				}
			}
		}
	})
}

// FuzzAppendRead: a request AppendRead accepts scans back as one packet
// with its id, password, location and types.
func FuzzAppendRead(f *testing.F) {
	f.Add("pbwrap-1", "Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==", "Paste event", "image/png", false)
	f.Add("x", "QQ==", "pbwrap", "text/plain", true)
	f.Fuzz(func(t *testing.T, id, pw, name, mime string, primary bool) {
		r := Read{ID: id, PW: pw, Name: name, Primary: primary, MIME: strings.Split(mime, ",")}
		req, err := AppendRead(nil, r)
		if err != nil {
			return
		}
		var e events
		s := NewScanner(&e)
		s.Write(req, epoch)
		if len(e.list) != 1 || !strings.HasPrefix(e.list[0], "packet ") {
			t.Fatalf("%q scans as %q", req, e.list)
		}
		meta, payload, _ := strings.Cut(strings.TrimPrefix(e.list[0], "packet "), ";")
		p, err := Parse([]byte(meta), []byte(payload))
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		types, err := p.Types()
		if p.ID != id || p.PW != pw || (p.Loc == "primary") != primary || err != nil || !slices.Equal(types, r.MIME) {
			t.Fatalf("%q reads back as %+v, types %q, %v", req, p, types, err)
		}
	})
}
