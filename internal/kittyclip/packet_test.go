package kittyclip

import (
	"errors"
	"reflect"
	"testing"
)

// Fields are read as a set, whatever their order; mime is decoded, pw
// kept as received.
func TestParse(t *testing.T) {
	for _, tt := range []struct {
		meta, payload string
		want          Packet
	}{
		{"type=read:status=OK:pw=Sk5E", "", Packet{Type: "read", Status: "OK", PW: "Sk5E", Payload: []byte{}}},
		{"type=read:status=OK:loc=primary:pw=QQ==", "", Packet{Type: "read", Status: "OK", Loc: "primary", PW: "QQ==", Payload: []byte{}}},
		{"pw=QQ==:mime=aW1hZ2UvcG5n:id=pbwrap-1:status=DATA:type=read", "iVBO", Packet{Type: "read", Status: "DATA", ID: "pbwrap-1", MIME: "image/png", PW: "QQ==", Payload: []byte("iVBO")}},
		{"type=read:status=EPERM:id=p:future=1", "", Packet{Type: "read", Status: "EPERM", ID: "p", Payload: []byte{}}},
	} {
		got, err := Parse([]byte(tt.meta), []byte(tt.payload))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q, %q) = %+v, %v; want %+v", tt.meta, tt.payload, got, err, tt.want)
		}
	}
	for _, meta := range []string{"type=read:status", "type=read:mime=!!", ""} {
		if _, err := Parse([]byte(meta), nil); err == nil {
			t.Errorf("Parse(%q): no error", meta)
		}
	}
}

// The type list of kitty's paste event, and an empty clipboard.
func TestTypes(t *testing.T) {
	p := Packet{Payload: []byte("dGV4dC9wbGFpbiBpbWFnZS9wbmcK")} // "text/plain image/png\n"
	if got, err := p.Types(); err != nil || !reflect.DeepEqual(got, []string{"text/plain", "image/png"}) {
		t.Errorf("Types = %q, %v", got, err)
	}
	if got, err := (&Packet{}).Types(); err != nil || len(got) != 0 {
		t.Errorf("empty: %q, %v", got, err)
	}
	if _, err := (&Packet{Payload: []byte("a")}).Data(nil); err == nil {
		t.Error("bad base64: no error")
	}
}

// The request as the measured kitty took it, and refusals of fields that
// could break out of it.
func TestAppendRead(t *testing.T) {
	got, err := AppendRead(nil, Read{ID: "probe3", PW: "Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==", Name: "Paste event", MIME: []string{"image/png"}})
	want := "\x1b]5522;type=read:id=probe3:name=UGFzdGUgZXZlbnQ=:pw=Sk5EVmg2Mk1XRGlVbnA1WHYzOG5SSA==;aW1hZ2UvcG5n\x1b\\"
	if err != nil || string(got) != want {
		t.Errorf("AppendRead = %q, %v\nwant %q", got, err, want)
	}
	got, _ = AppendRead(nil, Read{ID: "p", PW: "QQ==", Name: "pbwrap", Primary: true, MIME: []string{"text/plain", "image/png"}})
	if want := "\x1b]5522;type=read:id=p:loc=primary:name=cGJ3cmFw:pw=QQ==;dGV4dC9wbGFpbiBpbWFnZS9wbmc=\x1b\\"; string(got) != want {
		t.Errorf("primary: %q, want %q", got, want)
	}
	for _, r := range []Read{
		{ID: "a:b", PW: "QQ==", MIME: []string{"x"}},
		{ID: "a", PW: "QQ==\x1b\\", MIME: []string{"x"}},
		{ID: "a", PW: "", MIME: []string{"x"}},
		{ID: "a", PW: "QQ==", MIME: []string{"a b"}},
		{ID: "a", PW: "QQ=="},
	} {
		if _, err := AppendRead(nil, r); !errors.Is(err, ErrBadField) {
			t.Errorf("AppendRead(%+v): %v, want ErrBadField", r, err)
		}
	}
}
