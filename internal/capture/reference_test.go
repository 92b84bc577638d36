package capture

import (
	"strings"
	"testing"
)

func TestParseRefFormat(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantErr string
	}{
		{"[paste saved: {path}]", ""},
		{"<{n}: {path} {bytes}B {lines}L {sha256}>", ""},
		{"see {path}", ""},
		{"[paste]", "must contain {path}"},
		{"{path}\n", "control character"},
		{"{path}\r", "control character"},
		{"{path} \x1b[31m", "control character"},
		{"{path} {size}", "unknown placeholder {size}"},
		{"{path} {", "unknown placeholder {"},
	} {
		_, err := ParseRefFormat(tc.in)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("ParseRefFormat(%q): %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseRefFormat(%q): got %v, want an error with %q", tc.in, err, tc.wantErr)
		}
	}
}

func TestRender(t *testing.T) {
	f, err := ParseRefFormat("<{n}|{path}|{bytes}|{lines}|{sha256}|{path}>")
	if err != nil {
		t.Fatal(err)
	}
	got := f.render(refValues{path: "/r/s/paste-2.txt", bytes: 9000, lines: 250, sha256: "ab12", n: 2})
	if want := "<2|/r/s/paste-2.txt|9000|250|ab12|/r/s/paste-2.txt>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var zero RefFormat
	if got := zero.render(refValues{path: "/p"}); got != "[paste saved: /p]" {
		t.Errorf("zero RefFormat: got %q", got)
	}
}
