package imagepaste

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pbwrap/pbwrap/internal/kittyclip"
)

var epoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// rec records what a Paster decides.
type rec struct {
	events   []string
	image    []byte
	text     []byte
	startErr error
	endErr   error
}

func (r *rec) add(f string, a ...any) { r.events = append(r.events, fmt.Sprintf(f, a...)) }

func (r *rec) Terminal(p []byte) { r.add("terminal %q", p) }
func (r *rec) TextStart()        { r.add("text start") }
func (r *rec) TextData(p []byte) { r.text = append(r.text, p...) }
func (r *rec) TextEnd()          { r.add("text end %q", r.text) }
func (r *rec) ImageStart(f Format) error {
	r.add("image start %s convert=%v", f.Ext, f.Convert)
	return r.startErr
}
func (r *rec) ImageData(p []byte) error { r.image = append(r.image, p...); return nil }
func (r *rec) ImageEnd() error          { r.add("image end %d", len(r.image)); return r.endErr }
func (r *rec) ImageAbort()              { r.add("image abort") }
func (r *rec) Note(line string)         { r.add("note %s", line) }

const pw = "Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA=="

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// packets feeds the packets, written as kitty writes them, to p.
func packets(t *testing.T, p *Paster, now time.Time, in ...string) {
	t.Helper()
	for _, s := range in {
		meta, payload, _ := strings.Cut(s, ";")
		pk, err := kittyclip.Parse([]byte(meta), []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		p.Packet(pk, now)
	}
}

// event is a paste event offering types, as kitty 0.48.2 sent it.
func event(pw, types string, primary bool) []string {
	loc := ""
	if primary {
		loc = ":loc=primary"
	}
	return []string{
		"type=read:status=OK" + loc + ":pw=" + pw,
		"type=read:status=DATA:mime=Lg==:pw=" + pw + ";" + b64(types+"\n"),
		"type=read:status=DONE:pw=" + pw,
	}
}

func reply(id string, mime string, chunks ...string) []string {
	out := []string{"type=read:status=OK:id=" + id}
	for _, c := range chunks {
		out = append(out, "type=read:status=DATA:id="+id+":mime="+b64(mime)+";"+b64(c))
	}
	return append(out, "type=read:status=DONE:id="+id)
}

const pngHead = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

func newOn(t *testing.T, r *rec) *Paster {
	p := New(r, Config{MaxBytes: 1 << 20})
	if got := string(p.Enable()); got != kittyclip.ModeOn || !p.On() {
		t.Fatalf("Enable = %q, On %v", got, p.On())
	}
	return p
}

// An image paste: one read with the event's password, at once; the image
// saved; the mode stays on.
func TestImagePaste(t *testing.T) {
	var r rec
	p := newOn(t, &r)
	packets(t, p, epoch, event(pw, "image/png", false)[:2]...)
	if !p.Busy() || len(r.events) != 0 {
		t.Fatalf("mid-event: busy %v, %q", p.Busy(), r.events)
	}
	packets(t, p, epoch, event(pw, "image/png", false)[2])
	want := `terminal "\x1b]5522;type=read:id=pbwrap-1:name=cGJ3cmFw:pw=` + pw + `;aW1hZ2UvcG5n\x1b\\"`
	if len(r.events) != 1 || r.events[0] != want || !p.Busy() {
		t.Fatalf("request: %q, busy %v\nwant %s", r.events, p.Busy(), want)
	}
	packets(t, p, epoch, reply("pbwrap-1", "image/png", pngHead[:5], pngHead[5:], "rest")...)
	if got := strings.Join(r.events[1:], " | "); got != "image start png convert=false | image end 20" || string(r.image) != pngHead+"rest" || p.Busy() || !p.On() {
		t.Fatalf("got %q, image %q, busy %v, on %v", got, r.image, p.Busy(), p.On())
	}
	// The next event has its own password and read.
	r.events = nil
	packets(t, p, epoch, event("QUJD", "image/png", true)...)
	if len(r.events) != 1 || !strings.Contains(r.events[0], "id=pbwrap-2:loc=primary:") || !strings.Contains(r.events[0], ":pw=QUJD;") {
		t.Fatalf("second: %q", r.events)
	}
}

// Text on the clipboard is read as text, normalized as a terminal sends
// it, even when an image is there too.
func TestTextPaste(t *testing.T) {
	var r rec
	p := newOn(t, &r)
	packets(t, p, epoch, event(pw, "image/png text/plain", false)...)
	if !strings.Contains(r.events[0], ";"+b64("text/plain")+`\x1b\\"`) {
		t.Fatalf("request: %q", r.events[0])
	}
	packets(t, p, epoch, reply("pbwrap-1", "text/plain", "a\nb\r\nc\x1b[2", "01~d\r", "\n")...)
	if got := strings.Join(r.events[1:], " | "); got != `text start | text end "a\rb\rcd\r"` {
		t.Fatalf("got %q", got)
	}
}

// Every failure turns the mode off at the terminal, types one note, and
// no later event is answered.
func TestFailures(t *testing.T) {
	for _, tt := range []struct {
		name   string
		run    func(t *testing.T, p *Paster, r *rec)
		reason string
	}{
		{"EPERM", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "image/png", false)...)
			packets(t, p, epoch, "type=read:status=EPERM:id=pbwrap-1")
		}, "the terminal answered EPERM to the clipboard read"},
		{"timeout", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "image/png", false)...)
			packets(t, p, epoch.Add(time.Second), reply("pbwrap-1", "image/png", pngHead)[:2]...)
			if d := p.Deadline(); !d.Equal(epoch.Add(time.Second + DefaultTimeout)) {
				t.Errorf("deadline %v", d.Sub(epoch))
			}
			p.Flush(epoch.Add(DefaultTimeout)) // Early: progress came since.
			if !p.Busy() {
				t.Error("an early Flush ended the read")
			}
			p.Flush(epoch.Add(time.Second + DefaultTimeout))
		}, "the terminal did not answer within 5s"},
		{"event without DONE", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "image/png", false)[:2]...)
			p.Flush(epoch.Add(DefaultTimeout))
		}, "the terminal did not answer within 5s"},
		{"lost reply", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "image/png", false)...)
			packets(t, p, epoch, reply("pbwrap-1", "image/png", pngHead)[:2]...)
			p.Lost(epoch)
		}, "a reply from the terminal was cut off"},
		{"unsupported type", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "text/html application/pdf", false)...)
		}, "the clipboard holds none of text, PNG, JPEG, GIF, WebP, TIFF, BMP (it has text/html application/pdf)"},
		{"bad magic", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "image/png", false)...)
			packets(t, p, epoch, reply("pbwrap-1", "image/png", "<html>not an image</html>")...)
		}, "the clipboard image is in no format pbwrap takes (PNG, JPEG, GIF, WebP, TIFF, BMP)"},
		{"too large", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "image/png", false)...)
			big := pngHead + strings.Repeat("x", 1<<20)
			packets(t, p, epoch, reply("pbwrap-1", "image/png", big[:40], big[40:])...)
		}, "the image is larger than 1 MiB"},
		{"store fails", func(t *testing.T, p *Paster, r *rec) {
			r.startErr = errors.New("disk full")
			packets(t, p, epoch, event(pw, "image/png", false)...)
			packets(t, p, epoch, reply("pbwrap-1", "image/png", pngHead)...)
		}, "saving the image: disk full"},
		{"empty image", func(t *testing.T, p *Paster, r *rec) {
			packets(t, p, epoch, event(pw, "image/png", false)...)
			packets(t, p, epoch, reply("pbwrap-1", "image/png")...)
		}, "the terminal sent no image data"},
	} {
		var r rec
		p := newOn(t, &r)
		tt.run(t, p, &r)
		note := "note [pbwrap: image paste is off for this session: " + tt.reason + "; paste again for the terminal's own paste]"
		n := len(r.events)
		if n < 2 || r.events[n-2] != `terminal "\x1b[?5522l"` || r.events[n-1] != note || p.On() || p.Busy() || p.Reason() != tt.reason {
			t.Errorf("%s: %q, on %v, busy %v\nwant the mode off, then %s", tt.name, r.events, p.On(), p.Busy(), note)
			continue
		}
		if all := strings.Join(r.events, ""); r.startErr == nil && strings.Contains(all, "image start") != strings.Contains(all, "image abort") {
			t.Errorf("%s: an image started and was not aborted: %q", tt.name, r.events)
		}
		r.events = nil
		packets(t, p, epoch.Add(time.Minute), event("QUJD", "image/png", false)...)
		if p.Enable() != nil || len(r.events) != 0 {
			t.Errorf("%s: after the failure: %q", tt.name, r.events)
		}
	}
}

// Packets that answer nothing asked are dropped: a read's replies before
// it is sent, those of another id, an empty clipboard's event.
func TestIgnored(t *testing.T) {
	var r rec
	p := newOn(t, &r)
	packets(t, p, epoch, reply("pbwrap-1", "image/png", pngHead)...)
	packets(t, p, epoch, event(pw, "", false)...)
	if len(r.events) != 0 || p.Busy() {
		t.Fatalf("%q, busy %v", r.events, p.Busy())
	}
	packets(t, p, epoch, event(pw, "image/gif", false)...)
	packets(t, p, epoch, reply("probe", "image/gif", "GIF89a")...)
	packets(t, p, epoch, reply("pbwrap-1", "image/gif", "GIF89a")...)
	if got := strings.Join(r.events[1:], " | "); got != "image start gif convert=false | image end 6" {
		t.Fatalf("got %q", got)
	}
	if got := string(p.Disable()); got != kittyclip.ModeOff || p.Disable() != nil {
		t.Fatalf("Disable = %q", got)
	}
}
