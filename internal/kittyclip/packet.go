package kittyclip

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Statuses of a read reply (Packet.Status). Any other status is an
// error the terminal reports instead of OK: EPERM (the user or the
// settings denied the read), ENOSYS (no primary selection), EBUSY, EIO.
const (
	StatusOK   = "OK"
	StatusData = "DATA"
	StatusDone = "DONE"
)

// ListMIME is the MIME type that asks for, and marks, the list of the
// types on the clipboard: a DATA packet with mime "." carries them,
// separated by spaces.
const ListMIME = "."

// A Packet is one OSC 5522 packet from the terminal, its fields read as
// a set (their order varies between terminals). Unknown keys are ignored.
type Packet struct {
	Type   string // "read" for what pbwrap handles
	Status string // StatusOK, StatusData, StatusDone or an error such as EPERM
	ID     string // the id of the request it answers; empty for a paste event
	Loc    string // "primary" when the primary selection is read
	MIME   string // decoded from base64
	// PW is the one-time password of a paste event, as received: base64
	// text, which a read request must echo exactly.
	PW      string
	Payload []byte // the payload, base64 as received; decode with Data
}

// Parse reads one packet's metadata and payload, as a Sink gets them. A
// record without '=' makes the whole packet invalid (kitty and Ghostty drop
// such packets), and so does a mime that is not base64. Parse does not
// keep meta or payload: the Packet is its own.
func Parse(meta, payload []byte) (Packet, error) {
	var p Packet
	for rec := range bytes.SplitSeq(meta, []byte{':'}) {
		k, v, ok := bytes.Cut(rec, []byte{'='})
		if !ok {
			return Packet{}, fmt.Errorf("kittyclip: parse packet: record %q has no '='", rec)
		}
		switch string(k) {
		case "type":
			p.Type = string(v)
		case "status":
			p.Status = string(v)
		case "id":
			p.ID = string(v)
		case "loc":
			p.Loc = string(v)
		case "pw":
			p.PW = string(v)
		case "mime":
			m, err := base64.StdEncoding.DecodeString(string(v))
			if err != nil {
				return Packet{}, fmt.Errorf("kittyclip: parse packet: mime %q: %w", v, err)
			}
			p.MIME = string(m)
		}
	}
	p.Payload = bytes.Clone(payload)
	return p, nil
}

// Data appends the decoded payload to dst. Each packet carries its own
// padding, so packets decode one by one.
func (p *Packet) Data(dst []byte) ([]byte, error) {
	n := len(dst)
	dst = append(dst, make([]byte, base64.StdEncoding.DecodedLen(len(p.Payload)))...)
	k, err := base64.StdEncoding.Decode(dst[n:], p.Payload)
	if err != nil {
		return dst[:n], fmt.Errorf("kittyclip: decode %d bytes of data: %w", len(p.Payload), err)
	}
	return dst[:n+k], nil
}

// Types reads the payload of a type list (mime ListMIME): the MIME types
// on the clipboard, in the terminal's order; none for an empty clipboard.
func (p *Packet) Types() ([]string, error) {
	b, err := p.Data(nil)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(b)), nil
}

// A Read is a read request: the answer to a paste event, whose one-time
// password it carries with a name, so that the terminal grants it without
// asking the user.
type Read struct {
	ID      string   // names the replies; only [a-zA-Z0-9-_+.] survive the terminal
	PW      string   // the paste event's password, as received (base64)
	Name    string   // the program's name, shown if the terminal asks after all
	Primary bool     // read the primary selection (the event came with loc=primary)
	MIME    []string // the types to read
}

// ErrBadField is returned by AppendRead for a field that could end the
// request early or change its meaning.
var ErrBadField = errors.New("kittyclip: field not allowed in a request")

// AppendRead appends the request r to dst: ESC ] 5522 ; type=read : id=…
// [: loc=primary] : name=… : pw=… ; base64(types) ESC \. The types go in
// the payload, separated by spaces (kitty ignores a mime key in a read).
// The id, the password (base64) and the types are checked, so that no
// byte of them can end or extend the request.
func AppendRead(dst []byte, r Read) ([]byte, error) {
	if r.ID == "" || strings.TrimFunc(r.ID, isIDChar) != "" {
		return dst, fmt.Errorf("%w: id %q", ErrBadField, r.ID)
	}
	if r.PW == "" || strings.TrimFunc(r.PW, isBase64Char) != "" {
		return dst, fmt.Errorf("%w: password is not base64", ErrBadField)
	}
	if len(r.MIME) == 0 {
		return dst, fmt.Errorf("%w: no type to read", ErrBadField)
	}
	for _, m := range r.MIME {
		if m == "" || strings.TrimFunc(m, isGraphic) != "" {
			return dst, fmt.Errorf("%w: type %q", ErrBadField, m)
		}
	}
	dst = append(dst, prefix...)
	dst = append(dst, "type=read:id="...)
	dst = append(dst, r.ID...)
	if r.Primary {
		dst = append(dst, ":loc=primary"...)
	}
	dst = append(dst, ":name="...)
	dst = base64.StdEncoding.AppendEncode(dst, []byte(r.Name))
	dst = append(dst, ":pw="...)
	dst = append(dst, r.PW...)
	dst = append(dst, ';')
	dst = base64.StdEncoding.AppendEncode(dst, []byte(strings.Join(r.MIME, " ")))
	return append(dst, esc, '\\'), nil
}

func isIDChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_+.", c)
}

// isGraphic reports whether c is printable ASCII other than space: what
// a MIME type is made of.
func isGraphic(c rune) bool { return c > ' ' && c < 0x7f }

func isBase64Char(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// Mode sequences for paste events (DEC private mode 5522): with it set,
// the terminal sends a paste event in place of the clipboard's text when
// the user pastes.
const (
	ModeOn  = "\x1b[?5522h"
	ModeOff = "\x1b[?5522l"
)
