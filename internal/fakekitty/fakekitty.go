// Package fakekitty writes what kitty sends a program for image paste
// (OSC 5522 paste events and the replies to a clipboard read), as kitty
// 0.48.2 sent it when measured (the captures in kittyclip's tests), for
// tests that play the terminal: capture's, the built pbwrap's on a PTY,
// and the end-to-end suite's with real agents.
package fakekitty

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"regexp"
	"strings"
)

// PW is a one-time password as kitty writes one in a paste event.
const PW = "Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA=="

// Packet is one OSC 5522 packet: its metadata, and its payload unless
// payload is empty, terminated by ST.
func Packet(meta, payload string) string {
	if payload != "" {
		meta += ";" + payload
	}
	return "\x1b]5522;" + meta + "\x1b\\"
}

// Event is the paste event kitty sends when the user pastes with paste
// events on: the clipboard holds types (MIME types, one per line), pw is
// the event's one-time password, and loc is "" for the clipboard or
// "primary" for the primary selection.
func Event(pw, types, loc string) string {
	if loc != "" {
		loc = ":loc=" + loc
	}
	b := base64.StdEncoding.EncodeToString([]byte(types + "\n"))
	return Packet("type=read:status=OK"+loc+":pw="+pw, "") +
		Packet("type=read:status=DATA:mime=Lg==:pw="+pw, b) +
		Packet("type=read:status=DONE:pw="+pw, "")
}

// Reply is kitty's answer to the read id: OK, data of type mime in DATA
// packets of 4096 bytes, DONE.
func Reply(id, mime string, data []byte) string {
	m := base64.StdEncoding.EncodeToString([]byte(mime))
	var b strings.Builder
	b.WriteString(Packet("type=read:status=OK:id="+id, ""))
	for len(data) > 0 {
		n := min(4096, len(data))
		b.WriteString(Packet("type=read:status=DATA:id="+id+":mime="+m, base64.StdEncoding.EncodeToString(data[:n])))
		data = data[n:]
	}
	b.WriteString(Packet("type=read:status=DONE:id="+id, ""))
	return b.String()
}

// ReadRequest matches pbwrap's read of the clipboard as the terminal sees
// it; its groups are the read's id, its password and its base64 MIME
// types.
var ReadRequest = regexp.MustCompile("\x1b\\]5522;type=read:id=([A-Za-z0-9._+-]+):name=[A-Za-z0-9+/=]+:pw=([A-Za-z0-9+/=]+);([A-Za-z0-9+/=]+)\x1b\\\\")

// NoisePNG is a w×h opaque PNG of noise, the same for the same size: an
// image on the clipboard that does not compress, so that it takes several
// DATA packets, and that no agent has reason to scale when small.
func NoisePNG(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	x := uint32(7)
	for i := range img.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = byte(x)
		if i%4 == 3 {
			img.Pix[i] = 255 // Opaque.
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // An NRGBA image in memory: cannot fail.
	}
	return b.Bytes()
}
